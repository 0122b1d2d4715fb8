"""A trial's scratch space: its own copy of the workspace and a throwaway HOME."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path, PurePosixPath

from adhere.core import Instance
from adhere.errors import SpecError
from adhere.observe import REDACTED, Redactor

KEEP_ENV = "ADHERE_KEEP_WORK"
"""Set to 1 to keep trial scratch directories after the trial (for debugging); the kept
files are redacted first (:func:`redact_tree`)."""
IN_PLACE_ENV = "ADHERE_WORKSPACE_DIR"
"""Set by a cluster pod that runs in its instance's image: the workspace is already
there, at this directory (the instance's ``workspace_abs_path``), and the trial runs
in it as it is instead of a copy."""


def in_place_workspace() -> Path | None:
    """The directory ``$ADHERE_WORKSPACE_DIR`` names, if set (see :data:`IN_PLACE_ENV`)."""
    value = os.environ.get(IN_PLACE_ENV, "").strip()
    return Path(value) if value else None


def default_work_root() -> Path:
    """Where trial scratch directories go: ``$ADHERE_WORK_DIR`` or ``~/.cache/adhere/work``.

    Not the system temp directory: some CLIs refuse to keep their home there, and it
    can be a slow file system.
    """
    root = os.environ.get("ADHERE_WORK_DIR")
    return Path(root) if root else Path.home() / ".cache" / "adhere" / "work"


def write_files(root: Path, files: Mapping[str, str]) -> None:
    """Write workspace files under ``root``, refusing paths that escape it."""
    for rel, content in files.items():
        pure = PurePosixPath(rel)
        if pure.is_absolute() or ".." in pure.parts:
            raise SpecError(
                f"workspace path {rel!r} escapes the workspace", field="workspace.files"
            )
        target = root.joinpath(*pure.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")


def layered(instance: Instance) -> bool:
    """Whether the trial copies the instance's workspace directories (all still there).

    A directory that is gone (e.g. a cluster pod, which has the stored text files
    only) means the workspace is written from ``files`` instead.
    """
    layers = instance.workspace.layers
    return bool(layers) and all(Path(layer).is_dir() for layer in layers)


def copy_layer(source: Path, target: Path) -> None:
    """Copy directory ``source`` over ``target``: files with their modes, links as links.

    Nothing is followed: a symbolic link is recreated as the same link, and a link an
    earlier layer left where this layer has a file or directory is replaced, never
    written through.
    """
    for current, dirs, names in os.walk(source, followlinks=False):
        here = Path(current)
        out = target / here.relative_to(source)
        for name in sorted(dirs):
            if (here / name).is_symlink():
                _place_link(here / name, out / name)
            else:
                _clear(out / name, keep_dir=True)
                (out / name).mkdir(exist_ok=True)
        dirs[:] = sorted(d for d in dirs if not (here / d).is_symlink())
        for name in sorted(names):
            src, dst = here / name, out / name
            if src.is_symlink():
                _place_link(src, dst)
            else:
                _clear(dst, keep_dir=False)
                shutil.copy2(src, dst, follow_symlinks=False)


def copy_workspace(source: Path, target: Path) -> int:
    """Copy an instance image's workspace directory into the (empty) directory ``target``.

    What ``adhere trial copy-workspace`` does in a cluster pod's init container (the
    instance's image, its workspace copied into the volume the trial then works in):
    files with their modes, links as links (never followed), ``.git`` included.
    Returns how many entries were copied.

    Raises:
        SpecError: ``source`` is not a directory, or ``target`` does not exist.
    """
    if not source.is_dir():
        raise SpecError(
            f"the instance image has no directory {source}: its workspace_abs_path must be a "
            "directory of the image",
            field="workspace_abs_path",
        )
    if not target.is_dir():
        raise SpecError(f"the target directory {target} does not exist", field="--to")
    copy_layer(source, target)
    return sum(len(dirs) + len(names) for _, dirs, names in os.walk(target))


def _clear(path: Path, *, keep_dir: bool) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir() and not keep_dir:
        shutil.rmtree(path)


def _place_link(src: Path, dst: Path) -> None:
    _clear(dst, keep_dir=False)
    os.symlink(os.readlink(src), dst)


def redact_tree(root: Path, redactor: Redactor) -> list[Path]:
    """Redact every regular file under ``root`` in place; the files it changed.

    A UTF-8 file gets :meth:`Redactor.text` (known secrets and key-shaped tokens);
    any other file has the bytes of each known secret replaced. Links are not followed.
    """
    changed: list[Path] = []
    needles = [secret.encode("utf-8") for secret in redactor.secrets]
    for current, _dirs, names in os.walk(root, followlinks=False):
        for name in names:
            path = Path(current) / name
            if path.is_symlink() or not path.is_file():
                continue
            try:
                data = path.read_bytes()
                try:
                    cleaned = redactor.text(data.decode("utf-8")).encode("utf-8")
                except UnicodeDecodeError:
                    cleaned = data
                    for needle in needles:
                        cleaned = cleaned.replace(needle, REDACTED.encode("utf-8"))
                if cleaned != data:
                    path.write_bytes(cleaned)
                    changed.append(path)
            except OSError:
                continue
    return changed


@asynccontextmanager
async def trial_workspace(
    root: Path,
    trial_id: str,
    instance: Instance,
    redactor: Redactor | None = None,
    *,
    in_place: Path | None = None,
) -> AsyncIterator[tuple[Path, Path]]:
    """Create ``<root>/<trial>/{work,home}`` with the instance's workspace; remove it afterwards.

    With ``ADHERE_KEEP_WORK=1`` it is kept instead, with every file passed through
    :func:`redact_tree` (``redactor``, else one that removes key-shaped tokens only),
    so no live key stays in a kept copy.

    The workspace's directories are copied as they are (:func:`copy_layer`), else its
    files written. A local run refuses instances whose workspace is only an image when
    it plans (``runner._plan.image_only_problem``); a trial that gets here with one
    anyway (a cluster pod not running in the instance's image) fails with a clear
    message.

    ``in_place``: the workspace is this existing directory (a cluster pod running in
    the instance's image, see :data:`IN_PLACE_ENV`); it is used as it is and kept, and
    only the HOME is created (and removed).
    """
    if in_place is not None:
        if not in_place.is_dir():
            raise SpecError(
                f"the workspace directory {in_place} (${IN_PLACE_ENV}) does not exist",
                field="workspace",
            )
        home = root / trial_id / "home"
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        try:
            yield in_place, home
        finally:
            if os.environ.get(KEEP_ENV) != "1":
                shutil.rmtree(root / trial_id, ignore_errors=True)
            else:
                redact_tree(root / trial_id, redactor or Redactor())
        return
    if instance.workspace.image_only:
        raise SpecError(
            f"instance {instance.id!r} gives its workspace only as an image "
            f"({instance.workspace.image}); this trial has no files to start from",
            field="workspace",
        )
    base = root / trial_id
    shutil.rmtree(base, ignore_errors=True)
    work, home = base / "work", base / "home"
    work.mkdir(parents=True)
    home.mkdir(parents=True)
    if layered(instance):
        for layer in instance.workspace.layers:
            copy_layer(Path(layer), work)
    else:
        write_files(work, instance.workspace.files)
    try:
        yield work, home
    finally:
        if os.environ.get(KEEP_ENV) != "1":
            shutil.rmtree(base, ignore_errors=True)
        else:
            redact_tree(base, redactor or Redactor())


def changed_files(
    before: Mapping[str, str], after: Mapping[str, str]
) -> tuple[dict[str, str], list[str]]:
    """Files created or modified by the trial, and files it deleted."""
    changed = {k: v for k, v in after.items() if before.get(k) != v}
    deleted = sorted(k for k in before if k not in after)
    return changed, deleted
