"""Decoding recorded Anthropic Messages calls into neutral messages (leniently)."""

from __future__ import annotations

from typing import Any

from adhere.core import ChatMessage, ToolCall, ToolSpec
from adhere.wire._decode_common import decode_args as _args
from adhere.wire._decode_common import flatten_text as _text
from adhere.wire._decode_common import turn_messages

__all__ = ["decode_anthropic"]


def _anthropic_blocks(role: str, content: Any) -> list[ChatMessage]:
    if isinstance(content, str):
        return [ChatMessage(role=role, content=content)]
    texts: list[str] = []
    reasoning: list[str] = []
    calls: list[ToolCall] = []
    results: list[ChatMessage] = []
    for block in content or []:
        if not isinstance(block, dict):
            texts.append(_text(block))
            continue
        kind = block.get("type")
        if kind == "text":
            texts.append(str(block.get("text", "")))
        elif kind in ("thinking", "redacted_thinking"):
            reasoning.append(str(block.get("thinking", "")))
        elif kind in ("tool_use", "server_tool_use"):
            calls.append(
                ToolCall(
                    id=str(block.get("id", "")),
                    name=str(block.get("name", "")),
                    arguments=_args(block.get("input")),
                )
            )
        elif kind == "tool_result":
            body = _text(block.get("content"))
            if block.get("is_error"):
                body = f"[error] {body}"
            results.append(
                ChatMessage(
                    role="tool", content=body, tool_call_id=str(block.get("tool_use_id", ""))
                )
            )
        else:
            texts.append(f"[{kind}]")
    return turn_messages(
        role,
        "\n".join(t for t in texts if t),
        texts=texts,
        calls=calls,
        reasoning=reasoning,
        results=results,
    )


def decode_anthropic(
    request: dict[str, Any], response: Any
) -> tuple[str, list[ChatMessage], list[ToolSpec], ChatMessage | None]:
    system = _text(request.get("system"))
    messages: list[ChatMessage] = []
    for m in request.get("messages") or []:
        if isinstance(m, dict):
            messages += _anthropic_blocks(str(m.get("role", "user")), m.get("content"))
    tools = [
        ToolSpec(
            name=str(t.get("name", "")),
            description=str(t.get("description", "")),
            parameters=t.get("input_schema") or {"type": "object"},
        )
        for t in request.get("tools") or []
        if isinstance(t, dict)
    ]
    reply = None
    if isinstance(response, dict) and isinstance(response.get("content"), list):
        reply = _anthropic_blocks("assistant", response["content"])[-1]
    return system, messages, tools, reply
