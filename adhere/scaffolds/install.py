"""Install the pinned agent CLIs into the scaffold cache: ``python -m adhere.scaffolds.install``.

Usage::

    python -m adhere.scaffolds.install --all            # every CLI scaffold
    python -m adhere.scaffolds.install claude-code kilo  # some of them
    python -m adhere.scaffolds.install --all --cache-dir /path/to/cache

The cache defaults to ``$ADHERE_SCAFFOLD_CACHE`` or ``~/.cache/adhere/scaffolds``.
Installs run concurrently; finished ones are skipped. The exit status is 0 when
every requested scaffold is installed, 1 when one failed (its npm output is shown),
2 for bad arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Sequence
from pathlib import Path

import click

from adhere.errors import AdhereError
from adhere.scaffolds._install import default_cache_dir, install_npm_tool
from adhere.scaffolds._registry import get_scaffold, installable

__all__ = ["install_scaffolds", "main"]


async def install_scaffolds(names: Sequence[str], cache_dir: Path) -> dict[str, str]:
    """Install the named scaffolds concurrently; map each name to ``ok`` or its error.

    Progress lines go to stdout as each install starts and ends.
    """
    results: dict[str, str] = {}

    async def one(name: str) -> None:
        started = time.monotonic()
        try:
            scaffold = get_scaffold(name)
            tool = getattr(scaffold, "tool", None)
            if tool is None:
                await scaffold.install(cache_dir)
            else:
                await asyncio.to_thread(install_npm_tool, tool, cache_dir, _say)
        except AdhereError as exc:
            results[name] = str(exc)
            _say(f"{name}: FAILED after {time.monotonic() - started:.1f} s")
            return
        results[name] = "ok"
        _say(f"{name}: ready ({time.monotonic() - started:.1f} s)")

    await asyncio.gather(*(one(name) for name in names))
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m adhere.scaffolds.install",
        description="Install the pinned agent CLIs of the scaffolds into the cache.",
    )
    parser.add_argument(
        "names", nargs="*", help=f"scaffolds to install: {', '.join(installable())}"
    )
    parser.add_argument("--all", action="store_true", help="install every CLI scaffold")
    parser.add_argument("--cache-dir", type=Path, help="cache directory (default: see docs)")
    args = parser.parse_args(argv)
    names: list[str] = list(installable()) if args.all else list(args.names)
    if not names:
        parser.error("name the scaffolds to install, or give --all")
    unknown = sorted(set(names) - set(installable()))
    if unknown:
        parser.error(
            f"not installable: {', '.join(unknown)} (choose from {', '.join(installable())})"
        )
    cache_dir = args.cache_dir or default_cache_dir()
    _say(f"installing {', '.join(names)} into {cache_dir}")
    started = time.monotonic()
    results = asyncio.run(install_scaffolds(names, cache_dir))
    failed = {name: error for name, error in results.items() if error != "ok"}
    for error in failed.values():
        click.echo(f"error: {error}", err=True)
    if failed:
        click.echo(f"failed to install: {', '.join(sorted(failed))}", err=True)
        return 1
    _say(f"all {len(names)} scaffolds ready in {time.monotonic() - started:.1f} s")
    return 0


def _say(message: str) -> None:
    click.echo(message)


if __name__ == "__main__":
    raise SystemExit(main())
