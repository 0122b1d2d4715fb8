"""Tool calls of a trajectory and the role each plays, whatever the CLI calls its tools.

Roles, decided from a call's tool name (split into lower-case words: ``run_shell_command``
→ run, shell, command) and its arguments:

======  ===================================================================
role    recognised by
======  ===================================================================
run     ``Bash``, ``bash``, ``Execute``, ``exec_command``, ``run_shell_command``,
        ``shell``, ``terminal`` … (or a name with the word bash/shell/exec/terminal,
        not output/kill/stop/status/stdin/list) — and a ``command``/``cmd``/
        ``commands``/``script`` argument, a string or an array of strings
read    ``Read``, ``read``, ``read_file``, ``view``, ``cat`` … (or the word
        read/view, not dir/image/web/url/output/board/memory/todo) with a path
write   ``Write``, ``write``, ``write_file``, ``Create``, ``create_file`` … with a path
edit    ``Edit``, ``edit``, ``replace``, ``MultiEdit``, ``NotebookEdit``,
        ``str_replace`` … (or the word edit/replace) with a path
patch   ``apply_patch`` / ``patch``: the files named inside the patch
skill   ``Skill``, ``skill``, ``activate_skill``, ``use_skill`` …, ``SlashCommand``
search  ``Grep``, ``Glob``, ``LS``, ``grep_search``, ``list_directory``, ``find`` …
other   everything else
======  ===================================================================

An editor tool with a ``command`` argument (``str_replace_based_edit_tool``,
``str_replace_editor``) plays read for ``view``, write for ``create`` and edit
otherwise. Path arguments: ``file_path``, ``filePath``, ``path``, ``absolute_path``,
``target_file``, ``file``, ``filename``, ``notebook_path`` (and the lists ``paths``,
``file_paths``, ``files``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from adhere.core import Trajectory

__all__ = [
    "COMMAND_KEYS",
    "Call",
    "Role",
    "calls",
    "call_paths",
    "name_key",
    "patch_actions",
    "patch_paths",
    "role_of",
]

Role = Literal["run", "read", "write", "edit", "patch", "skill", "search", "other"]
ROLES: tuple[Role, ...] = ("run", "read", "write", "edit", "patch", "skill", "search", "other")

COMMAND_KEYS = ("command", "cmd", "commands", "script", "command_line", "commandLine")
_PATH_KEYS = frozenset(
    {"filepath", "path", "absolutepath", "targetfile", "file", "filename", "notebookpath"}
    | {"targetpath", "fullpath", "relativepath"}
)
_PATH_LIST_KEYS = frozenset({"paths", "filepaths", "files"})
_EXACT: dict[Role, frozenset[str]] = {
    "run": frozenset(
        {"bash", "shell", "sh", "execute", "exec", "execcommand", "runshellcommand"}
        | {"shellcommand", "runcommand", "executecommand", "terminal", "runterminalcmd"}
        | {"runinterminal", "localshell", "powershell"}
    ),
    "read": frozenset({"read", "readfile", "view", "viewfile", "cat", "openfile", "readtextfile"}),
    "write": frozenset({"write", "writefile", "create", "createfile", "writetofile", "savefile"}),
    "edit": frozenset(
        {"edit", "editfile", "replace", "replaceinfile", "strreplace", "searchreplace"}
        | {"searchandreplace", "applydiff", "multiedit", "notebookedit"}
    ),
    "patch": frozenset({"applypatch", "patch"}),
    "skill": frozenset({"skill", "useskill", "activateskill", "loadskill", "slashcommand"}),
    "search": frozenset(
        {"grep", "glob", "ls", "find", "search", "grepsearch", "globsearch", "searchfiles"}
        | {"findfiles", "listdirectory", "listdir", "listfiles", "codebasesearch", "ripgrep"}
    ),
}
_WORDS: dict[Role, frozenset[str]] = {
    "run": frozenset({"bash", "shell", "exec", "execute", "terminal"}),
    "read": frozenset({"read", "view"}),
    "write": frozenset({"write"}),
    "edit": frozenset({"edit", "replace"}),
    "skill": frozenset({"skill", "skills"}),
    "search": frozenset({"grep", "glob", "search"}),
}
_NOT: dict[Role, frozenset[str]] = {
    "run": frozenset({"output", "kill", "stop", "status", "stdin", "list", "read"}),
    "read": frozenset({"dir", "directory", "image", "web", "url", "output", "board", "memory"})
    | frozenset({"todo", "todos", "mcp", "resource", "recall", "background"}),
    "write": frozenset({"todo", "todos", "stdin", "memory", "board", "plan"}),
    "edit": frozenset({"todo", "plan", "config", "image"}),
    "skill": frozenset({"create", "creator", "install", "list"}),
    "search": frozenset({"web"}),
}
_ORDER: tuple[Role, ...] = ("patch", "skill", "run", "read", "write", "edit", "search")
_EDITORS = frozenset({"strreplacebasededittool", "strreplaceeditor", "texteditor", "editor"})
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$", re.M)
_PATCH_MOVE = re.compile(r"^\*\*\* Move to: (.+?)\s*$", re.M)
_DIFF_FILE = re.compile(r"^--- (?:a/)?(.+?)(?:\t.*)?\n\+\+\+ (?:b/)?(.+?)(?:\t.*)?$", re.M)


def _words(name: str) -> list[str]:
    return [w.lower() for w in _CAMEL.findall(name)]


def name_key(name: str) -> str:
    """A name as one lower-case word: ``run_shell_command`` and ``RunShellCommand`` alike."""
    return "".join(_words(name))


@dataclass(frozen=True)
class Call:
    """One tool call, where it was made, and the role it plays.

    Attributes:
        index: Position of the calling assistant message in its conversation.
        name: The tool's name.
        arguments: The decoded arguments.
        call_id: The call's id.
        role: The role (see the module docstring).
        subagent: Position in ``trajectory.subagents``, or ``None`` for the main one.
        order: Position among all calls listed together (main conversation first).
    """

    index: int
    name: str
    arguments: Mapping[str, Any]
    call_id: str
    role: Role
    subagent: int | None = None
    order: int = 0

    @property
    def where(self) -> str:
        """``message N`` (or ``sub-agent K, message N``) for reasoning texts."""
        if self.subagent is None:
            return f"message {self.index}"
        return f"sub-agent {self.subagent}, message {self.index}"

    @property
    def evidence(self) -> int | None:
        """The message index to cite: only calls of the main conversation have one."""
        return self.index if self.subagent is None else None


def role_of(name: str, arguments: Mapping[str, Any]) -> Role:
    """The role a call of tool ``name`` with ``arguments`` plays."""
    key, words = name_key(name), set(_words(name))
    keys = {name_key(k) for k in arguments}
    has_path = bool(keys & (_PATH_KEYS | _PATH_LIST_KEYS))
    has_command = any(
        isinstance(arguments.get(k), str | list) for k in COMMAND_KEYS if k in arguments
    )
    if key in _EDITORS or ("editor" in words and "command" in keys and has_path):
        command = str(arguments.get("command", "")).lower()
        return "read" if command == "view" else "write" if command == "create" else "edit"
    for role in _ORDER:
        exact = key in _EXACT[role]
        worded = bool(words & _WORDS.get(role, frozenset())) and not words & _NOT.get(
            role, frozenset()
        )
        if not (exact or worded):
            continue
        if role == "run" and not has_command:
            continue
        if role in ("read", "write", "edit") and not has_path:
            continue
        if role == "write" and not exact and not {"file", "files"} & words:
            continue
        return role
    if {"process", "background"} & words and has_command and "command" in keys:
        return "run"  # e.g. Kilo's background_process(action=start, command=…)
    return "other"


def calls(trajectory: Trajectory, *, subagents: bool = False) -> list[Call]:
    """Every tool call in order (main conversation first, then each sub-agent's)."""
    found = list(_calls_of(trajectory, None))
    if subagents:
        for n, sub in enumerate(trajectory.subagents):
            found.extend(_calls_of(sub, n))
    return [replace(call, order=order) for order, call in enumerate(found)]


def _calls_of(trajectory: Trajectory, subagent: int | None) -> Iterator[Call]:
    for index, message in enumerate(trajectory.messages):
        if message.role != "assistant":
            continue
        for call in message.tool_calls:
            role = role_of(call.name, call.arguments)
            yield Call(index, call.name, call.arguments, call.id, role, subagent)


def call_paths(call: Call) -> list[str]:
    """The file paths a call names in its path arguments, or inside its patch."""
    if call.role == "patch":
        text = "\n".join(v for v in call.arguments.values() if isinstance(v, str))
        return patch_paths(text)
    found: list[str] = []
    for key, value in call.arguments.items():
        normal = name_key(key)
        if normal in _PATH_KEYS and isinstance(value, str) and value.strip():
            found.append(value)
        elif normal in _PATH_LIST_KEYS and isinstance(value, list):
            found.extend(v for v in value if isinstance(v, str) and v.strip())
    return found


def patch_paths(text: str) -> list[str]:
    """Files an ``apply_patch`` envelope or a unified diff adds, changes or moves to."""
    return list(dict.fromkeys(path for _, path in patch_actions(text)))


PatchKind = Literal["write", "edit", "delete"]


def patch_actions(text: str) -> list[tuple[PatchKind, str]]:
    """``(kind, path)`` for each file a patch touches: it adds, changes or deletes it."""
    kinds: dict[str, PatchKind] = {"Add": "write", "Update": "edit", "Delete": "delete"}
    found: list[tuple[PatchKind, str]] = []
    for match in _PATCH_FILE.finditer(text):
        found.append((kinds[match.group(1)], match.group(2)))
    found.extend(("write", path) for path in _PATCH_MOVE.findall(text))
    if found:
        return found
    for match in _DIFF_FILE.finditer(text):
        old, new = match.group(1), match.group(2)
        if new == "/dev/null":
            found.append(("delete", old))
        else:
            found.append(("write" if old == "/dev/null" else "edit", new))
    return found
