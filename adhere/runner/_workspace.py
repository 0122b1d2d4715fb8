"""A trial's scratch space: its own copy of the workspace and a throwaway HOME."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path, PurePosixPath

from adhere.core import Instance
from adhere.errors import SpecError

KEEP_ENV = "ADHERE_KEEP_WORK"
"""Set to 1 to keep trial scratch directories after the trial (for debugging)."""


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


@asynccontextmanager
async def trial_workspace(
    root: Path, trial_id: str, instance: Instance
) -> AsyncIterator[tuple[Path, Path]]:
    """Create ``<root>/<trial>/{work,home}`` with the instance's files; remove it afterwards."""
    if not instance.workspace.files and instance.workspace.image and not instance.workspace.path:
        raise SpecError(
            f"instance {instance.id!r} gives its workspace only as an image "
            f"({instance.workspace.image}); local runs need files: give a workspace directory "
            "(e.g. the Benchmark option 'workspaces')",
            field="workspace",
        )
    base = root / trial_id
    shutil.rmtree(base, ignore_errors=True)
    work, home = base / "work", base / "home"
    work.mkdir(parents=True)
    home.mkdir(parents=True)
    write_files(work, instance.workspace.files)
    try:
        yield work, home
    finally:
        if os.environ.get(KEEP_ENV) != "1":
            shutil.rmtree(base, ignore_errors=True)


def changed_files(
    before: Mapping[str, str], after: Mapping[str, str]
) -> tuple[dict[str, str], list[str]]:
    """Files created or modified by the trial, and files it deleted."""
    changed = {k: v for k, v in after.items() if before.get(k) != v}
    deleted = sorted(k for k in before if k not in after)
    return changed, deleted
