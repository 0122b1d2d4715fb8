"""The server side of Anthropic Messages: requests in, replies and errors out."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from adhere.core import ChatMessage, ToolSpec
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
from adhere.wire.anthropic._blocks import content_blocks, read_assistant_blocks, read_text_blocks

__all__ = ["AnthropicCodec"]

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    422: "invalid_request_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}
_SIGNATURE = "adhere-unsigned"
"""Thinking blocks carry this placeholder: no real signature travels through adhere."""


class AnthropicCodec:
    """Messages as the scripted policy server speaks it."""

    api: ApiName = "anthropic"

    def decode(self, body: dict[str, Any], target: Target | None = None) -> DecodedRequest:
        """Decode a ``/v1/messages`` body."""
        model = as_str(require(body, "model", ""), "model")
        if as_int(require(body, "max_tokens", ""), "max_tokens") < 1:
            raise WireFormatError("must be at least 1", "max_tokens")
        raw_messages = as_list(require(body, "messages", ""), "messages")
        if not raw_messages:
            raise WireFormatError("at least one message is required", "messages")
        system = [read_text_blocks(body.get("system"), "system")]
        messages: list[ChatMessage] = []
        for index, raw in enumerate(raw_messages):
            where = f"messages[{index}]"
            item = as_object(raw, where)
            role = as_str(require(item, "role", where), f"{where}.role")
            content = require(item, "content", where)
            if role == "user":
                messages.extend(_user(content, f"{where}.content"))
            elif role == "assistant":
                messages.append(_assistant(content, f"{where}.content"))
            elif role == "system":
                # Mid-conversation system messages (a beta Claude Code uses) join the
                # system text, as developer messages do on the OpenAI side.
                system.append(read_text_blocks(content, f"{where}.content"))
            else:
                raise WireFormatError(
                    f"unsupported role {role!r} (expected user, assistant or system)",
                    f"{where}.role",
                )
        return DecodedRequest(
            model=model,
            system=join_text(system),
            messages=tuple(messages),
            tools=_tools(body.get("tools")),
            stream=as_bool(body.get("stream", False), "stream"),
        )

    def reply_body(self, out: Outgoing) -> dict[str, Any]:
        """A ``message`` object."""
        return {
            **self._head(out),
            "content": [_final_block(block) for block in self._blocks(out)],
            "stop_reason": _stop(out),
            "stop_sequence": None,
            "usage": {
                "input_tokens": out.usage.input_tokens,
                "output_tokens": out.usage.output_tokens,
            },
        }

    def reply_events(self, out: Outgoing, include_usage: bool) -> Iterator[bytes]:
        """``message_start`` … ``message_stop``; usage is always sent, as the API does."""

        def event(kind: str, **fields: Any) -> bytes:
            return encode_sse(json.dumps({"type": kind, **fields}, ensure_ascii=False), kind)

        start = {
            **self._head(out),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": out.usage.input_tokens, "output_tokens": 1},
        }
        yield event("message_start", message=start)
        yield event("ping")
        for index, block in enumerate(self._blocks(out)):
            kind = block["type"]
            if kind == "text":
                yield event("content_block_start", index=index, content_block=_empty(block))
                for piece in out.text_deltas(block["text"]):
                    delta = {"type": "text_delta", "text": piece}
                    yield event("content_block_delta", index=index, delta=delta)
            elif kind == "thinking":
                yield event("content_block_start", index=index, content_block=_empty(block))
                for piece in out.text_deltas(block["thinking"]):
                    delta = {"type": "thinking_delta", "thinking": piece}
                    yield event("content_block_delta", index=index, delta=delta)
                delta = {"type": "signature_delta", "signature": _SIGNATURE}
                yield event("content_block_delta", index=index, delta=delta)
            else:
                yield event("content_block_start", index=index, content_block=_empty(block))
                for fragment in out.argument_deltas(json.dumps(block["input"], ensure_ascii=False)):
                    delta = {"type": "input_json_delta", "partial_json": fragment}
                    yield event("content_block_delta", index=index, delta=delta)
            yield event("content_block_stop", index=index)
        yield event(
            "message_delta",
            delta={"stop_reason": _stop(out), "stop_sequence": None},
            usage={"output_tokens": out.usage.output_tokens},
        )
        yield event("message_stop")

    def error_body(self, status: int, message: str, param: str | None = None) -> dict[str, Any]:
        """``{"type": "error", "error": {"type", "message"}}`` (the field is in the message)."""
        kind = _ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    @staticmethod
    def _head(out: Outgoing) -> dict[str, Any]:
        return {
            "id": f"msg_{out.ident}",
            "type": "message",
            "role": "assistant",
            "model": out.model,
        }

    @staticmethod
    def _blocks(out: Outgoing) -> list[dict[str, Any]]:
        reply = out.reply
        return content_blocks(reply.text, reply.tool_calls, reply.reasoning)


def _empty(block: dict[str, Any]) -> dict[str, Any]:
    """A block as ``content_block_start`` announces it, before its deltas."""
    kind = block["type"]
    if kind == "text":
        return {"type": "text", "text": ""}
    if kind == "thinking":
        return {"type": "thinking", "thinking": ""}
    return {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}


def _final_block(block: dict[str, Any]) -> dict[str, Any]:
    if block["type"] == "thinking":
        return {**block, "signature": _SIGNATURE}
    return block


_STOP = {
    "end": "end_turn",
    "tool_calls": "tool_use",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
    "refusal": "refusal",
    "other": "end_turn",
}


def _stop(out: Outgoing) -> str:
    return _STOP[out.stop_reason()]


def _user(content: Any, where: str) -> list[ChatMessage]:
    """A user turn: its tool results become ``tool`` messages, then its text (if any)."""
    if isinstance(content, str):
        return [ChatMessage(role="user", content=content)]
    results: list[ChatMessage] = []
    texts: list[str] = []
    for index, raw in enumerate(as_list(content, where)):
        path = f"{where}[{index}]"
        block = as_object(raw, path)
        kind = block.get("type")
        if kind == "text":
            texts.append(as_str(block.get("text"), f"{path}.text"))
        elif kind == "tool_result":
            results.append(
                ChatMessage(
                    role="tool",
                    tool_call_id=as_str(require(block, "tool_use_id", path), f"{path}.tool_use_id"),
                    content=read_text_blocks(block.get("content"), f"{path}.content"),
                )
            )
        else:
            raise WireFormatError(
                f"unsupported block type {kind!r} in a user turn (expected text or tool_result)",
                f"{path}.type",
            )
    if texts or not results:
        results.append(ChatMessage(role="user", content=join_text(texts)))
    return results


def _assistant(content: Any, where: str) -> ChatMessage:
    if isinstance(content, str):
        return ChatMessage(role="assistant", content=content)
    return read_assistant_blocks(as_list(content, where), where, strict=True)


def _tools(raw: Any) -> tuple[ToolSpec, ...]:
    tools = []
    for index, item in enumerate(as_list(raw or [], "tools")):
        where = f"tools[{index}]"
        tool = as_object(item, where)
        if tool.get("type") not in (None, "custom"):
            continue  # a server tool (web search, code execution …): run by the API itself
        tools.append(
            ToolSpec(
                name=as_str(require(tool, "name", where), f"{where}.name"),
                description=as_str(tool.get("description") or "", f"{where}.description"),
                parameters=as_object(
                    tool.get("input_schema") or {"type": "object"}, f"{where}.input_schema"
                ),
            )
        )
    return tuple(tools)
