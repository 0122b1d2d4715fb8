"""Instruction-source tagging: which spans of a trajectory came from which source.

Each CLI puts instructions in a different place (system prompt, first user message,
developer messages, reminder blocks), so sources are found by content, not position:

* ``SP`` — the instance's system prompt wherever it appears; when the scaffold wrote
  its own system prompt, the whole system text is tagged ``SP`` with label
  ``scaffold``.
* ``AgentsMd`` / ``SkillMd`` / ``Memory`` — the text of the workspace's policy files
  (``CLAUDE.md``, ``AGENTS.md``), skill files (``SKILL.md``) and memory files,
  found in the system prompt or any user or system message (whitespace-insensitive);
  skill and memory files also in tool results, since they usually arrive through a
  tool (the skill tool, the agent reading its memory bank). The label is the path.
* ``SystemReminder`` — every ``<system-reminder>…</system-reminder>`` block.
* ``UserQuery`` — each of the instance's user turns in the user messages.
* ``ToolSchema`` — one span per offered tool (``message_index = TOOLS_INDEX``).

Spans may nest (a CLAUDE.md inside a system reminder is tagged both ways).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from adhere.core import SYSTEM_INDEX, TOOLS_INDEX, Instance, Source, SourceSpan, Trajectory

_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
_MAX_REGEX_TOKENS = 4000
_LOADED_BY_TOOLS = frozenset({Source.SKILL_MD, Source.MEMORY})


@dataclass(frozen=True)
class FileRule:
    """Which workspace files are instruction sources of which kind."""

    source: Source
    pattern: re.Pattern[str]


DEFAULT_RULES: tuple[FileRule, ...] = (
    FileRule(Source.AGENTS_MD, re.compile(r"(^|/)(CLAUDE|AGENTS|CLAUDE\.local)\.md$", re.I)),
    FileRule(Source.SKILL_MD, re.compile(r"(^|/)SKILL\.md$", re.I)),
    FileRule(
        Source.MEMORY,
        re.compile(r"(^|/)(MEMORY\.md|\.?memory(-bank)?/[^/]+\.md|\.claude/memory/[^/]+)$", re.I),
    ),
)


def find_text(haystack: str, needle: str) -> tuple[int, int] | None:
    """Where ``needle`` occurs in ``haystack``: exactly, else ignoring whitespace changes."""
    needle = needle.strip()
    if not needle:
        return None
    at = haystack.find(needle)
    if at >= 0:
        return at, at + len(needle)
    tokens = needle.split()
    if not tokens or len(tokens) > _MAX_REGEX_TOKENS:
        return None
    match = re.search(r"\s+".join(re.escape(t) for t in tokens), haystack)
    return (match.start(), match.end()) if match else None


def _texts(trajectory: Trajectory) -> Iterator[tuple[int, str]]:
    yield SYSTEM_INDEX, trajectory.system
    for index, message in enumerate(trajectory.messages):
        # Instructions arrive in user messages and in system/developer messages that
        # CLIs insert mid-conversation; tool results are what the agent looked at.
        if message.role in ("user", "system"):
            yield index, message.content


def tag_sources(
    trajectory: Trajectory,
    instance: Instance,
    files: Mapping[str, str],
    *,
    rules: tuple[FileRule, ...] = DEFAULT_RULES,
) -> list[SourceSpan]:
    """All source spans of a trajectory, in (message, start) order."""
    spans: list[SourceSpan] = []
    texts = list(_texts(trajectory))
    instructions = [m for m in texts if m[0] == SYSTEM_INDEX or _is_user(trajectory, m[0])]

    if instance.system_prompt.strip():
        for index, text in texts:
            found = find_text(text, instance.system_prompt)
            if found:
                spans.append(
                    SourceSpan(
                        source=Source.SYSTEM_PROMPT,
                        message_index=index,
                        start=found[0],
                        end=found[1],
                        label="instance",
                    )
                )
                break
    if trajectory.system.strip() and not any(
        s.message_index == SYSTEM_INDEX and s.source == Source.SYSTEM_PROMPT for s in spans
    ):
        spans.append(
            SourceSpan(
                source=Source.SYSTEM_PROMPT,
                message_index=SYSTEM_INDEX,
                start=0,
                end=len(trajectory.system),
                label="scaffold",
            )
        )

    tool_results = [(i, m.content) for i, m in enumerate(trajectory.messages) if m.role == "tool"]
    for path, content in sorted(files.items()):
        source = next((r.source for r in rules if r.pattern.search(path)), None)
        if source is None:
            continue
        # Skills and memory files usually reach the model as tool results (the skill
        # tool's output, the agent reading its memory bank); policy files are injected.
        places = instructions + tool_results if source in _LOADED_BY_TOOLS else instructions
        for index, text in places:
            found = find_text(text, content)
            if found:
                spans.append(
                    SourceSpan(
                        source=source,
                        message_index=index,
                        start=found[0],
                        end=found[1],
                        label=str(PurePosixPath(path)),
                    )
                )

    for index, text in instructions:
        for match in _REMINDER.finditer(text):
            spans.append(
                SourceSpan(
                    source=Source.SYSTEM_REMINDER,
                    message_index=index,
                    start=match.start(),
                    end=match.end(),
                )
            )

    for turn_number, turn in enumerate(instance.turns, start=1):
        for index, text in instructions:
            if index == SYSTEM_INDEX or trajectory.messages[index].role != "user":
                continue
            found = find_text(text, turn)
            if found:
                spans.append(
                    SourceSpan(
                        source=Source.USER_QUERY,
                        message_index=index,
                        start=found[0],
                        end=found[1],
                        label=f"turn {turn_number}",
                    )
                )
                break

    for position, tool in enumerate(trajectory.tools):
        spans.append(
            SourceSpan(
                source=Source.TOOL_SCHEMA,
                message_index=TOOLS_INDEX,
                start=position,
                end=position + 1,
                label=tool.name,
            )
        )
    spans.sort(key=lambda s: (s.message_index, s.start, -s.end))
    return spans


def _is_user(trajectory: Trajectory, index: int) -> bool:
    return trajectory.messages[index].role in ("user", "system")


def sources_present(spans: list[SourceSpan]) -> list[str]:
    """The distinct sources found, in enum order (for reports and attribution)."""
    found = {s.source for s in spans}
    return [s.value for s in Source if s in found]
