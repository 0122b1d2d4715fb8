"""What the OpenAI shapes share on both sides: content parts, tool calls, the error document."""

from __future__ import annotations

import json
from typing import Any

from adhere.core import ToolCall
from adhere.wire._json import (
    as_list,
    as_object,
    as_str,
    decode_arguments,
    read_text_parts,
    require,
)

__all__ = ["encode_tool_call", "openai_error", "read_openai_content", "read_tool_calls"]

_ERROR_TYPES = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    404: ("invalid_request_error", "model_not_found"),
    422: ("invalid_request_error", "unknown_conversation"),
    429: ("requests", "rate_limit_exceeded"),
}


def read_openai_content(value: Any, field: str) -> str:
    """Message content that is a string, ``null`` or a list of text parts."""
    return read_text_parts(
        value,
        field,
        kinds=("text", "input_text", "output_text"),
        unsupported="unsupported content part type {kind} (only text is supported)",
    )


def encode_tool_call(call: ToolCall) -> dict[str, Any]:
    """A Chat Completions ``tool_calls`` entry (arguments as a JSON string)."""
    return {
        "id": call.id,
        "type": "function",
        "function": {
            "name": call.name,
            "arguments": json.dumps(call.arguments, ensure_ascii=False),
        },
    }


def read_tool_calls(message: dict[str, Any], where: str, *, strict: bool) -> tuple[ToolCall, ...]:
    """A Chat Completions message's ``tool_calls``.

    Args:
        message: The message object.
        where: Its path, for errors.
        strict: Require each call's ``id``, ``function`` and name (a server reading a
            request) rather than only checking the types of what is there.
    """
    calls = []
    for index, raw in enumerate(as_list(message.get("tool_calls") or [], f"{where}.tool_calls")):
        path = f"{where}.tool_calls[{index}]"
        call = as_object(raw, path)
        function = as_object(
            require(call, "function", path) if strict else call.get("function"),
            f"{path}.function",
        )
        ident = as_str(require(call, "id", path) if strict else call.get("id"), f"{path}.id")
        name = as_str(
            require(function, "name", f"{path}.function") if strict else function.get("name"),
            f"{path}.function.name",
        )
        arguments = decode_arguments(function.get("arguments", ""), f"{path}.function.arguments")
        calls.append(ToolCall(id=ident, name=name, arguments=arguments))
    return tuple(calls)


def openai_error(status: int, message: str, param: str | None = None) -> dict[str, Any]:
    """OpenAI's error document (Chat Completions and Responses share it)."""
    kind, code = _ERROR_TYPES.get(
        status, ("server_error", None) if status >= 500 else ("invalid_request_error", None)
    )
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}
