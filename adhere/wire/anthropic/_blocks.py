"""Messages content blocks in neutral terms, shared by the client and the server codec."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adhere.core import ChatMessage, ToolCall
from adhere.wire._json import (
    WireFormatError,
    as_object,
    as_str,
    join_text,
    read_text_parts,
    require,
)

__all__ = ["content_blocks", "read_assistant_blocks", "read_text_blocks"]


def content_blocks(
    text: str, calls: Sequence[ToolCall], thinking: str = ""
) -> list[dict[str, Any]]:
    """An assistant turn as blocks: thinking, text (unless only calls), then ``tool_use``."""
    blocks: list[dict[str, Any]] = []
    if thinking:
        blocks.append({"type": "thinking", "thinking": thinking})
    if text or not calls:
        blocks.append({"type": "text", "text": text})
    blocks.extend(
        {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
        for call in calls
    )
    return blocks


def read_assistant_blocks(blocks: list[Any], where: str, *, strict: bool) -> ChatMessage:
    """An assistant turn's blocks as one neutral message.

    Args:
        blocks: The ``content`` array.
        where: Its path, for errors.
        strict: Require ``tool_use`` ids and names, and refuse block types other than
            text, thinking, tool use and redacted thinking (a server reading a
            request); otherwise such blocks are skipped (a client reading a reply).
    """
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[ToolCall] = []
    for index, raw in enumerate(blocks):
        path = f"{where}[{index}]"
        block = as_object(raw, path)
        kind = block.get("type")
        if kind == "text":
            texts.append(as_str(block.get("text"), f"{path}.text"))
        elif kind == "thinking":
            thoughts.append(as_str(block.get("thinking"), f"{path}.thinking"))
        elif kind == "tool_use":
            ident = as_str(require(block, "id", path) if strict else block.get("id"), f"{path}.id")
            name = as_str(
                require(block, "name", path) if strict else block.get("name"), f"{path}.name"
            )
            arguments = as_object(block.get("input", {}), f"{path}.input")
            calls.append(ToolCall(id=ident, name=name, arguments=arguments))
        elif strict and kind != "redacted_thinking":
            raise WireFormatError(
                f"unsupported block type {kind!r} in an assistant turn", f"{path}.type"
            )
        # Other block types (redacted thinking, server tool results) carry nothing
        # the neutral message can hold; they are skipped.
    return ChatMessage(
        role="assistant",
        content=join_text(texts),
        tool_calls=tuple(calls),
        reasoning=join_text(thoughts),
    )


def read_text_blocks(value: Any, where: str) -> str:
    """A string, or a list of text blocks (joined by blank lines)."""
    return read_text_parts(
        value,
        where,
        kinds=("text",),
        unsupported="unsupported block type {kind} (only text is supported here)",
    )
