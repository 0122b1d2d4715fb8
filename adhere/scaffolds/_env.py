"""The minimal environment a scaffold process gets: never the parent's environment.

A CLI scaffold sees only ``PATH`` (its own bin directory, the directory of ``node``
and the system directories), ``HOME`` (the trial's throwaway home), a UTF-8 locale,
a dumb terminal, and the variables its adapter names. Nothing else of the runner's
environment reaches it, so no secret can leak into the scaffold or into the
prompts it builds (Droid lists the names of its environment variables to the model).
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["SYSTEM_PATH", "base_env", "search_path"]

SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")
"""System directories every scaffold may run programs from (shell, coreutils, git)."""


def search_path(*first: Path | str | None, node: str | None = None) -> str:
    """A ``PATH`` of ``first`` (in order), the directory of ``node``, then the system ones.

    Args:
        first: Directories to search first (``None`` entries are skipped).
        node: Path of the ``node`` executable; found on the runner's ``PATH`` when
            not given. Its directory is added so ``#!/usr/bin/env node`` scripts run.
    """
    node = node if node is not None else shutil.which("node")
    entries: list[str] = [str(entry) for entry in first if entry is not None]
    if node:
        entries.append(str(Path(node).parent))
    entries.extend(SYSTEM_PATH)
    unique: list[str] = []
    for entry in entries:
        if entry not in unique:
            unique.append(entry)
    return ":".join(unique)


def base_env(
    home: Path,
    path: str,
    extra: Mapping[str, str] | None = None,
    *,
    drop: Sequence[str] = (),
) -> dict[str, str]:
    """The environment of one scaffold process.

    Args:
        home: The trial's throwaway HOME.
        path: The ``PATH`` (see :func:`search_path`).
        extra: The adapter's own variables (endpoint, dummy key, telemetry switches).
        drop: Names of base variables to leave out.
    """
    env = {
        "PATH": path,
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "TMPDIR": str(home / "tmp"),
    }
    for name in drop:
        env.pop(name, None)
    env.update(extra or {})
    return env
