"""Decoding Gemini generateContent calls into neutral messages."""

from __future__ import annotations

from typing import Any

from adhere.core import ChatMessage, ToolCall, ToolSpec
from adhere.wire._decode_common import decode_args as _args
from adhere.wire._decode_common import flatten_text as _text
from adhere.wire._decode_common import turn_messages


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
    return turn_messages(
        role, "\n".join(texts), texts=texts, calls=calls, reasoning=reasoning, results=results
    )


def decode_gemini(
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
