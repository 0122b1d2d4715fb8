"""The checklist categories of generated checklists: names, sources, id prefixes, order.

A generated checklist uses the published OctoBench category names, in this order (the
order of the file and of the ids)::

    name             source          id prefix   e.g.
    SP               SP              SP          SP-01
    System reminder  SystemReminder  SR          SR-01
    User query       UserQuery       UQ          UQ-01
    Agents.md        AgentsMd        AM          AM-01   (CLAUDE.md, AGENTS.md)
    Skill.md         SkillMd         SK          SK-01
    Memory           Memory          MEM         MEM-01
    Tool schema      ToolSchema      TS          TS-01

Models spell categories in many ways; :func:`canonical_category` maps the usual ones
(the source tag ``AgentsMd``, ``CLAUDE.md``, ``system prompt``, ``tools``, any case,
spaces, dashes or underscores) to the published name and rejects the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adhere.core import Source

__all__ = [
    "CATEGORIES",
    "Category",
    "canonical_category",
    "category_for_source",
    "category_named",
]


@dataclass(frozen=True)
class Category:
    """One checklist category.

    Attributes:
        name: Published name (the checklist's key).
        source: The instruction source it stands for.
        prefix: Prefix of its check ids (``SP`` in ``SP-01``).
        description: Default description written into the checklist.
    """

    name: str
    source: Source
    prefix: str
    description: str


CATEGORIES: tuple[Category, ...] = (
    Category("SP", Source.SYSTEM_PROMPT, "SP", "Instructions of the system prompt."),
    Category(
        "System reminder",
        Source.SYSTEM_REMINDER,
        "SR",
        "Instructions the scaffold injected as system reminders.",
    ),
    Category("User query", Source.USER_QUERY, "UQ", "What the user asked, turn by turn."),
    Category(
        "Agents.md",
        Source.AGENTS_MD,
        "AM",
        "Rules of the repository's policy files (CLAUDE.md, AGENTS.md).",
    ),
    Category("Skill.md", Source.SKILL_MD, "SK", "Instructions of the skills (SKILL.md)."),
    Category("Memory", Source.MEMORY, "MEM", "Instructions kept in memory files."),
    Category(
        "Tool schema", Source.TOOL_SCHEMA, "TS", "Constraints stated by the offered tools' schemas."
    ),
)
"""Every category, in checklist order."""

_BY_NAME = {c.name: c for c in CATEGORIES}
_BY_SOURCE = {c.source: c for c in CATEGORIES}


def _squash(text: str) -> str:
    return re.sub(r"[\s_\-]+", "", text.strip().lower())


_ALIASES: dict[str, str] = {}
for _category in CATEGORIES:
    for _alias in (_category.name, _category.source.value, _category.prefix):
        _ALIASES[_squash(_alias)] = _category.name
for _alias, _name in (
    ("system prompt", "SP"),
    ("system prompts", "SP"),
    ("system", "SP"),
    ("system reminders", "System reminder"),
    ("reminder", "System reminder"),
    ("reminders", "System reminder"),
    ("user", "User query"),
    ("user queries", "User query"),
    ("user turn", "User query"),
    ("user turns", "User query"),
    ("agents", "Agents.md"),
    ("claude.md", "Agents.md"),
    ("claude", "Agents.md"),
    ("claude.local.md", "Agents.md"),
    ("project doc", "Agents.md"),
    ("skill", "Skill.md"),
    ("skills", "Skill.md"),
    ("memories", "Memory"),
    ("memory file", "Memory"),
    ("memory files", "Memory"),
    ("tool schemas", "Tool schema"),
    ("tools", "Tool schema"),
    ("tool", "Tool schema"),
):
    _ALIASES[_squash(_alias)] = _name


def canonical_category(name: str) -> str:
    """The published category name for ``name`` (any usual spelling).

    Raises:
        ValueError: ``name`` is no known spelling of a category.
    """
    found = _ALIASES.get(_squash(name))
    if found is None:
        known = ", ".join(c.name for c in CATEGORIES)
        raise ValueError(f"unknown category {name!r}; expected one of {known}")
    return found


def category_named(name: str) -> Category:
    """The category with this published name (see :func:`canonical_category`)."""
    return _BY_NAME[canonical_category(name)]


def category_for_source(source: Source) -> Category | None:
    """The category of an instruction source; ``None`` for sources OctoBench has none for."""
    return _BY_SOURCE.get(source)
