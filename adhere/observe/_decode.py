"""Lenient decoders: one recorded call (any of the four API shapes) → neutral messages.

The normalizer must never fail on what a CLI sent: unknown block types are kept as
bracketed text markers (``[image]``, ``[document]``), malformed JSON arguments are
kept as a string under ``_raw``, and a missing response just means no reply.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from adhere.spec import ChatMessage, ToolCall, ToolSpec


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


def _text(value: Any) -> str:
    """Flatten content (a string, a list of parts, a part) into text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (_text(v) for v in value) if t)
    if isinstance(value, dict):
        for key in ("text", "input_text", "output_text"):
            if isinstance(value.get(key), str):
                return str(value[key])
        for key in ("content", "output", "parts"):
            if key in value:
                return _text(value[key])
        kind = value.get("type")
        if kind:
            return f"[{kind}]"
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def _args(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError:
            return {"_raw": raw}
        return value if isinstance(value, dict) else {"_raw": raw}
    return {} if raw is None else {"_raw": json.dumps(raw, ensure_ascii=False)}


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


# --- OpenAI Responses ----------------------------------------------------------------


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


def _responses(
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


# --- Gemini generateContent ----------------------------------------------------------


def _gemini_content(content: dict[str, Any], counter: list[int]) -> list[ChatMessage]:
    role = "assistant" if content.get("role") == "model" else "user"
    texts: list[str] = []
    reasoning: list[str] = []
    calls: list[ToolCall] = []
    results: list[ChatMessage] = []
    for part in content.get("parts") or []:
        if not isinstance(part, dict):
            continue
        if "functionCall" in part:
            fc = part["functionCall"] or {}
            counter[0] += 1
            calls.append(
                ToolCall(
                    id=str(fc.get("id") or f"{fc.get('name', '')}#{counter[0]}"),
                    name=str(fc.get("name", "")),
                    arguments=_args(fc.get("args")),
                )
            )
        elif "functionResponse" in part:
            fr = part["functionResponse"] or {}
            body = fr.get("response")
            text = _text(
                body.get("output") if isinstance(body, dict) and "output" in body else body
            )
            results.append(
                ChatMessage(
                    role="tool",
                    content=text,
                    name=str(fr.get("name", "")),
                    tool_call_id=str(fr.get("id", "")),
                )
            )
        elif part.get("thought"):
            reasoning.append(str(part.get("text", "")))
        elif "text" in part:
            texts.append(str(part["text"]))
        else:
            texts.append(f"[{next(iter(part), 'part')}]")
    out = list(results)
    if texts or calls or reasoning or not results:
        out.append(
            ChatMessage(
                role=role,
                content="\n".join(texts),
                tool_calls=tuple(calls),
                reasoning="\n".join(reasoning),
            )
        )
    return out


def _gemini(
    request: dict[str, Any], response: Any
) -> tuple[str, list[ChatMessage], list[ToolSpec], ChatMessage | None]:
    system = _text(
        (request.get("systemInstruction") or request.get("system_instruction") or {}).get("parts")
    )
    counter = [0]
    messages: list[ChatMessage] = []
    for content in request.get("contents") or []:
        if isinstance(content, dict):
            messages += _gemini_content(content, counter)
    tools = []
    for t in request.get("tools") or []:
        for fn in (
            (t or {}).get("functionDeclarations") or (t or {}).get("function_declarations") or []
        ):
            params = fn.get("parametersJsonSchema") or fn.get("parameters") or {"type": "object"}
            tools.append(
                ToolSpec(
                    name=str(fn.get("name", "")),
                    description=str(fn.get("description", "")),
                    parameters=params,
                )
            )
    reply = None
    if isinstance(response, dict):
        candidates = response.get("candidates") or []
        if (
            candidates
            and isinstance(candidates[0], dict)
            and isinstance(candidates[0].get("content"), dict)
        ):
            reply = _gemini_content({**candidates[0]["content"], "role": "model"}, counter)[-1]
    _pair_gemini_results(messages)
    return system, messages, tools, reply


def _pair_gemini_results(messages: list[ChatMessage]) -> None:
    """Gemini tool results carry only names: give them the id of the matching earlier call."""
    open_calls: list[ToolCall] = []
    for i, m in enumerate(messages):
        if m.role == "assistant":
            open_calls = list(m.tool_calls)
        elif m.role == "tool" and not m.tool_call_id:
            for call in open_calls:
                if call.name == m.name:
                    messages[i] = m.model_copy(update={"tool_call_id": call.id})
                    open_calls.remove(call)
                    break


_DECODERS = {
    "anthropic": _anthropic,
    "openai": _openai_chat,
    "openai-chat": _openai_chat,
    "openai-responses": _responses,
    "gemini": _gemini,
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
