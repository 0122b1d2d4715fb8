"""A VeriCode base task: a coding problem with unit tests (and, when known, a solution)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Task", "TaskTests", "derive_tags", "safe_id"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_FILES = re.compile(r"\b(files?|director(y|ies)|folders?|paths?|csv|json file)\b", re.I)
_ERRORS = re.compile(r"\b(raises?|exceptions?|errors?|invalid)\b", re.I)
_FILE_LIBS = {"os", "pathlib", "shutil", "glob", "csv", "io", "tempfile"}


class TaskTests(BaseModel):
    """How a solution is tested (run in the sandbox, never in process).

    ``asserts``: ``code`` holds test statements run after the solution (``setup``
    first); ``unittest``: ``code`` is a unittest module that sees the solution's names;
    ``io``: ``cases`` of (stdin, expected stdout). ``files`` are written into the
    run's working directory.
    """

    model_config = ConfigDict(extra="forbid")

    mode: Literal["asserts", "unittest", "io"]
    code: str = ""
    setup: str = ""
    cases: list[tuple[str, str]] = Field(default_factory=list)
    files: dict[str, str] = Field(default_factory=dict)
    timeout: float = Field(default=10.0, gt=0)


class Task(BaseModel):
    """One base task.

    Attributes:
        id: Unique, safe for file names.
        prompt: The task as the model sees it.
        entry_point: The function the tests call (``main`` for programs).
        kind: ``function`` or ``program`` (reads stdin, writes stdout).
        tests: The unit tests.
        solution: A reference solution (``None`` when the source has none).
        mutation: ``(old, new)``: replacing ``old`` by ``new`` in the solution breaks
            it (used by the noisy test double); ``None`` falls back to renaming the
            entry point.
        tags: What the task involves (``files``, ``errors``, ``pandas``): decides which
            instructions are relevant to it.
        libs: Libraries the task uses (BigCodeBench's ``libs``).
        source: ``adhere`` (written by this project), ``bigcodebench``, ``livecodebench``
            or ``native`` (a user's file in this format).
    """

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    prompt: str = Field(min_length=1)
    entry_point: str = ""
    kind: Literal["function", "program"] = "function"
    tests: TaskTests
    solution: str | None = None
    mutation: tuple[str, str] | None = None
    tags: list[str] = Field(default_factory=list)
    libs: list[str] = Field(default_factory=list)
    source: str = "native"


def safe_id(raw: str) -> str:
    """``BigCodeBench/12`` → ``BigCodeBench-12``: ids usable as file names."""
    return _UNSAFE.sub("-", raw).strip("-") or "task"


def derive_tags(prompt: str, libs: list[str] | tuple[str, ...] = (), code: str = "") -> list[str]:
    """Tags of a task from its text, libraries and code (for tasks that carry none)."""
    tags = []
    text = f"{prompt}\n{code}"
    if "pandas" in libs or "import pandas" in text or "DataFrame" in text:
        tags.append("pandas")
    if _FILE_LIBS & set(libs) or _FILES.search(prompt):
        tags.append("files")
    if _ERRORS.search(prompt):
        tags.append("errors")
    return tags
