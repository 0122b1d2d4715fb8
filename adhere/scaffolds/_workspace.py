"""Collecting the final workspace a scaffold leaves behind, as text files.

Rules (pure, so tests can check them with a temporary directory):

* paths are relative to the work directory, with ``/`` separators, sorted;
* directories named in ``ignore_dirs`` (version control, dependency and cache
  directories, and whatever the adapter adds for its CLI's own state) are skipped
  wherever they occur, as are paths matching ``ignore_paths`` (exact relative paths);
* symbolic links are never followed; they are listed with a placeholder;
* binary files (a NUL byte or invalid UTF-8 in the first bytes) and files over
  ``max_file_bytes`` are listed with a placeholder instead of their content;
* after ``max_files`` files or ``max_total_bytes`` of content, the remaining files
  are listed with a placeholder, so the result stays bounded.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from adhere.core import WORKSPACE_IGNORE_DIRS

__all__ = ["DEFAULT_IGNORE_DIRS", "WorkspaceLimits", "collect_files"]

DEFAULT_IGNORE_DIRS = WORKSPACE_IGNORE_DIRS
"""Directory names skipped by default: version control, dependencies and caches."""


@dataclass(frozen=True)
class WorkspaceLimits:
    """Caps on what :func:`collect_files` reads.

    Attributes:
        max_file_bytes: Larger files are listed with a placeholder.
        max_total_bytes: Content budget of the whole workspace.
        max_files: Files read with content; later ones get a placeholder.
    """

    max_file_bytes: int = 256 * 1024
    max_total_bytes: int = 16 * 1024 * 1024
    max_files: int = 5000


def collect_files(
    workdir: Path,
    *,
    ignore_dirs: Iterable[str] = DEFAULT_IGNORE_DIRS,
    ignore_paths: Iterable[str] = (),
    limits: WorkspaceLimits | None = None,
) -> dict[str, str]:
    """The text files under ``workdir``, by relative path (see the module rules)."""
    limits = limits or WorkspaceLimits()
    skip_dirs = frozenset(ignore_dirs)
    skip_paths = frozenset(ignore_paths)
    files: dict[str, str] = {}
    budget = limits.max_total_bytes
    read = 0
    for relative, path in _walk(workdir, skip_dirs, skip_paths):
        if path.is_symlink():
            files[relative] = f"<symlink to {os.readlink(path)}>"
            continue
        try:
            size = path.stat().st_size
        except OSError as exc:
            files[relative] = f"<unreadable: {exc.strerror or type(exc).__name__}>"
            continue
        if size > limits.max_file_bytes:
            files[relative] = f"<omitted: file too large ({size} bytes)>"
            continue
        if read >= limits.max_files or size > budget:
            files[relative] = f"<omitted: workspace size cap reached ({size} bytes)>"
            continue
        try:
            text = _read_text(path)
        except OSError as exc:
            files[relative] = f"<unreadable: {exc.strerror or type(exc).__name__}>"
            continue
        if text is None:
            files[relative] = f"<binary file ({size} bytes)>"
            continue
        files[relative] = text
        read += 1
        budget -= size
    return dict(sorted(files.items()))


def _walk(
    root: Path, skip_dirs: frozenset[str], skip_paths: frozenset[str]
) -> Iterator[tuple[str, Path]]:
    for current, dirs, names in os.walk(root, followlinks=False):
        base = Path(current)
        prefix = base.relative_to(root).as_posix()
        kept = []
        for name in sorted(dirs):
            relative = name if prefix == "." else f"{prefix}/{name}"
            if name in skip_dirs or relative in skip_paths:
                continue
            if (base / name).is_symlink():  # os.walk lists links to directories as dirs
                yield relative, base / name
                continue
            kept.append(name)
        dirs[:] = kept
        for name in sorted(names):
            relative = name if prefix == "." else f"{prefix}/{name}"
            if relative not in skip_paths:
                yield relative, base / name


def _read_text(path: Path) -> str | None:
    """The file's text, or ``None`` when it looks binary (raises ``OSError``)."""
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
