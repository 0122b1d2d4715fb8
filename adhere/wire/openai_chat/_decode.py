"""Decoding recorded OpenAI Chat Completions calls into neutral messages (leniently)."""

from __future__ import annotations

from typing import Any

from adhere.core import ChatMessage, ToolCall, ToolSpec
from adhere.wire._decode_common import decode_args as _args
from adhere.wire._decode_common import flatten_text as _text

__all__ = ["decode_openai_chat"]


def _openai_message(m: dict[str, Any]) -> ChatMessage | None:
    role = m.get("role")
    calls = tuple(
        ToolCall(
            id=str(c.get("id", "")),
            name=str((c.get("function") or {}).get("name", "")),
            arguments=_args((c.get("function") or {}).get("arguments")),
        )
        for c in m.get("tool_calls") or []
        if isinstance(c, dict)
    )
    reasoning = _text(m.get("reasoning_content") or m.get("reasoning"))
    if role == "tool":
        return ChatMessage(
            role="tool",
            content=_text(m.get("content")),
            tool_call_id=str(m.get("tool_call_id", "")),
        )
    if role in ("user", "assistant"):
        return ChatMessage(
            role=role, content=_text(m.get("content")), tool_calls=calls, reasoning=reasoning
        )
    return None


def decode_openai_chat(
    request: dict[str, Any], response: Any
) -> tuple[str, list[ChatMessage], list[ToolSpec], ChatMessage | None]:
    system_parts: list[str] = []
    messages: list[ChatMessage] = []
    for m in request.get("messages") or []:
        if not isinstance(m, dict):
            continue
        if m.get("role") in ("system", "developer"):
            if messages:  # a mid-conversation system message stays where it was
                messages.append(ChatMessage(role="system", content=_text(m.get("content"))))
            else:
                system_parts.append(_text(m.get("content")))
            continue
        message = _openai_message(m)
        if message is not None:
            messages.append(message)
    tools = []
    for t in request.get("tools") or []:
        fn = t.get("function") if isinstance(t, dict) else None
        if isinstance(fn, dict):
            tools.append(
                ToolSpec(
                    name=str(fn.get("name", "")),
                    description=str(fn.get("description", "")),
                    parameters=fn.get("parameters") or {"type": "object"},
                )
            )
    reply = None
    if isinstance(response, dict):
        choices = response.get("choices") or []
        if choices and isinstance(choices[0], dict) and isinstance(choices[0].get("message"), dict):
            reply = _openai_message({**choices[0]["message"], "role": "assistant"})
    return "\n\n".join(p for p in system_parts if p), messages, tools, reply
