"""Which assistant text a check looks at, and small text helpers.

A *reply* is the text content of an assistant message: tool calls are never part of
it, reasoning only when a verifier's ``include_reasoning`` parameter says so.
Messages without text (pure tool calls) are not replies.

Scopes:

``all`` / ``each``
    every reply (``each`` asks for a per-reply decision where that differs).
``final``
    the last reply of the conversation.
``final_per_turn``
    the last reply before each later user turn, and the last one overall: one answer
    per user turn. Turns are found by the text of the instance's user turns; when a
    turn's text cannot be found, a user message with text outside
    ``<system-reminder>`` blocks that follows an assistant message starts a turn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from adhere.core import ChatMessage, Trajectory

__all__ = ["Reply", "Scope", "replies", "snippet", "strip_code", "turn_starts"]

Scope = Literal["all", "each", "final", "final_per_turn"]

_REMINDER = re.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.DOTALL)
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.DOTALL | re.M)
_INLINE = re.compile(r"(`+)[^`\n].*?\1", re.DOTALL)


@dataclass(frozen=True)
class Reply:
    """One assistant reply: its message index and text."""

    index: int
    text: str


def _text(message: ChatMessage, include_reasoning: bool) -> str:
    if include_reasoning and message.reasoning.strip():
        return f"{message.reasoning}\n\n{message.content}".strip()
    return message.content


def replies(
    trajectory: Trajectory,
    scope: Scope = "all",
    *,
    include_reasoning: bool = False,
    turns: Sequence[str] = (),
) -> list[Reply]:
    """The replies in ``scope`` (see the module docstring), in order.

    Args:
        trajectory: The trial's trajectory.
        scope: ``all``, ``each``, ``final`` or ``final_per_turn``.
        include_reasoning: Prepend each assistant message's reasoning to its text
            (a message with reasoning but no text then counts as a reply).
        turns: The instance's user turns, to split the conversation into turns.
    """
    found = [
        Reply(i, _text(m, include_reasoning))
        for i, m in enumerate(trajectory.messages)
        if m.role == "assistant" and _text(m, include_reasoning).strip()
    ]
    if scope in ("all", "each") or not found:
        return found
    if scope == "final":
        return found[-1:]
    starts = turn_starts(trajectory.messages, turns)
    chosen: list[Reply] = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(trajectory.messages)
        within = [r for r in found if start <= r.index < end]
        if within:
            chosen.append(within[-1])
    return chosen


def turn_starts(messages: Sequence[ChatMessage], turns: Sequence[str] = ()) -> list[int]:
    """Message indexes where user turns begin (the first turn starts at 0)."""
    if not turns:
        return _heuristic_starts(messages)
    starts = [0]
    position = 0
    for turn in turns[1:]:
        needle = turn.strip()
        found = next(
            (
                i
                for i in range(position + 1, len(messages))
                if messages[i].role == "user" and needle and needle in messages[i].content
            ),
            None,
        )
        if found is None:
            return _heuristic_starts(messages)
        starts.append(found)
        position = found
    return starts


def _heuristic_starts(messages: Sequence[ChatMessage]) -> list[int]:
    starts = [0]
    seen_assistant = False
    for i, message in enumerate(messages):
        if message.role == "assistant":
            seen_assistant = True
        elif message.role == "user" and seen_assistant:
            if _REMINDER.sub("", message.content).strip():
                starts.append(i)
                seen_assistant = False
    return starts


def strip_code(text: str) -> str:
    """``text`` without fenced code blocks and inline code spans."""
    return _INLINE.sub(" ", _FENCE.sub("\n", text))


def snippet(text: str, limit: int = 80) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
