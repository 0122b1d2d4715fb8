"""Feedback correction: a trial's failed checks as a block of text the agent can read.

OctoBench's feedback-correction analysis (SUITES.md §1) turns the checks a trial
failed into structured feedback, injects it into the user query and runs the
instance again. This module is the pure half: which verdicts become feedback, how the
block reads, how it is put into an instance, and how a reader (the scripted ``agent``
policy, a test) finds it again.

**What is fed back.** Only ``fail`` verdicts, in the instance's checklist order
(verdicts naming a check the instance lacks come last, as ``source: unknown``).
``error`` verdicts (undecidable: a judge reply was unusable, the trial crashed) are
not failures of the agent and are never fed back; ``pass`` and ``n/a`` neither.

**The block (format version 1).** Deterministic for the same instance and verdicts::

    <feedback>
    Your previous attempt at this task broke the rules below. Each item names the
    check [in brackets], where the rule comes from and the rule itself; the line
    under it says who found the failure and why. Do the task again and follow these
    rules, together with every other instruction you were given.
    - [SP_no_emoji] (source: system prompt) The final answer contains no emoji.
      Reason (verifier:no_emoji): message 3 contains emoji: 🎉, ✅
    </feedback>

(The intro is one line in the real block.) One item per failed check: ``- [ID]
(source: LABEL) DESCRIPTION``, descriptions and reasons collapsed to one line; the
reason line is left out when the verdict gives no reasoning, and reasons longer than
``max_reason`` characters are cut with ``…``. Source labels: see
:data:`SOURCE_LABELS`.

**Placement.** ``append`` (the default) adds the block after the first user query
(a blank line between), ``prepend`` puts it before, and ``new-turn`` adds it as one
more user turn after the last one: the agent then sees its own re-run turns and the
feedback within the same conversation, and the checks still judge the whole
conversation. ``none`` leaves the instance as it is: a control run that repeats the
same trials without feedback, measuring how much they change by chance alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from adhere.core import Check, Instance, Source, Verdict

__all__ = [
    "FEEDBACK_FORMAT",
    "FEEDBACK_INTRO",
    "FEEDBACK_TAG",
    "PLACEMENTS",
    "SOURCE_LABELS",
    "FeedbackItem",
    "Placement",
    "feedback_items",
    "find_feedback",
    "inject_feedback",
    "render_feedback",
    "strip_feedback",
]

FEEDBACK_TAG = "feedback"
"""The block is wrapped in ``<feedback>`` … ``</feedback>``."""
FEEDBACK_FORMAT = 1
"""Version of the block's layout; recorded with each corrected trial."""
FEEDBACK_INTRO = (
    "Your previous attempt at this task broke the rules below. Each item names the check "
    "[in brackets], where the rule comes from and the rule itself; the line under it says "
    "who found the failure and why. Do the task again and follow these rules, together "
    "with every other instruction you were given."
)

SOURCE_LABELS: dict[Source, str] = {
    Source.SYSTEM_PROMPT: "system prompt",
    Source.SYSTEM_REMINDER: "system reminder",
    Source.USER_QUERY: "user query",
    Source.AGENTS_MD: "AGENTS.md / CLAUDE.md",
    Source.SKILL_MD: "SKILL.md",
    Source.MEMORY: "memory",
    Source.TOOL_SCHEMA: "tool schema",
    Source.PRIVILEGE: "instruction hierarchy",
    Source.STYLE: "style guide",
    Source.TEST: "tests",
    Source.ANSWER: "expected answer",
}
"""How each instruction source is named in the block."""

Placement = Literal["append", "prepend", "new-turn", "none"]
PLACEMENTS: tuple[Placement, ...] = ("append", "prepend", "new-turn", "none")

_BLOCK = re.compile(rf"<{FEEDBACK_TAG}>\n?(.*?)\n?</{FEEDBACK_TAG}>", re.DOTALL)
_ITEM = re.compile(
    r"^- \[(?P<id>[^\]\n]+)\] \(source: (?P<source>[^)\n]*)\) (?P<description>[^\n]*)$",
    re.MULTILINE,
)
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class FeedbackItem:
    """One failed check as the feedback names it.

    Attributes:
        check_id: The check's id.
        source: Where its rule comes from (``None`` when the instance lacks the check).
        description: The rule, as the checklist words it.
        reason: The verdict's reasoning (may be empty).
        decided_by: Who decided the failure (``verifier:NAME``, ``panel:majority`` …).
    """

    check_id: str
    source: Source | None
    description: str
    reason: str = ""
    decided_by: str = ""

    @property
    def source_label(self) -> str:
        """The source as the block names it."""
        return SOURCE_LABELS[self.source] if self.source is not None else "unknown"


def feedback_items(instance: Instance, verdicts: Sequence[Verdict]) -> list[FeedbackItem]:
    """The failed checks of one trial, in checklist order (see the module docstring)."""
    failed = {v.check_id: v for v in verdicts if v.result == "fail"}
    checks: dict[str, Check] = {c.id: c for c in instance.checks}
    ordered = [c.id for c in instance.checks if c.id in failed]
    ordered += [v.check_id for v in verdicts if v.result == "fail" and v.check_id not in checks]
    items = []
    for check_id in dict.fromkeys(ordered):
        verdict = failed[check_id]
        check = checks.get(check_id)
        items.append(
            FeedbackItem(
                check_id=check_id,
                source=check.source if check is not None else None,
                description=check.description if check is not None else "",
                reason=verdict.reasoning,
                decided_by=verdict.decided_by,
            )
        )
    return items


def _line(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 1, 0)].rstrip() + "…"


def render_feedback(items: Sequence[FeedbackItem], *, max_reason: int = 300) -> str:
    """The ``<feedback>`` block for ``items`` (empty string when there are none).

    Args:
        items: The failed checks, e.g. from :func:`feedback_items`.
        max_reason: Longest reason kept (characters); longer ones end with ``…``.
    """
    if not items:
        return ""
    lines = [f"<{FEEDBACK_TAG}>", FEEDBACK_INTRO]
    for item in items:
        check_id = _line(item.check_id).replace("]", ")")
        description = _line(item.description) or "(no description)"
        lines.append(f"- [{check_id}] (source: {item.source_label}) {description}")
        reason = _line(item.reason)
        if reason:
            who = f" ({_line(item.decided_by)})" if item.decided_by.strip() else ""
            lines.append(f"  Reason{who}: {_cut(reason, max_reason)}")
    lines.append(f"</{FEEDBACK_TAG}>")
    return "\n".join(lines)


def inject_feedback(
    instance: Instance, feedback: str, *, placement: Placement = "append"
) -> Instance:
    """A copy of ``instance`` whose user turns carry ``feedback`` (see the module docstring).

    The id, checks and everything else stay the same; an empty ``feedback`` or the
    placement ``none`` returns the instance unchanged.
    """
    if not feedback or placement == "none":
        return instance
    turns = list(instance.turns)
    if placement == "append":
        turns[0] = f"{turns[0]}\n\n{feedback}"
    elif placement == "prepend":
        turns[0] = f"{feedback}\n\n{turns[0]}"
    elif placement == "new-turn":
        turns.append(feedback)
    else:
        raise ValueError(f"placement must be one of {', '.join(PLACEMENTS)}, got {placement!r}")
    return instance.model_copy(update={"turns": turns})


def find_feedback(text: str) -> list[FeedbackItem]:
    """The items of every feedback block in ``text`` (reasons are not read back).

    ``source`` is the :class:`~adhere.spec.Source` whose label the item names, or
    ``None`` for ``unknown`` and labels this version does not know.
    """
    by_label = {label: source for source, label in SOURCE_LABELS.items()}
    found = []
    for block in _BLOCK.finditer(text):
        for match in _ITEM.finditer(block.group(1)):
            found.append(
                FeedbackItem(
                    check_id=match["id"],
                    source=by_label.get(match["source"]),
                    description=match["description"],
                )
            )
    return found


def strip_feedback(text: str) -> str:
    """``text`` without its feedback blocks (surrounding blank lines tidied)."""
    return _BLOCK.sub("", text).strip()
