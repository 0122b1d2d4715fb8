"""Splitting a checklist into judge calls, and estimating what the calls cost in tokens.

**Output estimate.** A verdict entry costs about :data:`ENTRY_TOKENS` tokens of JSON
(keys, quotes, result, evidence) plus its check id, plus :data:`REASONING_TOKENS` for
the reasoning (the prompt asks for at most two short sentences). The reply's wrapper
costs :data:`ENVELOPE_TOKENS`. A call may plan to fill only :data:`OUTPUT_SHARE` of
``max_output_tokens``; the rest is margin for judges that write longer reasoning
than asked or think before answering. With the defaults (4,096 output tokens, short
ids) that is about 23 items a call, so a 70-item checklist takes 4 calls.

**Grouping.** ``checklist`` packs the whole checklist into as few calls as fit;
``category`` packs each instruction category (the checks' source) apart; ``item``
asks each check alone. Groups larger than one call are cut into near-equal batches
(70 items at 23 a call → 18, 18, 17, 17), never one short remainder.

**Token counting** is a character estimate, not a tokenizer: one token per 4 ASCII
characters, one per non-ASCII character (CJK text is close to one token a
character). It is meant for comparing groupings, not for billing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from adhere.core import Check, Trajectory
from adhere.judging._prompt import JUDGE_SYSTEM, PromptItem, render_user
from adhere.judging._prompt_transcript import RenderLimits, render_transcript

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_MAX_OUTPUT_TOKENS",
    "ENTRY_TOKENS",
    "ENVELOPE_TOKENS",
    "GROUPINGS",
    "OUTPUT_SHARE",
    "REASONING_TOKENS",
    "Grouping",
    "TokenEstimate",
    "estimate_tokens",
    "items_per_call",
    "plan_batches",
    "prompt_tokens",
]

Grouping = Literal["item", "category", "checklist"]
GROUPINGS: tuple[Grouping, ...] = ("item", "category", "checklist")

DEFAULT_BATCH_SIZE = 40
"""Upper bound of items per call, whatever the output budget allows."""
DEFAULT_MAX_OUTPUT_TOKENS = 4096
ENTRY_TOKENS = 24
REASONING_TOKENS = 60
ENVELOPE_TOKENS = 16
OUTPUT_SHARE = 0.5


def estimate_tokens(text: str) -> int:
    """Rough token count: a token per 4 ASCII characters, one per other character."""
    ascii_chars = sum(1 for char in text if ord(char) < 128)
    return math.ceil(ascii_chars / 4) + (len(text) - ascii_chars)


def _entry_tokens(item: PromptItem) -> int:
    return ENTRY_TOKENS + estimate_tokens(item.check_id) + REASONING_TOKENS


def items_per_call(items: Sequence[PromptItem], max_output_tokens: int, batch_size: int) -> int:
    """How many of these items one call may hold (at least 1, at most ``batch_size``).

    Sized with the costliest item of ``items`` so every batch fits.
    """
    if not items:
        return batch_size
    budget = max_output_tokens * OUTPUT_SHARE - ENVELOPE_TOKENS
    per_item = max(_entry_tokens(item) for item in items)
    return max(1, min(batch_size, int(budget // per_item)))


def plan_batches(
    items: Sequence[PromptItem],
    *,
    grouping: Grouping = "checklist",
    batch_size: int = DEFAULT_BATCH_SIZE,
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
) -> list[list[PromptItem]]:
    """Cut ``items`` into the batches of a judge session (see the module docstring).

    Every item lands in exactly one batch; order is kept within each group, and
    categories come in order of first appearance.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    if max_output_tokens < 1:
        raise ValueError(f"max_output_tokens must be at least 1, got {max_output_tokens}")
    if grouping not in GROUPINGS:
        raise ValueError(f"grouping must be one of {', '.join(GROUPINGS)}, got {grouping!r}")
    groups: list[list[PromptItem]]
    if grouping == "item":
        groups = [[item] for item in items]
    elif grouping == "category":
        by_source: dict[str, list[PromptItem]] = {}
        for item in items:
            by_source.setdefault(item.source, []).append(item)
        groups = list(by_source.values())
    else:
        groups = [list(items)] if items else []
    capacity = items_per_call(items, max_output_tokens, batch_size)
    batches: list[list[PromptItem]] = []
    for group in groups:
        count = math.ceil(len(group) / capacity)
        size, extra = divmod(len(group), count)
        start = 0
        for index in range(count):
            end = start + size + (1 if index < extra else 0)
            batches.append(group[start:end])
            start = end
    return batches


@dataclass(frozen=True)
class TokenEstimate:
    """Estimated cost of judging one trial with one judge.

    Attributes:
        items: Checklist items judged.
        calls: Judge calls (first attempts only; re-asks come on top).
        prompt_tokens: Input tokens of those calls (system and user text).
        output_tokens: Expected output tokens of those calls.
    """

    items: int
    calls: int
    prompt_tokens: int
    output_tokens: int

    @property
    def prompt_tokens_per_item(self) -> float:
        """Input tokens spent per checklist item."""
        return self.prompt_tokens / self.items if self.items else 0.0


def prompt_tokens(
    checks: Sequence[Check],
    trajectory: Trajectory,
    *,
    grouping: Grouping = "checklist",
    batch_size: int = DEFAULT_BATCH_SIZE,
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
    limits: RenderLimits | None = None,
) -> TokenEstimate:
    """Estimate the tokens of judging ``checks`` on ``trajectory`` with this grouping.

    Pure: renders the prompts :func:`~adhere.judging._judge.judge_trial` would send on
    first attempts and counts them with :func:`estimate_tokens`.
    """
    items = [PromptItem.from_check(check) for check in checks]
    batches = plan_batches(
        items, grouping=grouping, batch_size=batch_size, max_output_tokens=max_output_tokens
    )
    transcript = render_transcript(trajectory, limits)
    system = estimate_tokens(JUDGE_SYSTEM)
    total_in = sum(system + estimate_tokens(render_user(transcript, batch)) for batch in batches)
    total_out = sum(
        ENVELOPE_TOKENS + sum(_entry_tokens(item) for item in batch) for batch in batches
    )
    return TokenEstimate(
        items=len(items), calls=len(batches), prompt_tokens=total_in, output_tokens=total_out
    )
