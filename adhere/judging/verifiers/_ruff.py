"""Running ruff over a copy of some Python files and reading back its diagnostics.

Ruff only parses the code (it never imports or runs it), so this is not untrusted-
code execution; it still runs as a separate process with a timeout. The files are
written to a fresh temporary directory under their workspace-relative paths, ruff runs
with ``--isolated`` (no configuration file of the workspace applies), ``--no-cache``
and JSON output, and each diagnostic is mapped back to its workspace path.

The ruff binary is ``ruff`` on ``PATH``, else the one next to the running Python
(the project's virtual environment pins ruff 0.11.13, the version whose rule
behaviour the VeriCode rules were written for).
"""

from __future__ import annotations

import json
import os
import posixpath
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Diagnostic",
    "RuffOptions",
    "RuffRunner",
    "check_files",
    "find_ruff",
    "run_ruff",
    "toml_setting",
    "write_files",
]


@dataclass(frozen=True)
class Diagnostic:
    """One ruff finding: where, which rule (``syntax-error`` for unparsable code), what."""

    path: str
    line: int
    column: int
    code: str
    message: str


@dataclass(frozen=True)
class RuffOptions:
    """How to run ruff.

    Attributes:
        select: Rule selectors (``E``, ``PLR0912`` …).
        preview: Enable preview rules (``--preview``).
        config: ``key = value`` TOML settings passed with ``--config``.
        timeout: Seconds before ruff is stopped.
    """

    select: tuple[str, ...]
    preview: bool = False
    config: tuple[str, ...] = ()
    timeout: float = 60.0


RuffRunner = Callable[[Mapping[str, str], RuffOptions], list[Diagnostic]]
"""Runs ruff over ``{relative path: text}`` files; injectable so tests can fake it."""


def toml_setting(key: str, value: str | int | float | bool | Sequence[str]) -> str:
    """One ``--config`` argument: ``lint.pylint.max-branches = 2``."""
    if isinstance(value, bool):
        rendered = "true" if value else "false"
    elif isinstance(value, int | float):
        rendered = repr(value)
    elif isinstance(value, str):
        rendered = json.dumps(value)
    else:
        rendered = "[" + ", ".join(json.dumps(str(v)) for v in value) + "]"
    return f"{key} = {rendered}"


def find_ruff() -> str:
    """Path of the ruff executable.

    Raises:
        FileNotFoundError: Ruff is neither on ``PATH`` nor beside the interpreter.
    """
    found = shutil.which("ruff")
    if found:
        return found
    beside = Path(sys.executable).parent / ("ruff.exe" if os.name == "nt" else "ruff")
    if beside.is_file():
        return str(beside)
    raise FileNotFoundError("ruff is not installed (looked on PATH and beside the interpreter)")


def _safe(path: str) -> str:
    normal = posixpath.normpath(path.replace("\\", "/"))
    if normal.startswith(("/", "../")) or normal == "..":
        raise ValueError(f"refusing to copy {path!r}: it leaves the workspace")
    return normal


def write_files(root: Path, files: Mapping[str, str]) -> list[str]:
    """Write ``{relative path: text}`` under ``root``; the relative paths, sorted.

    Raises:
        ValueError: A path leaves ``root``.
    """
    relative = sorted(_safe(p) for p in files)
    for original, rel in zip(sorted(files), relative, strict=True):
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(files[original], encoding="utf-8")
    return relative


def check_files(root: Path, relative: Sequence[str], options: RuffOptions) -> list[Diagnostic]:
    """Run ruff over files already written under ``root``; diagnostics by relative path.

    Raises:
        RuntimeError: Ruff failed (bad selector or setting) or its output is unreadable.
        subprocess.TimeoutExpired: Ruff took longer than ``options.timeout``.
    """
    if not relative or not options.select:
        return []
    command = [find_ruff(), "check", "--isolated", "--no-cache", "--exit-zero"]
    command += ["--output-format", "json", "--select", ",".join(options.select)]
    command += ["--preview"] if options.preview else []
    for setting in options.config:
        command += ["--config", setting]
    command += ["--", *relative]
    done = subprocess.run(  # a fixed argv, never through a shell
        command,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=options.timeout,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"ruff exited with {done.returncode}: {done.stderr.strip()[:500]}")
    try:
        raw = json.loads(done.stdout or "[]")
    except json.JSONDecodeError as exc:
        raise RuntimeError(f"unreadable ruff output: {exc}") from None
    return [_diagnostic(item, root) for item in raw]


def run_ruff(files: Mapping[str, str], options: RuffOptions) -> list[Diagnostic]:
    """Run ruff over ``files`` and return its diagnostics, by workspace path.

    Raises:
        RuntimeError: Ruff failed (bad selector or setting) or its output is unreadable.
        subprocess.TimeoutExpired: Ruff took longer than ``options.timeout``.
    """
    if not files or not options.select:
        return []
    with tempfile.TemporaryDirectory(prefix="adhere-ruff-") as tmp:
        root = Path(tmp).resolve()
        return check_files(root, write_files(root, files), options)


def _diagnostic(item: dict[str, object], root: Path) -> Diagnostic:
    raw_name = str(item.get("filename", ""))
    prefix = str(root) + os.sep
    if raw_name.startswith(prefix):  # ruff reports absolute paths under the resolved root
        path = raw_name[len(prefix) :].replace(os.sep, "/")
    else:
        filename = Path(raw_name)
        try:
            path = filename.resolve().relative_to(root).as_posix()
        except ValueError:
            path = filename.as_posix()
    location = item.get("location")
    row = location.get("row", 0) if isinstance(location, dict) else 0
    column = location.get("column", 0) if isinstance(location, dict) else 0
    code = item.get("code")
    return Diagnostic(
        path=path,
        line=int(row),
        column=int(column),
        code=str(code) if code else "syntax-error",
        message=str(item.get("message", "")),
    )
