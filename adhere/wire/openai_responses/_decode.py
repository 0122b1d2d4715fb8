"""Decoding OpenAI Responses API calls (as Codex sends them) into neutral messages."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from adhere.core import ChatMessage, ToolCall, ToolSpec
from adhere.wire._decode_common import decode_args as _args
from adhere.wire._decode_common import flatten_text as _text


def _responses_items(items: Iterable[Any], system_parts: list[str]) -> list[ChatMessage]:
    """Responses API items → messages; one turn's assistant items merge into one message.

    Codex sends an assistant turn as separate items (reasoning, message, function
    calls); merging them matches how the same turn looked as a reply.
    """
    out: list[ChatMessage] = []

    def add_assistant(
        content: str = "", calls: tuple[ToolCall, ...] = (), reasoning: str = ""
    ) -> None:
        if out and out[-1].role == "assistant":
            last = out.pop()
            update = {
                "content": "\n".join(t for t in (last.content, content) if t),
                "tool_calls": (*last.tool_calls, *calls),
                "reasoning": "\n".join(t for t in (last.reasoning, reasoning) if t),
            }
            out.append(last.model_copy(update=update))
        else:
            out.append(
                ChatMessage(
                    role="assistant", content=content, tool_calls=calls, reasoning=reasoning
                )
            )

    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "message":
            role = item.get("role")
            text = _text(item.get("content"))
            if role in ("system", "developer"):
                if out:
                    out.append(ChatMessage(role="system", content=text, name=str(role)))
                else:
                    system_parts.append(text)
            elif role == "assistant":
                add_assistant(content=text)
            elif role == "user":
                out.append(ChatMessage(role="user", content=text))
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            if kind == "function_call":
                args = _args(item.get("arguments"))
            elif kind == "custom_tool_call":
                args = {"input": item.get("input")}
            else:
                args = {"action": item.get("action")}
            call_id = str(item.get("call_id") or item.get("id", ""))
            name = str(item.get("name", kind))
            add_assistant(calls=(ToolCall(id=call_id, name=name, arguments=args),))
        elif kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
            output = _text(item.get("output"))
            out.append(
                ChatMessage(role="tool", content=output, tool_call_id=str(item.get("call_id", "")))
            )
        elif kind == "reasoning":
            add_assistant(reasoning=_text(item.get("summary") or item.get("content") or []))
    return out


def decode_responses(
    request: dict[str, Any], response: Any
) -> tuple[str, list[ChatMessage], list[ToolSpec], ChatMessage | None]:
    system_parts = [_text(request.get("instructions"))] if request.get("instructions") else []
    raw_input = request.get("input")
    items = (
        [{"type": "message", "role": "user", "content": raw_input}]
        if isinstance(raw_input, str)
        else raw_input or []
    )
    messages = _responses_items(items, system_parts)
    tools = []
    for t in request.get("tools") or []:
        if isinstance(t, dict) and t.get("name"):
            params = t.get("parameters") or {"type": "object"}
            if t.get("type") == "custom":
                params = {"type": "custom", "format": t.get("format")}
            tools.append(
                ToolSpec(
                    name=str(t["name"]),
                    description=str(t.get("description", "")),
                    parameters=params,
                )
            )
    reply = None
    if isinstance(response, dict) and isinstance(response.get("output"), list):
        produced = [m for m in _responses_items(response["output"], []) if m.role == "assistant"]
        reply = produced[-1] if produced else ChatMessage(role="assistant")
    return "\n\n".join(p for p in system_parts if p), messages, tools, reply
