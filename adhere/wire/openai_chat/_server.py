"""The server side of OpenAI Chat Completions: requests in, replies and errors out."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from adhere.core import ChatMessage, ToolCall, ToolSpec, Usage
from adhere.wire._exchange import ApiName
from adhere.wire._json import (
    WireFormatError,
    as_bool,
    as_int,
    as_list,
    as_object,
    as_str,
    join_text,
    require,
)
from adhere.wire._server_codec import DecodedRequest, Outgoing, Target
from adhere.wire._sse import encode_sse
from adhere.wire.openai_chat._shared import (
    encode_tool_call,
    openai_error,
    read_openai_content,
    read_tool_calls,
)

__all__ = ["OpenAICodec"]


class OpenAICodec:
    """Chat Completions as the scripted policy server speaks it."""

    api: ApiName = "openai"

    def decode(self, body: dict[str, Any], target: Target | None = None) -> DecodedRequest:
        """Decode a ``/v1/chat/completions`` body."""
        model = as_str(require(body, "model", ""), "model")
        raw_messages = as_list(require(body, "messages", ""), "messages")
        if not raw_messages:
            raise WireFormatError("at least one message is required", "messages")
        system: list[str] = []
        messages: list[ChatMessage] = []
        for index, raw in enumerate(raw_messages):
            where = f"messages[{index}]"
            item = as_object(raw, where)
            role = as_str(require(item, "role", where), f"{where}.role")
            if role in ("system", "developer"):
                system.append(read_openai_content(item.get("content"), f"{where}.content"))
            elif role in ("user", "assistant", "tool"):
                messages.append(_message(role, item, where))
            else:
                raise WireFormatError(
                    f"unsupported role {role!r} (expected system, developer, user, "
                    "assistant or tool)",
                    f"{where}.role",
                )
        for key in ("max_tokens", "max_completion_tokens"):
            if body.get(key) is not None and as_int(body[key], key) < 1:
                raise WireFormatError("must be at least 1", key)
        options = as_object(body.get("stream_options") or {}, "stream_options")
        return DecodedRequest(
            model=model,
            system=join_text(system),
            messages=tuple(messages),
            tools=_tools(body.get("tools")),
            stream=as_bool(body.get("stream", False), "stream"),
            include_usage=as_bool(
                options.get("include_usage", False), "stream_options.include_usage"
            ),
        )

    def reply_body(self, out: Outgoing) -> dict[str, Any]:
        """A ``chat.completion`` object."""
        reply = out.reply
        message: dict[str, Any] = {
            "role": "assistant",
            "content": reply.text if reply.text or not reply.tool_calls else None,
        }
        if reply.tool_calls:
            message["tool_calls"] = [encode_tool_call(call) for call in reply.tool_calls]
        if reply.reasoning:
            message["reasoning_content"] = reply.reasoning
        return {
            **self._head(out, "chat.completion"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": _finish(out),
                }
            ],
            "usage": _usage(out.usage),
        }

    def reply_events(self, out: Outgoing, include_usage: bool) -> Iterator[bytes]:
        """``chat.completion.chunk`` events, an optional usage chunk, then ``[DONE]``."""
        head = self._head(out, "chat.completion.chunk")

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            document = {
                **head,
                "choices": [
                    {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
                ],
            }
            if include_usage:
                document["usage"] = None
            return encode_sse(json.dumps(document, ensure_ascii=False))

        reply = out.reply
        yield chunk({"role": "assistant", "content": ""})
        for piece in out.text_deltas(reply.reasoning):
            yield chunk({"reasoning_content": piece})
        for piece in out.text_deltas(reply.text):
            yield chunk({"content": piece})
        for index, call in enumerate(reply.tool_calls):
            opening = {
                "index": index,
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }
            yield chunk({"tool_calls": [opening]})
            for fragment in out.argument_deltas(_arguments(call)):
                yield chunk({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]})
        yield chunk({}, _finish(out))
        if include_usage:
            tail = {**head, "choices": [], "usage": _usage(out.usage)}
            yield encode_sse(json.dumps(tail, ensure_ascii=False))
        yield encode_sse("[DONE]")

    def error_body(self, status: int, message: str, param: str | None = None) -> dict[str, Any]:
        """``{"error": {"message", "type", "param", "code"}}``."""
        return openai_error(status, message, param)

    @staticmethod
    def _head(out: Outgoing, kind: str) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{out.ident}",
            "object": kind,
            "created": out.created,
            "model": out.model,
            "system_fingerprint": "adhere-scripted",
        }


def _message(role: str, item: dict[str, Any], where: str) -> ChatMessage:
    content = read_openai_content(item.get("content"), f"{where}.content")
    if role == "tool":
        answered = as_str(require(item, "tool_call_id", where), f"{where}.tool_call_id")
        return ChatMessage(role="tool", content=content, tool_call_id=answered)
    name = item.get("name")
    if role == "user":
        return ChatMessage(
            role="user", content=content, name=as_str(name, f"{where}.name") if name else None
        )
    calls = read_tool_calls(item, where, strict=True)
    reasoning = item.get("reasoning_content") or ""
    return ChatMessage(
        role="assistant",
        content=content,
        tool_calls=calls,
        reasoning=as_str(reasoning, f"{where}.reasoning_content"),
    )


def _tools(raw: Any) -> tuple[ToolSpec, ...]:
    tools = []
    for index, item in enumerate(as_list(raw or [], "tools")):
        where = f"tools[{index}]"
        tool = as_object(item, where)
        kind = tool.get("type", "function")
        if kind != "function":
            raise WireFormatError(f"unsupported tool type {kind!r}", f"{where}.type")
        function = as_object(require(tool, "function", where), f"{where}.function")
        tools.append(
            ToolSpec(
                name=as_str(
                    require(function, "name", f"{where}.function"), f"{where}.function.name"
                ),
                description=as_str(
                    function.get("description") or "", f"{where}.function.description"
                ),
                parameters=as_object(
                    function.get("parameters") or {"type": "object"}, f"{where}.function.parameters"
                ),
            )
        )
    return tuple(tools)


def _arguments(call: ToolCall) -> str:
    return json.dumps(call.arguments, ensure_ascii=False)


_FINISH = {
    "end": "stop",
    "tool_calls": "tool_calls",
    "max_tokens": "length",
    "stop_sequence": "stop",
    "refusal": "content_filter",
    "other": "stop",
}


def _finish(out: Outgoing) -> str:
    return _FINISH[out.stop_reason()]


def _usage(usage: Usage) -> dict[str, Any]:
    document: dict[str, Any] = {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
    }
    if usage.reasoning_tokens is not None:
        document["completion_tokens_details"] = {"reasoning_tokens": usage.reasoning_tokens}
    return document
