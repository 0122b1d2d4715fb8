"""Workspaces given as files: inline text, directories beside the data, a workspaces folder.

Every path stays inside its root:

* an inline file (``workspace: {path: text}``) has a relative path without ``..``;
* a directory named on an instance line lies inside the benchmark directory (the
  JSONL file's directory), after following symbolic links;
* an instance's directory under the ``workspaces`` option lies inside that folder (an
  instance id cannot climb out of it);
* a symbolic link inside a workspace directory points inside that directory: the
  link is copied as a link, never followed, so one pointing out is an error.

A directory becomes a *layer* of the :class:`~adhere.core.Workspace` (copied as it is
into each trial: binary files, file modes and ``.git`` kept); its text files outside
version-control, dependency and cache directories are the workspace's ``files``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

from adhere.core import WORKSPACE_IGNORE_DIRS, Workspace
from adhere.errors import SpecError
from adhere.spec import data_path

__all__ = [
    "MAX_WORKSPACE_FILE",
    "check_inline",
    "directory_workspace",
    "instance_directory",
    "read_workspace_dir",
]

MAX_WORKSPACE_FILE = 1_000_000
"""Larger files are copied with the workspace but not read as its text."""


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def check_inline(files: Mapping[str, str], *, where: str) -> None:
    """Refuse an inline workspace path that is absolute, empty or climbs out with ``..``."""
    for rel in files:
        pure = PurePosixPath(rel)
        if not rel.strip() or pure.is_absolute() or ".." in pure.parts or "\\" in rel:
            raise SpecError(
                f"workspace path {rel!r} leaves the workspace: expected a relative path "
                "without '..'",
                file=where,
                field=f"workspace.{rel}",
            )


def read_workspace_dir(root: Path, *, where: str = "", field: str = "workspace") -> dict[str, str]:
    """The text files of a workspace directory, by relative POSIX path.

    Symbolic links are not followed (and must point inside ``root``); files under
    :data:`~adhere.core.WORKSPACE_IGNORE_DIRS`, binary files and files over
    :data:`MAX_WORKSPACE_FILE` are left out of the text.

    Raises:
        SpecError: Naming ``where`` and ``field``: a link points outside ``root``.
    """
    real_root = root.resolve()
    files: dict[str, str] = {}
    for current, dirs, names in os.walk(root, followlinks=False):
        here = Path(current)
        rel_dir = here.relative_to(root)
        ignored = any(part in WORKSPACE_IGNORE_DIRS for part in rel_dir.parts)
        for name in sorted([*dirs, *names]):
            path = here / name
            if path.is_symlink():
                _check_link(path, root, real_root, where=where, field=field)
        dirs.sort()
        for name in sorted(names):
            path = here / name
            if ignored or path.is_symlink() or not path.is_file():
                continue
            if path.stat().st_size > MAX_WORKSPACE_FILE:
                continue
            try:
                text = path.read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                continue
            if "\x00" in text[:8192]:
                continue
            files[(rel_dir / name).as_posix()] = text
    return dict(sorted(files.items()))


def _check_link(path: Path, root: Path, real_root: Path, *, where: str, field: str) -> None:
    target = Path(os.path.realpath(path))
    if not _inside(target, real_root):
        rel = path.relative_to(root).as_posix()
        raise SpecError(
            f"workspace entry {rel!r} in {root} is a symbolic link to {os.readlink(path)!r}, "
            "outside the workspace: links are copied, never followed, so they must point "
            "inside it",
            file=where,
            field=field,
        )


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # e.g. a name longer than the file system allows: no such directory
        return False


def directory_workspace(
    layers: Iterable[tuple[str, str]], *, base_dir: Path, where: str, image: str | None
) -> Workspace:
    """A workspace layered from directories named on an instance line.

    Args:
        layers: ``(path, field)`` pairs: each directory, relative to ``base_dir``, and
            the field naming it (``workspace`` or ``workspace[n]``).
        base_dir: The benchmark directory (the JSONL file's); no layer leaves it.
        where: ``file:line`` of the instance, for messages.
        image: The instance's image, kept beside the files.

    Raises:
        SpecError: Naming ``where`` and the field: a directory outside ``base_dir`` or
            missing, or a link in it pointing out.
    """
    bench = base_dir.resolve()
    roots: list[str] = []
    files: dict[str, str] = {}
    for layer, field in layers:
        root = data_path(layer, base_dir=base_dir, file=where, field=field).resolve()
        if not _inside(root, bench):
            raise SpecError(
                f"workspace directory {layer!r} is outside the benchmark directory {bench}",
                file=where,
                field=field,
            )
        if not _is_dir(root):
            raise SpecError(f"workspace directory {root} does not exist", file=where, field=field)
        files.update(read_workspace_dir(root, where=where, field=field))
        roots.append(str(root))
    return Workspace(files=files, image=image, layers=roots)


def instance_directory(
    workspaces: Path, instance_id: str, *, where: str, image: str | None
) -> Workspace | None:
    """The instance's directory under the ``workspaces`` option, if it has one."""
    folder = workspaces.resolve()
    candidate = workspaces / instance_id
    if not _is_dir(candidate):
        return None
    root = candidate.resolve()
    if not _inside(root, folder) or root == folder:
        raise SpecError(
            f"the workspace of instance {instance_id!r} would be {root}, outside the "
            f"workspaces directory {folder}",
            file=where,
            field="instance_id",
        )
    files = read_workspace_dir(root, where=where, field="spec.options.workspaces")
    return Workspace(files=files, path=str(root), image=image, layers=[str(root)])
