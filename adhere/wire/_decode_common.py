"""Helpers shared by the call decoders: flattening content, decoding arguments, closing a turn."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from adhere.core import ChatMessage, ToolCall

__all__ = ["decode_args", "flatten_text", "turn_messages"]


def flatten_text(value: Any) -> str:
    """Flatten content (a string, a list of parts, a part) into text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (flatten_text(v) for v in value) if t)
    if isinstance(value, dict):
        for key in ("text", "input_text", "output_text"):
            if isinstance(value.get(key), str):
                return str(value[key])
        for key in ("content", "output", "parts"):
            if key in value:
                return flatten_text(value[key])
        kind = value.get("type")
        if kind:
            return f"[{kind}]"
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def decode_args(raw: Any) -> dict[str, Any]:
    """Tool-call arguments as an object; what does not parse is kept under ``_raw``."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError:
            return {"_raw": raw}
        return value if isinstance(value, dict) else {"_raw": raw}
    return {} if raw is None else {"_raw": json.dumps(raw, ensure_ascii=False)}


def turn_messages(
    role: str,
    content: str,
    *,
    texts: Sequence[str],
    calls: Sequence[ToolCall],
    reasoning: Sequence[str],
    results: Sequence[ChatMessage],
) -> list[ChatMessage]:
    """A turn's tool results, then its own message (when it said anything, or had no results).

    Args:
        role: The turn's role.
        content: The turn's text, as the caller joined ``texts``.
        texts: The turn's text parts (only whether there are any counts here).
        calls: The tool calls the turn made.
        reasoning: The turn's reasoning parts, joined by newlines.
        results: Tool results the turn carried, as ``tool`` messages.
    """
    out = list(results)
    if texts or calls or reasoning or not results:
        out.append(
            ChatMessage(
                role=role,
                content=content,
                tool_calls=tuple(calls),
                reasoning="\n".join(reasoning),
            )
        )
    return out
