"""The server side of the OpenAI Responses API (``POST /v1/responses``), as Codex CLI uses it.

Requests map to the neutral form like this:

- ``instructions`` and every ``system`` or ``developer`` message become the system
  text, in that order, joined by blank lines (as the Chat Completions side treats
  ``developer`` messages), so a conversation has one digest whichever OpenAI API it
  travelled through;
- ``user`` messages stay user messages; an ``assistant`` message, the ``reasoning``
  items and the ``function_call`` / ``custom_tool_call`` items that follow one
  another make one assistant message, as one Chat Completions turn would;
- ``function_call_output`` and ``custom_tool_call_output`` items become ``tool``
  messages;
- ``function`` tools map to :class:`ToolSpec` as they are; ``custom`` (free-form)
  tools become a tool taking one string argument ``input``, marked with
  :data:`FREEFORM_KEY`, so a call to one goes back out as a ``custom_tool_call``.
  Tools in a ``namespace`` are taken as they are (by their own names), and so are
  those of ``additional_tools`` input items (Codex sends its tools that way for some
  models). Hosted tools (``web_search``, ``local_shell`` and the like) are ignored.

The server is stateless: ``previous_response_id`` is refused (send the whole input).
Errors use OpenAI's error document.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from adhere.core import ChatMessage, ToolCall, ToolSpec, Usage
from adhere.wire._exchange import FREEFORM_KEY, ApiName, freeform_input, is_freeform
from adhere.wire._json import (
    WireFormatError,
    as_bool,
    as_int,
    as_list,
    as_object,
    as_str,
    decode_arguments,
    join_text,
    require,
)
from adhere.wire._server_codec import DecodedRequest, Outgoing, Target
from adhere.wire._sse import encode_sse
from adhere.wire.openai_chat._shared import openai_error, read_openai_content

__all__ = ["ResponsesCodec"]

_ASSISTANT_ITEMS = ("function_call", "custom_tool_call", "reasoning")
_OUTPUT_ITEMS = ("function_call_output", "custom_tool_call_output")
# A reply that ended on these is ``incomplete`` (the final event ``response.incomplete``).
_INCOMPLETE = {"max_tokens": "max_output_tokens", "refusal": "content_filter"}


class ResponsesCodec:
    """The Responses API as the scripted policy server speaks it."""

    api: ApiName = "responses"

    def decode(self, body: dict[str, Any], target: Target | None = None) -> DecodedRequest:
        """Decode a ``/v1/responses`` body."""
        model = as_str(require(body, "model", ""), "model")
        if body.get("previous_response_id") is not None:
            raise WireFormatError(
                "this test double keeps no state: send the whole conversation in 'input'",
                "previous_response_id",
            )
        if body.get("max_output_tokens") is not None:
            if as_int(body["max_output_tokens"], "max_output_tokens") < 1:
                raise WireFormatError("must be at least 1", "max_output_tokens")
        history = _History()
        instructions = body.get("instructions")
        if instructions is not None:
            history.system.append(as_str(instructions, "instructions"))
        raw_input = require(body, "input", "")
        if isinstance(raw_input, str):
            history.messages.append(ChatMessage(role="user", content=raw_input))
        else:
            items = as_list(raw_input, "input")
            if not items:
                raise WireFormatError("at least one input item is required", "input")
            for index, raw in enumerate(items):
                history.add(as_object(raw, f"input[{index}]"), f"input[{index}]")
        return DecodedRequest(
            model=model,
            system=join_text(history.system),
            messages=history.finish(),
            tools=_tools(body.get("tools"), "tools") + history.tools,
            stream=as_bool(body.get("stream", False), "stream"),
        )

    def reply_body(self, out: Outgoing) -> dict[str, Any]:
        """A ``response`` object with its ``output`` items."""
        return _response(out, "completed", _items(out), out.usage)

    def reply_events(self, out: Outgoing, include_usage: bool) -> Iterator[bytes]:
        """``response.created`` … ``response.completed`` (usage is always sent)."""
        counter = iter(range(1_000_000))

        def event(kind: str, **fields: Any) -> bytes:
            document = {"type": kind, "sequence_number": next(counter), **fields}
            return encode_sse(json.dumps(document, ensure_ascii=False), kind)

        yield event("response.created", response=_response(out, "in_progress", [], None))
        yield event("response.in_progress", response=_response(out, "in_progress", [], None))
        items = _items(out)
        for index, item in enumerate(items):
            for kind, fields in _item_events(item, index, out):
                yield event(kind, **fields)
        final = _response(out, "completed", items, out.usage)
        yield event(f"response.{final['status']}", response=final)

    def error_body(self, status: int, message: str, param: str | None = None) -> dict[str, Any]:
        """``{"error": {"message", "type", "param", "code"}}``, as Chat Completions."""
        return openai_error(status, message, param)


@dataclass
class _History:
    """Input items folded into neutral messages; assistant-side items are grouped."""

    system: list[str] = field(default_factory=list)
    messages: list[ChatMessage] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    thoughts: list[str] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    tools: tuple[ToolSpec, ...] = ()
    open: bool = False

    def add(self, item: dict[str, Any], where: str) -> None:
        kind = item.get("type", "message" if "role" in item else None)
        if kind == "message":
            self._message(item, where)
        elif kind in _ASSISTANT_ITEMS:
            self.open = True
            if kind == "reasoning":
                self.thoughts.append(_reasoning(item, where))
            else:
                self.calls.append(_call(kind, item, where))
        elif kind == "additional_tools":
            self.tools += _tools(item.get("tools"), f"{where}.tools")
        elif kind in _OUTPUT_ITEMS:
            self._close()
            answered = as_str(require(item, "call_id", where), f"{where}.call_id")
            output = _output_text(require(item, "output", where), f"{where}.output")
            self.messages.append(ChatMessage(role="tool", content=output, tool_call_id=answered))
        else:
            raise WireFormatError(
                f"unsupported input item type {kind!r} (expected message, function_call, "
                "function_call_output, custom_tool_call, custom_tool_call_output or reasoning)",
                f"{where}.type",
            )

    def finish(self) -> tuple[ChatMessage, ...]:
        self._close()
        return tuple(self.messages)

    def _message(self, item: dict[str, Any], where: str) -> None:
        role = as_str(require(item, "role", where), f"{where}.role")
        text = read_openai_content(item.get("content"), f"{where}.content")
        if role in ("system", "developer"):
            self.system.append(text)
        elif role == "user":
            self._close()
            self.messages.append(ChatMessage(role="user", content=text))
        elif role == "assistant":
            self.open = True
            self.texts.append(text)
        else:
            raise WireFormatError(
                f"unsupported role {role!r} (expected system, developer, user or assistant)",
                f"{where}.role",
            )

    def _close(self) -> None:
        if not self.open:
            return
        self.messages.append(
            ChatMessage(
                role="assistant",
                content=join_text(self.texts),
                tool_calls=tuple(self.calls),
                reasoning=join_text(self.thoughts),
            )
        )
        self.texts, self.thoughts, self.calls, self.open = [], [], [], False


def _call(kind: str, item: dict[str, Any], where: str) -> ToolCall:
    ident = as_str(require(item, "call_id", where), f"{where}.call_id")
    name = as_str(require(item, "name", where), f"{where}.name")
    if kind == "custom_tool_call":
        text = as_str(item.get("input", ""), f"{where}.input")
        return ToolCall(id=ident, name=name, arguments={"input": text})
    arguments = decode_arguments(item.get("arguments", ""), f"{where}.arguments")
    return ToolCall(id=ident, name=name, arguments=arguments)


def _reasoning(item: dict[str, Any], where: str) -> str:
    """A reasoning item's visible text: its summary, else its reasoning content."""
    texts = []
    for key in ("summary", "content"):
        for index, raw in enumerate(as_list(item.get(key) or [], f"{where}.{key}")):
            part = as_object(raw, f"{where}.{key}[{index}]")
            texts.append(as_str(part.get("text", ""), f"{where}.{key}[{index}].text"))
        if texts:
            break
    return join_text(texts)


def _output_text(value: Any, where: str) -> str:
    """A tool output: a string, or a list of text parts."""
    if isinstance(value, str):
        return value
    return read_openai_content(as_list(value, where), where)


def _tools(raw: Any, path: str) -> tuple[ToolSpec, ...]:
    tools: list[ToolSpec] = []
    for index, item in enumerate(as_list(raw or [], path)):
        where = f"{path}[{index}]"
        tool = as_object(item, where)
        kind = tool.get("type", "function")
        if kind == "namespace":
            tools.extend(_tools(tool.get("tools"), f"{where}.tools"))
            continue
        if kind not in ("function", "custom"):
            continue  # hosted tools (web search, local shell, …) are not emulated
        name = as_str(require(tool, "name", where), f"{where}.name")
        description = as_str(tool.get("description") or "", f"{where}.description")
        if kind == "custom":
            shape = as_object(tool.get("format") or {"type": "text"}, f"{where}.format")
            parameters: dict[str, Any] = {
                "type": "object",
                "properties": {"input": {"type": "string", "description": "Free-form input."}},
                "required": ["input"],
                FREEFORM_KEY: shape,
            }
        else:
            parameters = as_object(
                tool.get("parameters") or {"type": "object"}, f"{where}.parameters"
            )
        tools.append(ToolSpec(name=name, description=description, parameters=parameters))
    return tuple(tools)


def _items(out: Outgoing) -> list[dict[str, Any]]:
    """The reply as ``output`` items: reasoning, a message, then the tool calls."""
    reply = out.reply
    items: list[dict[str, Any]] = []
    if reply.reasoning:
        summary = [{"type": "summary_text", "text": reply.reasoning}]
        items.append({"type": "reasoning", "id": f"rs_{out.ident}", "summary": summary})
    if reply.text or not reply.tool_calls:
        part = {"type": "output_text", "text": reply.text, "annotations": []}
        items.append(
            {
                "type": "message",
                "id": f"msg_{out.ident}",
                "status": "completed",
                "role": "assistant",
                "content": [part],
            }
        )
    tools = out.request.tools if out.request is not None else ()
    freeform = {tool.name for tool in tools if is_freeform(tool)}
    for index, call in enumerate(reply.tool_calls):
        if call.name in freeform:
            items.append(
                {
                    "type": "custom_tool_call",
                    "id": f"ctc_{out.ident}_{index}",
                    "status": "completed",
                    "call_id": call.id,
                    "name": call.name,
                    "input": freeform_input(call),
                }
            )
        else:
            items.append(
                {
                    "type": "function_call",
                    "id": f"fc_{out.ident}_{index}",
                    "status": "completed",
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": json.dumps(call.arguments, ensure_ascii=False),
                }
            )
    return items


def _item_events(
    item: dict[str, Any], index: int, out: Outgoing
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The stream events of one output item, from ``output_item.added`` to ``.done``."""
    kind, ident = item["type"], item["id"]
    at = {"item_id": ident, "output_index": index}
    if kind == "message":
        text = item["content"][0]["text"]
        yield (
            "response.output_item.added",
            {
                "output_index": index,
                "item": {**item, "status": "in_progress", "content": []},
            },
        )
        empty = {"type": "output_text", "text": "", "annotations": []}
        yield "response.content_part.added", {**at, "content_index": 0, "part": empty}
        for piece in out.text_deltas(text):
            yield (
                "response.output_text.delta",
                {
                    **at,
                    "content_index": 0,
                    "delta": piece,
                    "logprobs": [],
                },
            )
        yield "response.output_text.done", {**at, "content_index": 0, "text": text, "logprobs": []}
        yield "response.content_part.done", {**at, "content_index": 0, "part": item["content"][0]}
    elif kind == "reasoning":
        text = item["summary"][0]["text"]
        yield "response.output_item.added", {"output_index": index, "item": {**item, "summary": []}}
        part = {"type": "summary_text", "text": ""}
        yield "response.reasoning_summary_part.added", {**at, "summary_index": 0, "part": part}
        for piece in out.text_deltas(text):
            yield (
                "response.reasoning_summary_text.delta",
                {
                    **at,
                    "summary_index": 0,
                    "delta": piece,
                },
            )
        yield "response.reasoning_summary_text.done", {**at, "summary_index": 0, "text": text}
        part = {"type": "summary_text", "text": text}
        yield "response.reasoning_summary_part.done", {**at, "summary_index": 0, "part": part}
    else:
        field_name = "arguments" if kind == "function_call" else "input"
        event = "function_call_arguments" if kind == "function_call" else "custom_tool_call_input"
        opening = {**item, "status": "in_progress", field_name: ""}
        yield "response.output_item.added", {"output_index": index, "item": opening}
        for fragment in out.argument_deltas(item[field_name]):
            yield f"response.{event}.delta", {**at, "delta": fragment}
        yield f"response.{event}.done", {**at, field_name: item[field_name]}
    yield "response.output_item.done", {"output_index": index, "item": item}


def _response(
    out: Outgoing, status: str, output: list[dict[str, Any]], usage: Usage | None
) -> dict[str, Any]:
    incomplete = None
    if status == "completed" and out.stop_reason() in _INCOMPLETE:
        status, incomplete = "incomplete", {"reason": _INCOMPLETE[out.stop_reason()]}
    return {
        "id": f"resp_{out.ident}",
        "object": "response",
        "created_at": out.created,
        "status": status,
        "error": None,
        "incomplete_details": incomplete,
        "model": out.model,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "metadata": {},
        "usage": None if usage is None else _usage(usage),
    }


def _usage(usage: Usage) -> dict[str, Any]:
    return {
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens or 0},
        "total_tokens": usage.input_tokens + usage.output_tokens,
    }
