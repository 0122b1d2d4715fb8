"""The tools of the ``reference`` agent: Read, Write, Edit, Bash and Skill.

Every path is confined to the work directory: relative paths are taken from it,
absolute ones must lie inside it, and symbolic links are resolved before the check,
so no tool reads or writes outside the workspace. Bash runs each command as a
separate ``/bin/bash -c`` process in the work directory, in its own process group,
with a minimal environment and a timeout — never ``exec``/``eval`` in this process.
A tool's failure is returned to the model as text starting with ``Error:``; it does
not end the trial.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from adhere.core import ToolSpec
from adhere.scaffolds._env import base_env, search_path
from adhere.scaffolds._process import run_process

LOG_DIR = ".adhere"
"""Directory in the Bash tool's HOME holding each command's stdout and stderr (hidden
from the commands in the sandbox)."""

__all__ = ["SKILL_DIRS", "ToolError", "Toolbox", "confine", "edit_text", "list_skills"]

SKILL_DIRS = (Path(".claude") / "skills", Path("skills"))
"""Where skills live in a workspace, searched in this order: ``<dir>/<name>/SKILL.md``."""

MAX_READ_CHARS = 200_000
MAX_OUTPUT_CHARS = 30_000
_SKILL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


class ToolError(Exception):
    """A tool call that cannot be carried out; its message goes back to the model."""


def confine(workdir: Path, path: str) -> Path:
    """The absolute path ``path`` names inside ``workdir``.

    Raises:
        ToolError: The path is empty or lies outside the work directory (after
            resolving ``..`` and symbolic links).
    """
    if not path or not path.strip():
        raise ToolError("a file path is required")
    root = workdir.resolve()
    candidate = Path(path)
    if not candidate.is_absolute():
        candidate = root / candidate
    resolved = candidate.resolve()
    if resolved != root and not resolved.is_relative_to(root):
        raise ToolError(f"{path} is outside the workspace ({root})")
    return resolved


def edit_text(text: str, old: str, new: str, *, replace_all: bool = False) -> tuple[str, int]:
    """Replace ``old`` with ``new`` in ``text``; return the new text and the count.

    Raises:
        ToolError: ``old`` is empty, equals ``new``, does not occur, or occurs more
            than once without ``replace_all``.
    """
    if not old:
        raise ToolError("old_string must not be empty")
    if old == new:
        raise ToolError("old_string and new_string are the same")
    count = text.count(old)
    if count == 0:
        raise ToolError("old_string was not found in the file")
    if count > 1 and not replace_all:
        raise ToolError(f"old_string occurs {count} times; give more context or set replace_all")
    if replace_all:
        return text.replace(old, new), count
    return text.replace(old, new, 1), 1


def list_skills(workdir: Path) -> dict[str, Path]:
    """The workspace's skills by name, each with its ``SKILL.md`` (first directory wins)."""
    skills: dict[str, Path] = {}
    for directory in SKILL_DIRS:
        base = workdir / directory
        if not base.is_dir():
            continue
        for entry in sorted(base.iterdir()):
            skill_file = entry / "SKILL.md"
            if entry.name not in skills and skill_file.is_file():
                skills[entry.name] = skill_file
    return skills


def _spec(name: str, description: str, properties: dict[str, Any], required: list[str]) -> ToolSpec:
    return ToolSpec(
        name=name,
        description=description,
        parameters={"type": "object", "properties": properties, "required": required},
    )


TOOL_SPECS = (
    _spec(
        "Read",
        "Read a text file of the workspace. Optional offset (first line, 1-based) and limit "
        "(number of lines).",
        {
            "file_path": {"type": "string", "description": "Path, relative to the workspace."},
            "offset": {"type": "integer", "minimum": 1},
            "limit": {"type": "integer", "minimum": 1},
        },
        ["file_path"],
    ),
    _spec(
        "Write",
        "Create or overwrite a file of the workspace with the given content.",
        {"file_path": {"type": "string"}, "content": {"type": "string"}},
        ["file_path", "content"],
    ),
    _spec(
        "Edit",
        "Replace old_string with new_string in a file. old_string must occur exactly once "
        "unless replace_all is true.",
        {
            "file_path": {"type": "string"},
            "old_string": {"type": "string"},
            "new_string": {"type": "string"},
            "replace_all": {"type": "boolean"},
        },
        ["file_path", "old_string", "new_string"],
    ),
    _spec(
        "Bash",
        "Run a shell command in the workspace directory and return its exit code and output.",
        {
            "command": {"type": "string"},
            "timeout": {"type": "number", "description": "Seconds; capped by the agent."},
        },
        ["command"],
    ),
    _spec(
        "Skill",
        "Load a skill of the workspace by name and return its SKILL.md instructions.",
        {"name": {"type": "string"}},
        ["name"],
    ),
)


class Toolbox:
    """The reference agent's tools, bound to one work directory.

    Args:
        workdir: The trial's workspace; every path is confined to it.
        home: HOME (and scratch space) of the Bash tool's processes.
        bash_timeout: Longest a Bash command may run, in seconds.
        env: Extra variables for Bash commands (nothing comes from the runner).
        wrap: Turns a Bash command's argument vector into the one that runs it (the
            agent sandbox's); ``None`` runs it as it is (``sandbox: off``).
        watch: Checked while a command runs; a reason stops it (the sandbox's disk
            watch).
    """

    def __init__(
        self,
        workdir: Path,
        home: Path,
        *,
        bash_timeout: float = 120.0,
        env: Mapping[str, str] | None = None,
        wrap: Callable[[Sequence[str]], list[str]] | None = None,
        watch: Callable[[], Awaitable[str | None]] | None = None,
    ) -> None:
        self.workdir = workdir.resolve()
        self.home = home
        self.bash_timeout = bash_timeout
        self.env = dict(env or {})
        self.wrap = wrap
        self.watch = watch
        self._runs = 0

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        """The tools offered to the model."""
        return TOOL_SPECS

    async def call(self, name: str, arguments: Mapping[str, Any], *, budget: float) -> str:
        """Run one tool call; failures come back as ``Error: …`` text.

        Args:
            name: Tool name.
            arguments: Decoded JSON arguments.
            budget: Seconds left in the trial (caps the Bash timeout).
        """
        try:
            if name == "Read":
                return self.read(_text(arguments, "file_path"), arguments)
            if name == "Write":
                return self.write(_text(arguments, "file_path"), _text(arguments, "content"))
            if name == "Edit":
                return self.edit(
                    _text(arguments, "file_path"),
                    _text(arguments, "old_string"),
                    _text(arguments, "new_string"),
                    replace_all=bool(arguments.get("replace_all", False)),
                )
            if name == "Bash":
                return await self.bash(_text(arguments, "command"), arguments, budget)
            if name == "Skill":
                return self.skill(_text(arguments, "name"))
            raise ToolError(f"unknown tool {name!r}; the tools are Read, Write, Edit, Bash, Skill")
        except ToolError as exc:
            return f"Error: {exc}"

    def read(self, file_path: str, arguments: Mapping[str, Any]) -> str:
        """A file's text, optionally a slice of its lines."""
        path = confine(self.workdir, file_path)
        if not path.is_file():
            raise ToolError(f"{file_path} does not exist or is not a file")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise ToolError(f"{file_path} is not a UTF-8 text file") from None
        offset = _positive(arguments.get("offset"), "offset")
        limit = _positive(arguments.get("limit"), "limit")
        if offset is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = (offset or 1) - 1
            end = None if limit is None else start + limit
            text = "".join(lines[start:end])
        if len(text) > MAX_READ_CHARS:
            text = text[:MAX_READ_CHARS] + f"\n[… cut at {MAX_READ_CHARS} characters]"
        return text

    def write(self, file_path: str, content: str) -> str:
        """Create or overwrite a file (and its parent directories)."""
        path = confine(self.workdir, file_path)
        if path.is_dir():
            raise ToolError(f"{file_path} is a directory")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        return f"Wrote {len(content.encode('utf-8'))} bytes to {path.relative_to(self.workdir)}"

    def edit(self, file_path: str, old: str, new: str, *, replace_all: bool = False) -> str:
        """Replace text in a file (see :func:`edit_text`)."""
        path = confine(self.workdir, file_path)
        if not path.is_file():
            raise ToolError(f"{file_path} does not exist or is not a file")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise ToolError(f"{file_path} is not a UTF-8 text file") from None
        updated, count = edit_text(text, old, new, replace_all=replace_all)
        path.write_text(updated, encoding="utf-8")
        return f"Replaced {count} occurrence(s) in {path.relative_to(self.workdir)}"

    async def bash(self, command: str, arguments: Mapping[str, Any], budget: float) -> str:
        """Run ``command`` with ``/bin/bash -c`` in the workspace; exit code and output."""
        if not command.strip():
            raise ToolError("command must not be empty")
        requested = arguments.get("timeout")
        timeout = self.bash_timeout
        if isinstance(requested, int | float) and not isinstance(requested, bool) and requested > 0:
            timeout = min(float(requested), timeout)
        timeout = min(timeout, budget)
        self.home.mkdir(parents=True, exist_ok=True)
        (self.home / "tmp").mkdir(exist_ok=True)
        self._runs += 1
        argv = ["/bin/bash", "-c", command]
        completed = await run_process(
            argv if self.wrap is None else self.wrap(argv),
            cwd=self.workdir,
            env=base_env(self.home, search_path(), self.env),
            timeout=timeout,
            log_prefix=self.home / LOG_DIR / f"bash-{self._runs}",
            watch=self.watch,
        )
        outcome = completed.outcome
        output = completed.stdout
        stderr_path = self.home / LOG_DIR / f"bash-{self._runs}.stderr"
        errors = stderr_path.read_text(encoding="utf-8", errors="replace")
        if errors:
            output = f"{output}\n[stderr]\n{errors}" if output else f"[stderr]\n{errors}"
        if len(output) > MAX_OUTPUT_CHARS:
            output = "[…]" + output[-MAX_OUTPUT_CHARS:]
        if outcome.timed_out:
            return f"Error: the command timed out after {timeout:g} s and was killed\n{output}"
        if outcome.exit_code is None:  # the watch stopped it; its reason ends stderr
            reason = outcome.stderr_tail.rstrip().rsplit("\n", 1)[-1]
            reason = reason.removeprefix("adhere: the turn was stopped: ")
            return f"Error: the command was stopped: {reason}\n{output}"
        return f"exit code: {outcome.exit_code}\n{output}"

    def skill(self, name: str) -> str:
        """The ``SKILL.md`` of the named skill."""
        if not _SKILL_NAME.fullmatch(name):
            raise ToolError(f"invalid skill name {name!r}")
        skills = list_skills(self.workdir)
        path = skills.get(name)
        if path is None:
            known = ", ".join(sorted(skills)) or "none"
            raise ToolError(f"no skill named {name!r} (available: {known})")
        confine(self.workdir, str(path))
        return path.read_text(encoding="utf-8", errors="replace")


def _text(arguments: Mapping[str, Any], key: str) -> str:
    value = arguments.get(key)
    if not isinstance(value, str):
        raise ToolError(f"argument {key!r} must be a string")
    return value


def _positive(value: Any, key: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ToolError(f"argument {key!r} must be a positive integer")
    return value
