"""Running ruff over a copy of some Python files and reading back its diagnostics.

Ruff only parses the code (it never imports or runs it), so this is not untrusted-
code execution; it still runs as a separate process with a timeout. The files are
written to a fresh temporary directory under their workspace-relative paths, ruff runs
with ``--isolated`` (no configuration file of the workspace applies), ``--no-cache``
and ``concise --quiet`` output — one line per diagnostic, ``path:row:column: CODE
message``: about a seventh of the size of the JSON output, which carries every fix,
and a third of the time to read — and each diagnostic is mapped back to its
workspace path.

The ruff binary is ``ruff`` on ``PATH``, else the one next to the running Python
(the project's virtual environment pins ruff 0.11.13, the version whose rule
behaviour the VeriCode rules were written for).
"""

from __future__ import annotations

import json
import os
import posixpath
import re
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
    "parse_concise",
    "run_ruff",
    "toml_setting",
    "write_files",
]


@dataclass(frozen=True, slots=True)
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
        timeout: Seconds before ruff is stopped (a minute by default; ruff checks
            thousands of files in seconds).
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
    beside = Path(sys.executable).parent / "ruff"
    if beside.is_file():
        return str(beside)
    raise FileNotFoundError("ruff is not installed (looked on PATH and beside the interpreter)")


def _safe(path: str) -> str:
    normal = posixpath.normpath(path.replace("\\", "/"))
    if normal.startswith(("/", "../")) or normal == "..":
        raise ValueError(f"refusing to copy {path!r}: it leaves the workspace")
    return normal


def write_files(root: Path, files: Mapping[str, str]) -> list[str]:
    """Write ``{relative path: text}`` under ``root`` as UTF-8; the relative paths, sorted.

    Files are written with plain ``os.open``/``os.write`` (batches write thousands; the
    text is written as is, with no newline translation).

    Raises:
        ValueError: A path leaves ``root``.
    """
    safe = {_safe(p): text for p, text in files.items()}
    base = str(root) + os.sep
    made: set[str] = set()
    for rel, text in safe.items():
        parent = posixpath.dirname(rel)
        if parent and parent not in made:
            os.makedirs(base + parent, exist_ok=True)
            made.add(parent)
        _write(base + rel, text.encode("utf-8"))
    return sorted(safe)


_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC


def _write(path: str, data: bytes) -> None:
    descriptor = os.open(path, _WRITE_FLAGS, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view) :]
    finally:
        os.close(descriptor)


def check_files(root: Path, relative: Sequence[str], options: RuffOptions) -> list[Diagnostic]:
    """Run ruff over files already written under ``root``; diagnostics by relative path.

    Raises:
        RuntimeError: Ruff failed (bad selector or setting, or stopped by a signal) or its
            output is unreadable.
        subprocess.TimeoutExpired: Ruff took longer than ``options.timeout``.
    """
    if not relative or not options.select:
        return []
    command = [find_ruff(), "check", "--isolated", "--no-cache", "--exit-zero", "--quiet"]
    command += ["--output-format", "concise", "--select", ",".join(options.select)]
    command += ["--preview"] if options.preview else []
    for setting in options.config:
        command += ["--config", setting]
    command += ["--", *relative]
    done = subprocess.run(  # a fixed argv, never through a shell
        command,
        cwd=root,
        env=_plain_env(),
        capture_output=True,
        encoding="utf-8",  # Ruff writes UTF-8 whatever the locale
        timeout=options.timeout,
        check=False,
    )
    code = done.returncode
    if code != 0:
        why = f"was stopped by signal {-code}" if code < 0 else f"exited with {code}"
        raise RuntimeError(f"ruff {why}: {done.stderr.strip()[:500]}")
    return parse_concise(done.stdout, root)


def _plain_env() -> dict[str, str]:
    """The environment without the variables that force colours into piped output."""
    return {k: v for k, v in os.environ.items() if k not in ("CLICOLOR_FORCE", "FORCE_COLOR")}


_CONCISE = re.compile(
    r"^(.+?)(?::cell \d+)?:(\d+):(\d+): (?:([A-Z]+[0-9]+) (?:\[\*\] )?)?(.*)$", re.MULTILINE
)
"""``path:row:column: CODE [*] message`` (``[*]``: fixable; a notebook's path is followed
by ``:cell N`` and the row is the cell's, as in the JSON output); a syntax error has no
code and its message starts ``SyntaxError:``."""


def parse_concise(text: str, root: Path) -> list[Diagnostic]:
    """Diagnostics from ``ruff check --output-format concise --quiet`` run in ``root``.

    A line that does not start ``path:row:column:`` continues the previous message (a
    message with a newline in it); output that does not start with a diagnostic (e.g.
    coloured) is unreadable.

    Raises:
        RuntimeError: The output is not concise diagnostics.
    """
    rows: list[tuple[str, ...]] = _CONCISE.findall(text)
    if len(rows) != (text.removesuffix("\n").count("\n") + 1 if text else 0):
        rows = _with_continuations(text)  # some line is not a diagnostic of its own
    prefix = str(root) + os.sep
    return [
        Diagnostic(
            path=path.removeprefix(prefix).replace(os.sep, "/"),
            line=int(row),
            column=int(column),
            code=code or "syntax-error",
            message=message,
        )
        for path, row, column, code, message in rows
    ]


def _with_continuations(text: str) -> list[tuple[str, ...]]:
    rows: list[list[str]] = []
    for line in text.removesuffix("\n").split("\n"):
        match = _CONCISE.fullmatch(line)
        if match is not None:
            rows.append(list(match.groups(default="")))
        elif rows:
            rows[-1][4] += "\n" + line
        elif line:
            raise RuntimeError(f"unreadable ruff output: {line[:200]!r}")
    return [tuple(row) for row in rows]


def run_ruff(files: Mapping[str, str], options: RuffOptions) -> list[Diagnostic]:
    """Run ruff over ``files`` and return its diagnostics, by workspace path.

    Raises:
        RuntimeError: Ruff failed (bad selector or setting, or stopped by a signal) or its
            output is unreadable.
        subprocess.TimeoutExpired: Ruff took longer than ``options.timeout``.
    """
    if not options.select:
        return []
    with tempfile.TemporaryDirectory(prefix="adhere-ruff-") as tmp:
        root = Path(tmp).resolve()
        return check_files(root, write_files(root, files), options)
