"""Lenient decoders: one recorded call (any of the four API shapes) → neutral messages.

The normalizer must never fail on what a CLI sent: unknown block types are kept as
bracketed text markers (``[image]``, ``[document]``), malformed JSON arguments are
kept as a string under ``_raw``, and a missing response just means no reply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from adhere.core import ChatMessage, ToolCall, ToolSpec
from adhere.wire._decode_common import decode_args as _args
from adhere.wire._decode_common import flatten_text as _text
from adhere.wire.gemini._decode import decode_gemini
from adhere.wire.openai_responses._decode import decode_responses


@dataclass(frozen=True)
class CallView:
    """What one call showed the model and what came back."""

    seq: int
    api: str
    system: str
    messages: tuple[ChatMessage, ...]
    tools: tuple[ToolSpec, ...]
    reply: ChatMessage | None
    status: int | None = None
    error: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


# --- Anthropic Messages -------------------------------------------------------------


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
    out = list(results)
    if texts or calls or reasoning or not results:
        out.append(
            ChatMessage(
                role=role,
                content="\n".join(t for t in texts if t),
                tool_calls=tuple(calls),
                reasoning="\n".join(reasoning),
            )
        )
    return out


def _anthropic(
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


# --- OpenAI Chat Completions --------------------------------------------------------


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


def _openai_chat(
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


_DECODERS = {
    "anthropic": _anthropic,
    "openai": _openai_chat,
    "openai-chat": _openai_chat,
    "openai-responses": decode_responses,
    "gemini": decode_gemini,
}


def decode_call(record: dict[str, Any], seq: int) -> CallView | None:
    """Decode one recorded call; None when its request is not a model call body."""
    request = record.get("request")
    api = str(record.get("api", ""))
    decoder = _DECODERS.get(api)
    if decoder is None or not isinstance(request, dict) or "_raw" in request:
        return None
    system, messages, tools, reply = decoder(request, record.get("response"))
    status = record.get("status")
    error = record.get("error")
    if status is not None and not 200 <= int(status) < 300:
        reply = None
    return CallView(
        seq=seq,
        api=api,
        system=system,
        messages=tuple(messages),
        tools=tuple(tools),
        reply=reply,
        status=status,
        error=error if isinstance(error, str) else None,
    )
