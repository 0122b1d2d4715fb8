"""The Anthropic Messages wire format, client side: requests out, replies in."""

from __future__ import annotations

from typing import Any

from adhere.core import ChatMessage, ToolSpec, Usage
from adhere.spec import Endpoint
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
from adhere.wire.anthropic._blocks import content_blocks, read_assistant_blocks

__all__ = [
    "ANTHROPIC_VERSION",
    "AnthropicStreamAssembler",
    "AnthropicWire",
    "encode_anthropic_messages",
    "encode_anthropic_tools",
]

ANTHROPIC_VERSION = "2023-06-01"


class AnthropicWire:
    """Messages API: ``POST {base_url}/v1/messages`` with ``x-api-key``."""

    api = "anthropic"

    def url(self, base_url: str) -> str:
        """``{base_url}/v1/messages``, or ``/messages`` when ``base_url`` ends in ``/v1``."""
        root = base_url.rstrip("/")
        return root + ("/messages" if root.endswith("/v1") else "/v1/messages")

    def headers(self, api_key: str | None) -> dict[str, str]:
        """JSON headers, ``anthropic-version`` and ``x-api-key`` when keyed."""
        headers = {"content-type": "application/json", "anthropic-version": ANTHROPIC_VERSION}
        if api_key is not None:
            headers["x-api-key"] = api_key
        return headers

    def build_body(self, request: ChatRequest, endpoint: Endpoint, stream: bool) -> dict[str, Any]:
        """System prompt as the top-level ``system`` field."""
        body: dict[str, Any] = {
            "model": endpoint.model,
            "max_tokens": output_cap(request, endpoint),
            "messages": encode_anthropic_messages(request.messages),
        }
        if request.system:
            body["system"] = request.system
        add_sampling(body, request, endpoint, encode_anthropic_tools(request.tools), stream)
        add_reasoning("anthropic", body, endpoint)
        return body

    def parse_reply(self, data: dict[str, Any]) -> ParsedReply:
        """Translate a ``message`` object."""
        message = read_assistant_blocks(
            as_list(data.get("content"), "content"), "content", strict=False
        )
        usage = as_object(data.get("usage") or {}, "usage")
        prompt = sum(
            as_int(usage.get(key) or 0, f"usage.{key}")
            for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
        return ParsedReply(
            message=message,
            usage=Usage(
                input_tokens=prompt,
                output_tokens=as_int(usage.get("output_tokens") or 0, "usage.output_tokens"),
                cached_input_tokens=_cache_read(usage),
            ),
            stop_reason=as_str(data.get("stop_reason") or "", "stop_reason").lower(),
            model=as_str(data.get("model") or "", "model"),
        )

    def assembler(self) -> AnthropicStreamAssembler:
        """A fresh assembler of Messages stream events."""
        return AnthropicStreamAssembler()


def _cache_read(usage: dict[str, Any]) -> int | None:
    """``cache_read_input_tokens`` (part of the input count), ``None`` when not reported."""
    read = usage.get("cache_read_input_tokens")
    if isinstance(read, bool) or not isinstance(read, int) or read < 0:
        return None
    return read


def encode_anthropic_messages(
    messages: tuple[ChatMessage, ...] | list[ChatMessage],
) -> list[dict[str, Any]]:
    """Neutral messages as Messages API turns.

    Consecutive ``tool`` messages become ``tool_result`` blocks of one user turn,
    followed by the text of a user message right after them. Reasoning is not sent
    back (the API would need the thinking block's signature, which is not kept).
    """
    out: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []

    def flush(text: str | None) -> None:
        if not results:
            if text is not None:
                out.append({"role": "user", "content": text})
            return
        blocks = list(results)
        if text:
            blocks.append({"type": "text", "text": text})
        out.append({"role": "user", "content": blocks})
        results.clear()

    for index, message in enumerate(messages):
        if message.role == "tool":
            if not message.tool_call_id:
                raise ValueError(f"messages[{index}]: a tool message needs a tool_call_id")
            results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": message.tool_call_id,
                    "content": message.content,
                }
            )
        elif message.role == "user":
            flush(message.content)
        elif message.role == "assistant":
            flush(None)
            out.append({"role": "assistant", "content": _assistant_content(message)})
        else:
            raise ValueError(
                f"messages[{index}]: role {message.role!r} cannot be sent as a message; "
                "the system prompt travels in the top-level 'system' field"
            )
    flush(None)
    return out


def _assistant_content(message: ChatMessage) -> str | list[dict[str, Any]]:
    if not message.tool_calls:
        return message.content
    return content_blocks(message.content, message.tool_calls)


def encode_anthropic_tools(tools: tuple[ToolSpec, ...] | list[ToolSpec]) -> list[dict[str, Any]]:
    """Tool specs with ``input_schema``."""
    return [
        {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
        for tool in tools
    ]


class AnthropicStreamAssembler:
    """Rebuilds a ``message`` object from Messages stream events."""

    def __init__(self) -> None:
        self._message: dict[str, Any] | None = None
        self._blocks: dict[int, dict[str, Any]] = {}
        self._json: dict[int, list[str]] = {}
        self._stopped = False

    @property
    def finished(self) -> bool:
        """``message_stop`` arrived."""
        return self._stopped

    @property
    def complete(self) -> bool:
        """Same as :attr:`finished`: the reply is whole only after ``message_stop``."""
        return self._stopped

    def feed(self, event: SseEvent) -> None:
        """Consume one event."""
        data = parse_json_object(event.data, f"{event.event} event")
        kind = data.get("type", event.event)
        if kind == "error":
            error = data.get("error")
            detail = error if not isinstance(error, dict) else error.get("message") or error
            raise StreamFailure(f"stream error: {detail}")
        if kind == "message_start":
            self._message = dict(as_object(data.get("message"), "message_start.message"))
            self._message["usage"] = dict(as_object(self._message.get("usage") or {}, "usage"))
            return
        if kind == "message_stop":
            self._started(kind)
            self._stopped = True
            return
        if kind == "message_delta":
            message = self._started(kind)
            delta = as_object(data.get("delta") or {}, "message_delta.delta")
            for key in ("stop_reason", "stop_sequence"):
                if key in delta:
                    message[key] = delta[key]
            message["usage"].update(as_object(data.get("usage") or {}, "message_delta.usage"))
            return
        if kind not in _BLOCK_EVENTS:
            return  # ping, and event types newer than this client
        self._started(kind)
        index = as_int(data.get("index"), f"{kind}.index")
        if kind == "content_block_start":
            self._blocks[index] = dict(
                as_object(data.get("content_block"), f"{kind}.content_block")
            )
        elif kind == "content_block_delta":
            self._apply_delta(index, as_object(data.get("delta"), f"{kind}.delta"))
        else:
            self._finish_block(index)

    def _started(self, kind: str) -> dict[str, Any]:
        if self._message is None:
            raise WireFormatError(f"{kind} event before message_start")
        return self._message

    def _apply_delta(self, index: int, delta: dict[str, Any]) -> None:
        block = self._blocks.get(index)
        if block is None:
            raise WireFormatError(f"content_block_delta for unknown block {index}")
        kind = delta.get("type")
        if kind == "text_delta":
            block["text"] = block.get("text", "") + as_str(delta.get("text"), "delta.text")
        elif kind == "input_json_delta":
            self._json.setdefault(index, []).append(
                as_str(delta.get("partial_json"), "delta.partial_json")
            )
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + as_str(
                delta.get("thinking"), "delta.thinking"
            )
        elif kind == "signature_delta":
            block["signature"] = as_str(delta.get("signature"), "delta.signature")

    def _finish_block(self, index: int) -> None:
        block = self._blocks.get(index)
        pieces = self._json.pop(index, None)
        if block is None or pieces is None:
            return
        text = "".join(pieces)
        block["input"] = parse_json_object(text, f"content[{index}].input") if text.strip() else {}

    def result(self) -> dict[str, Any]:
        """The reassembled ``message`` object."""
        message = dict(self._started("message_stop"))
        message["content"] = [block for _, block in sorted(self._blocks.items())]
        return message


_BLOCK_EVENTS = frozenset({"content_block_start", "content_block_delta", "content_block_stop"})
