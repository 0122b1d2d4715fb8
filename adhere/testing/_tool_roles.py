"""Finding the tool that plays a role (read, write, edit, run, skill, patch) among those offered.

Agent CLIs send their own tools with every request, each named and shaped its own
way. A tool plays a role when both its name and its parameters fit:

======  =====================================================  ===========================
role    name (normalised: lower-case, no ``_``/``-``)           parameters it must have
======  =====================================================  ===========================
read    ``read``, ``read_file``, ``view``, ``cat``, …; or a     a path; no content, old/new
        name with the word *read*/*view* (not *many*, *dir*,    text or command
        *image*, *web*, *output*, *notebook*, …)
write   ``write``, ``write_file``, ``create``, ``create_file``  a path and a content
        …; or *write* / *create* + *file*
edit    ``edit``, ``edit_file``, ``replace``, ``str_replace``,  a path, an old and a new text
        …; or the word *edit* / *replace* (not *notebook*,
        *multi*)
run     ``bash``, ``shell``, ``run_shell_command``,             a command (string, or array
        ``execute``, ``exec_command``, …; or *bash*, *shell*,   of strings)
        *exec*, *terminal* (not *output*, *kill*,
        *background*, *stdin*, …)
skill   ``skill``, ``activate_skill``, ``use_skill``, …; or     a skill name
        the word *skill*
patch   ``apply_patch`` / ``patch``                             free-form (a Responses
                                                                ``custom`` tool) or one
                                                                string ``input``/``patch``
======  =====================================================  ===========================

Parameter names are normalised the same way and looked up in fixed lists: a path is
``file_path`` / ``filePath`` / ``path`` / ``absolute_path`` / ``target_file`` / …; a
content ``content`` / ``file_text`` / ``text`` / …; an old text ``old_string`` /
``old_str`` / ``oldString`` / ``old_text`` / …; a new text likewise; a command
``command`` / ``cmd`` / ``commands`` / ``script``; a skill ``skill`` / ``skill_name`` /
``name``. An exact name beats a word match; among equals the tool offered first wins.

:func:`build_arguments` fills those parameters, then every other *required* one from
its schema: its ``default``, else the first ``enum`` value, else by type (``false``,
the minimum or 0, ``[]``, ``{}``), and strings by name (a working directory for
``workdir``/``dir_path``/…, else a short capitalised phrase such as ``Read the
requested file``, which also satisfies description and summary fields).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from adhere.core import ToolSpec
from adhere.wire import is_freeform

__all__ = ["ROLES", "Role", "RoleTool", "build_arguments", "match_roles"]

Role = Literal["read", "write", "edit", "run", "skill", "patch"]
ROLES: tuple[Role, ...] = ("read", "write", "edit", "run", "skill", "patch")

_EXACT: dict[Role, frozenset[str]] = {
    "read": frozenset({"read", "readfile", "view", "viewfile", "cat", "openfile", "readtextfile"}),
    "write": frozenset({"write", "writefile", "create", "createfile", "writetofile", "savefile"}),
    "edit": frozenset(
        {
            "edit",
            "editfile",
            "replace",
            "replaceinfile",
            "strreplace",
            "strreplaceeditor",
            "strreplacebasededittool",
            "searchreplace",
            "searchandreplace",
            "applydiff",
        }
    ),
    "run": frozenset(
        {
            "bash",
            "shell",
            "sh",
            "runshellcommand",
            "shellcommand",
            "execute",
            "executecommand",
            "exec",
            "execcommand",
            "runcommand",
            "runterminalcmd",
            "runinterminal",
            "terminal",
            "localshell",
        }
    ),
    "skill": frozenset({"skill", "useskill", "activateskill", "loadskill", "invokeskill"}),
    "patch": frozenset({"applypatch", "patch"}),
}
_WORDS: dict[Role, frozenset[str]] = {
    "read": frozenset({"read", "view"}),
    "write": frozenset({"write"}),
    "edit": frozenset({"edit", "replace"}),
    "run": frozenset({"bash", "shell", "exec", "execute", "terminal"}),
    "skill": frozenset({"skill", "skills"}),
    "patch": frozenset(),
}
_NOT: dict[Role, frozenset[str]] = {
    "read": frozenset(
        {"many", "multiple", "dir", "directory", "image", "notebook", "url", "web", "output"}
        | {"background", "mcp", "resource", "board", "recall", "memory", "todo", "todos"}
    ),
    "write": frozenset({"todo", "todos", "stdin", "memory", "board", "notebook", "plan"}),
    "edit": frozenset({"notebook", "multi", "todo", "plan", "config", "image"}),
    "run": frozenset({"output", "kill", "background", "stop", "status", "stdin", "list"}),
    "skill": frozenset({"create", "creator", "install", "list"}),
    "patch": frozenset(),
}
_SLOT_NAMES: dict[str, tuple[str, ...]] = {
    "path": (
        "filepath",
        "absolutepath",
        "path",
        "targetfile",
        "file",
        "filename",
        "targetpath",
        "fullpath",
    ),
    "content": ("content", "contents", "filetext", "text", "newcontent", "data"),
    "old": ("oldstring", "oldstr", "oldtext", "old", "search", "searchtext", "find"),
    "new": ("newstring", "newstr", "newtext", "new", "replacement", "replacetext", "replace"),
    "command": ("command", "cmd", "commands", "script", "commandline", "shellcommand"),
    "skill": ("skill", "skillname", "name", "skillid", "command"),
    "input": ("input", "patch", "patchtext", "diff"),
}
_NEEDS: dict[Role, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # role: (slots it must have, slots it must not have)
    "read": (("path",), ("content", "old", "new", "command")),
    "write": (("path", "content"), ("old", "new")),
    "edit": (("path", "old", "new"), ()),
    "run": (("command",), ()),
    "skill": (("skill",), ()),
    "patch": (("input",), ()),
}
_PHRASES: dict[Role, str] = {
    "read": "Read the requested file",
    "write": "Write the requested file",
    "edit": "Edit the requested file",
    "run": "Run the requested command",
    "skill": "Use the requested skill",
    "patch": "Apply the requested patch",
}
_DIRECTORY_PARAMS = frozenset({"workdir", "directory", "dirpath", "cwd", "dir", "workingdirectory"})
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


@dataclass(frozen=True)
class RoleTool:
    """The tool chosen for a role and which of its parameters carry what.

    Attributes:
        role: The role it plays.
        tool: The tool as offered.
        slots: Parameter names by slot (``path``, ``content``, ``old``, ``new``,
            ``command``, ``skill``, ``input``).
        freeform: Whether the tool is free-form (its one string is ``input``).
    """

    role: Role
    tool: ToolSpec
    slots: Mapping[str, str]
    freeform: bool = False


def words(name: str) -> list[str]:
    """A tool or parameter name as lower-case words (``run_shell_command``, ``ReadFile``)."""
    return [word.lower() for word in _CAMEL.findall(name)]


def _key(name: str) -> str:
    return "".join(words(name))


def match_roles(tools: Iterable[ToolSpec]) -> dict[Role, RoleTool]:
    """The best tool for each role that some offered tool plays."""
    best: dict[Role, tuple[int, RoleTool]] = {}
    for tool in tools:
        for role in ROLES:
            found = _fit(role, tool)
            if found is not None and found[0] > best.get(role, (0, found[1]))[0]:
                best[role] = found
    return {role: found for role, (_, found) in best.items()}


def _fit(role: Role, tool: ToolSpec) -> tuple[int, RoleTool] | None:
    """``(score, RoleTool)`` when ``tool`` plays ``role``: 2 for an exact name, 1 for words."""
    key, parts = _key(tool.name), set(words(tool.name))
    if key in _EXACT[role]:
        score = 2
    elif parts & _WORDS[role] and not parts & _NOT[role]:
        score = 1
    else:
        return None
    if role == "write" and score == 1 and not {"file", "files"} & parts:
        return None
    freeform = is_freeform(tool)
    if freeform:
        if role != "patch":
            return None
        return score, RoleTool(role, tool, {"input": "input"}, freeform=True)
    slots = _slots(tool.parameters)
    needed, refused = _NEEDS[role]
    if any(slot not in slots for slot in needed) or any(slot in slots for slot in refused):
        return None
    return score, RoleTool(role, tool, {slot: slots[slot] for slot in needed})


def _slots(schema: Mapping[str, Any]) -> dict[str, str]:
    """Which parameter of a schema fills each slot (first listed name wins)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return {}
    by_key: dict[str, str] = {}
    for name, spec in properties.items():
        if isinstance(name, str) and _usable(spec):
            by_key.setdefault(_key(name), name)
    slots: dict[str, str] = {}
    taken: set[str] = set()
    for slot in ("path", "old", "new", "content", "command", "skill", "input"):
        for candidate in _SLOT_NAMES[slot]:
            name = by_key.get(candidate)
            if name is not None and name not in taken:
                slots[slot] = name
                taken.add(name)
                break
    return slots


def _usable(spec: Any) -> bool:
    """A parameter that can take a string (or, for commands, an array of strings)."""
    kinds = _types(spec)
    return not kinds or bool(kinds & {"string", "array"})


def _types(spec: Any) -> set[str]:
    if not isinstance(spec, dict):
        return set()
    kind = spec.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {item for item in kind if isinstance(item, str)}
    for union in ("anyOf", "oneOf"):
        if isinstance(spec.get(union), list):
            return set().union(*(_types(branch) for branch in spec[union]))
    return set()


def build_arguments(
    found: RoleTool, values: Mapping[str, str], *, directory: str | None = None
) -> dict[str, Any]:
    """Arguments for a call of ``found.tool``: the slot values, then required fillers.

    Args:
        found: The tool and its slots.
        values: Text for each slot (``path``, ``command``, …); slots without a value
            are filled like other required parameters.
        directory: The working directory, for required directory parameters.
    """
    if found.freeform:
        return {"input": values.get("input", "")}
    schema = found.tool.parameters
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    arguments: dict[str, Any] = {}
    for slot, name in found.slots.items():
        if slot in values:
            arguments[name] = _as_type(values[slot], properties.get(name), slot)
    required = schema.get("required")
    for name in required if isinstance(required, list) else []:
        if isinstance(name, str) and name not in arguments:
            arguments[name] = _filler(name, properties.get(name), found.role, directory)
    return arguments


def _as_type(value: str, spec: Any, slot: str) -> Any:
    """A slot's text as the parameter's type: commands may be arrays of strings."""
    kinds = _types(spec)
    if "array" in kinds and "string" not in kinds:
        return ["bash", "-lc", value] if slot == "command" else [value]
    return value


def _filler(name: str, spec: Any, role: Role, directory: str | None) -> Any:
    """A plausible value for a required parameter the role does not care about."""
    spec = spec if isinstance(spec, dict) else {}
    if "default" in spec:
        return spec["default"]
    if isinstance(spec.get("enum"), list) and spec["enum"]:
        return spec["enum"][0]
    if "const" in spec:
        return spec["const"]
    kinds = _types(spec) - {"null"}
    kind = sorted(kinds)[0] if kinds else "string"
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        low = spec.get("minimum", spec.get("exclusiveMinimum", -1) + 1)
        return low if isinstance(low, int | float) else 0
    if kind == "array":
        return []
    if kind == "object":
        return {}
    if _key(name) in _DIRECTORY_PARAMS:
        return directory or "."
    return _PHRASES[role]
