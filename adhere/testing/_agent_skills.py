"""Which skill an agent policy invokes, and where a skill's ``SKILL.md`` lives.

The skill is, in order: the one the user's request names (``use the X skill``,
``skill named X``, or a listed skill's name as a word or ``/name``); else the first
skill the conversation lists; else the first value of the skill tool's enum.

Skill lists are read in the shapes the CLIs use: ``<available_skills>`` blocks with
``<name>`` tags (Kilo, Qwen Code, Gemini CLI), and lines ``- name: description`` or
``name: description`` under a heading that mentions available skills (Claude Code,
Droid, Codex).

Codex offers no skill tool: it lists each skill's file (``(file: r2/x/SKILL.md)``, with
a table of roots ``- `r2` = `/abs/dir```); :func:`skill_file` finds that file so the
policy can read it instead, as Codex's own models do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from adhere.core import ToolSpec
from adhere.wire import Conversation

__all__ = ["choose_skill", "listed_skills", "skill_file"]

_NAME = r"[\w.:-]*\w"
_REQUESTED = (
    re.compile(rf"\bthe\s+[`'\"]?({_NAME})[`'\"]?\s+skill\b", re.IGNORECASE),
    re.compile(rf"\bskill\s+(?:named|called)\s+[`'\"]?({_NAME})", re.IGNORECASE),
    re.compile(
        rf"\b(?:use|invoke|activate|load|run)\s+(?:the\s+)?skill\s+[`'\"]?({_NAME})",
        re.IGNORECASE,
    ),
)
_BLOCK = re.compile(r"<available_skills>(.*?)</available_skills>", re.DOTALL)
_TAG = re.compile(rf"<name>\s*({_NAME})\s*</name>")
_HEADING = re.compile(r"\bavailable\b.*\bskills?\b|\bskills?\b.*\bavailable\b", re.IGNORECASE)
_ITEM = re.compile(rf"^\s*(?:[-*]\s+)?`?({_NAME})`?:\s+\S")
_ROOT = re.compile(r"^\s*-\s*`(r\d+)`\s*=\s*`([^`]+)`", re.MULTILINE)


def choose_skill(conversation: Conversation, request: str, tools: Iterable[ToolSpec]) -> str | None:
    """The skill to invoke for ``request`` (see the module docstring), or ``None``."""
    for pattern in _REQUESTED:
        match = pattern.search(request)
        if match:
            return match.group(1)
    texts = [conversation.system, *(message.content for message in conversation.messages)]
    tool_list = list(tools)
    known = [name for text in texts for name in listed_skills(text)]
    known += [name for tool in tool_list for name in _enum_names(tool)]
    known += [name for tool in tool_list for name in listed_skills(tool.description)]
    for name in known:
        if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", request):
            return name
    return known[0] if known else None


def listed_skills(text: str) -> list[str]:
    """Skill names listed in ``text``, in order of appearance."""
    found: list[tuple[int, str]] = []
    for block in _BLOCK.finditer(text):
        found.extend((block.start() + m.start(), m.group(1)) for m in _TAG.finditer(block.group(1)))
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    index = 0
    while index < len(lines):
        heading = _HEADING.search(lines[index]) and not _ITEM.match(lines[index])
        index += 1
        if not heading:
            continue
        while index < len(lines) and not lines[index].strip():
            index += 1
        while index < len(lines) and (item := _ITEM.match(lines[index])):
            found.append((offsets[index], item.group(1)))
            index += 1
    names: list[str] = []
    for _, name in sorted(found, key=lambda pair: pair[0]):
        if name not in names:
            names.append(name)
    return names


def skill_file(conversation: Conversation, name: str) -> str | None:
    """The path of skill ``name``'s ``SKILL.md`` as the conversation gives it, if it does."""
    pattern = re.compile(rf"((?:[\w.~-]*/)*{re.escape(name)}/SKILL\.md)")
    for text in [conversation.system, *(message.content for message in conversation.messages)]:
        for match in pattern.finditer(text):
            path = match.group(1)
            root, _, rest = path.partition("/")
            roots = dict(_ROOT.findall(text))
            if root in roots:
                return f"{roots[root].rstrip('/')}/{rest}"
            if path.startswith("/"):
                return path
    return None


def _enum_names(tool: ToolSpec) -> list[str]:
    """Skill names a skill tool lists as the enum of a parameter."""
    if "skill" not in tool.name.lower():
        return []
    properties = tool.parameters.get("properties")
    names: list[str] = []
    for spec in (properties or {}).values() if isinstance(properties, dict) else ():
        if isinstance(spec, dict) and isinstance(spec.get("enum"), list):
            names.extend(str(value) for value in spec["enum"])
    return names
