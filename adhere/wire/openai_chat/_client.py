"""The OpenAI Chat Completions wire format, client side: requests out, replies in."""

from __future__ import annotations

from typing import Any

from adhere.core import ChatMessage, ToolSpec, Usage
from adhere.spec import Endpoint
from adhere.wire._apis import reasoning_tokens_of
from adhere.wire._client_codec import ParsedReply, add_reasoning, add_sampling, output_cap
from adhere.wire._exchange import ChatRequest
from adhere.wire._json import (
    StreamFailure,
    WireFormatError,
    as_int,
    as_list,
    as_object,
    as_str,
    parse_json_object,
)
from adhere.wire._sse import SseEvent
from adhere.wire.openai_chat._shared import encode_tool_call, read_openai_content, read_tool_calls

__all__ = [
    "OpenAIStreamAssembler",
    "OpenAIWire",
    "encode_openai_messages",
    "encode_openai_tools",
]


class OpenAIWire:
    """Chat Completions: ``POST {base_url}/chat/completions`` with a Bearer key."""

    api = "openai"

    def url(self, base_url: str) -> str:
        """``{base_url}/chat/completions``."""
        return base_url.rstrip("/") + "/chat/completions"

    def headers(self, api_key: str | None) -> dict[str, str]:
        """JSON headers plus ``Authorization: Bearer`` when keyed."""
        headers = {"content-type": "application/json"}
        if api_key is not None:
            headers["authorization"] = f"Bearer {api_key}"
        return headers

    def build_body(self, request: ChatRequest, endpoint: Endpoint, stream: bool) -> dict[str, Any]:
        """System prompt as the first message; ``stream_options`` asks for usage."""
        body: dict[str, Any] = {
            "model": endpoint.model,
            "messages": encode_openai_messages(request.system, request.messages),
            "max_tokens": output_cap(request, endpoint),
        }
        add_sampling(body, request, endpoint, encode_openai_tools(request.tools), stream)
        add_reasoning("openai-chat", body, endpoint)
        if stream:
            body["stream_options"] = {"include_usage": True}
        return body

    def parse_reply(self, data: dict[str, Any]) -> ParsedReply:
        """Translate a ``chat.completion`` object."""
        choices = as_list(data.get("choices"), "choices")
        if not choices:
            raise WireFormatError("the reply has no choices", "choices")
        choice = as_object(choices[0], "choices[0]")
        message = as_object(choice.get("message"), "choices[0].message")
        where = "choices[0].message"
        calls = read_tool_calls(message, where, strict=False)
        reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
        reply = ChatMessage(
            role="assistant",
            content=read_openai_content(message.get("content"), f"{where}.content"),
            tool_calls=calls,
            reasoning=as_str(reasoning, f"{where}.reasoning_content"),
        )
        usage = as_object(data.get("usage") or {}, "usage")
        return ParsedReply(
            message=reply,
            usage=Usage(
                input_tokens=as_int(usage.get("prompt_tokens", 0), "usage.prompt_tokens"),
                output_tokens=as_int(usage.get("completion_tokens", 0), "usage.completion_tokens"),
                cached_input_tokens=_cached_tokens(usage),
                reasoning_tokens=reasoning_tokens_of("openai-chat", data),
            ),
            stop_reason=as_str(
                choice.get("finish_reason") or "", "choices[0].finish_reason"
            ).lower(),
            model=as_str(data.get("model") or "", "model"),
        )

    def assembler(self) -> OpenAIStreamAssembler:
        """A fresh assembler of ``chat.completion.chunk`` events."""
        return OpenAIStreamAssembler()


def _cached_tokens(usage: dict[str, Any]) -> int | None:
    """``prompt_tokens_details.cached_tokens``, or ``None`` when absent or not a count.

    Telemetry only: a server that leaves it out or shapes it oddly does not fail the call.
    """
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    if isinstance(cached, bool) or not isinstance(cached, int) or cached < 0:
        return None
    return cached


def encode_openai_messages(
    system: str, messages: tuple[ChatMessage, ...] | list[ChatMessage]
) -> list[dict[str, Any]]:
    """Neutral messages as Chat Completions messages (reasoning is not sent back)."""
    out: list[dict[str, Any]] = []
    if system:
        out.append({"role": "system", "content": system})
    for index, message in enumerate(messages):
        if message.role == "tool":
            if not message.tool_call_id:
                raise ValueError(f"messages[{index}]: a tool message needs a tool_call_id")
            out.append(
                {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
            )
            continue
        item: dict[str, Any] = {"role": message.role, "content": message.content}
        if message.name:
            item["name"] = message.name
        if message.tool_calls:
            item["content"] = message.content or None
            item["tool_calls"] = [encode_tool_call(call) for call in message.tool_calls]
        out.append(item)
    return out


def encode_openai_tools(tools: tuple[ToolSpec, ...] | list[ToolSpec]) -> list[dict[str, Any]]:
    """Tool specs as ``function`` tools."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        }
        for tool in tools
    ]


class OpenAIStreamAssembler:
    """Rebuilds a ``chat.completion`` object from ``chat.completion.chunk`` events."""

    def __init__(self) -> None:
        self._head: dict[str, Any] = {}
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, dict[str, str]] = {}
        self._finish: str | None = None
        self._usage: dict[str, Any] | None = None
        self._done = False

    @property
    def finished(self) -> bool:
        """``data: [DONE]`` arrived."""
        return self._done

    @property
    def complete(self) -> bool:
        """``[DONE]`` arrived, or at least a finish reason (some servers skip ``[DONE]``)."""
        return self._done or self._finish is not None

    def feed(self, event: SseEvent) -> None:
        """Consume one chunk."""
        if event.data.strip() == "[DONE]":
            self._done = True
            return
        chunk = parse_json_object(event.data, "stream chunk")
        if chunk.get("error") is not None:
            raise StreamFailure(f"stream error: {_error_text(chunk['error'])}")
        for key in ("id", "model", "created", "system_fingerprint"):
            if key in chunk and key not in self._head:
                self._head[key] = chunk[key]
        if isinstance(chunk.get("usage"), dict):
            self._usage = chunk["usage"]
        for position, raw in enumerate(as_list(chunk.get("choices") or [], "choices")):
            choice = as_object(raw, f"choices[{position}]")
            if choice.get("index", 0) != 0:
                continue
            self._feed_delta(as_object(choice.get("delta") or {}, f"choices[{position}].delta"))
            if choice.get("finish_reason") is not None:
                self._finish = as_str(choice["finish_reason"], "finish_reason")

    def _feed_delta(self, delta: dict[str, Any]) -> None:
        if isinstance(delta.get("content"), str):
            self._content.append(delta["content"])
        for key in ("reasoning_content", "reasoning"):
            if isinstance(delta.get(key), str):
                self._reasoning.append(delta[key])
        for position, raw in enumerate(as_list(delta.get("tool_calls") or [], "delta.tool_calls")):
            fragment = as_object(raw, f"delta.tool_calls[{position}]")
            index = as_int(fragment.get("index", position), f"delta.tool_calls[{position}].index")
            slot = self._calls.setdefault(index, {"id": "", "name": "", "arguments": ""})
            if fragment.get("id"):
                slot["id"] = as_str(fragment["id"], "delta.tool_calls.id")
            function = as_object(fragment.get("function") or {}, "delta.tool_calls.function")
            if function.get("name"):
                slot["name"] = as_str(function["name"], "delta.tool_calls.function.name")
            if function.get("arguments"):
                slot["arguments"] += as_str(
                    function["arguments"], "delta.tool_calls.function.arguments"
                )

    def result(self) -> dict[str, Any]:
        """The reassembled ``chat.completion`` object."""
        text = "".join(self._content)
        message: dict[str, Any] = {
            "role": "assistant",
            "content": text if text or not self._calls else None,
        }
        if self._calls:
            message["tool_calls"] = [
                {
                    "id": slot["id"],
                    "type": "function",
                    "function": {"name": slot["name"], "arguments": slot["arguments"]},
                }
                for _, slot in sorted(self._calls.items())
            ]
        if self._reasoning:
            message["reasoning_content"] = "".join(self._reasoning)
        document: dict[str, Any] = {
            "id": self._head.get("id", ""),
            "object": "chat.completion",
            "created": self._head.get("created", 0),
            "model": self._head.get("model", ""),
            "choices": [{"index": 0, "message": message, "finish_reason": self._finish}],
        }
        if self._usage is not None:
            document["usage"] = self._usage
        return document


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error.get("type") or error)
    return str(error)
