"""What the server needs from each API: decode a request, encode a reply or an error."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from adhere.core import ChatMessage, ToolSpec, Usage
from adhere.wire._exchange import ApiName, Reply

__all__ = [
    "ApiCodec",
    "DecodedRequest",
    "Outgoing",
    "StopReason",
    "Target",
    "count_tokens",
    "fragments",
    "model_list",
    "reply_usage",
    "text_pieces",
]


StopReason = Literal["end", "tool_calls", "max_tokens", "stop_sequence", "refusal", "other"]
"""Why a reply ended, whatever the API: the turn ended, it called tools, it hit the
output cap, a stop sequence, a refusal or content filter, or something else."""


@dataclass(frozen=True)
class Target:
    """What a request's URL says besides the route (Gemini names model and streaming there).

    Attributes:
        model: The model named in the path (URL-decoded), or empty.
        stream: Whether the path asks for a stream (``:streamGenerateContent``).
        sse: Whether that stream is server-sent events (``?alt=sse``) rather than one
            JSON array of chunks.
    """

    model: str = ""
    stream: bool = False
    sse: bool = False


@dataclass(frozen=True)
class DecodedRequest:
    """A chat request in neutral terms.

    ``stream_as_array`` marks a stream asked for without server-sent events (Gemini's
    ``streamGenerateContent`` without ``alt=sse``): the chunks go out as one JSON array.
    """

    model: str
    system: str
    messages: tuple[ChatMessage, ...]
    tools: tuple[ToolSpec, ...]
    stream: bool
    include_usage: bool = False
    stream_as_array: bool = False


@dataclass(frozen=True)
class Outgoing:
    """A reply ready to encode: what to say, for whom, and its token counts.

    ``request`` is the decoded request being answered, when the codec needs it (the
    Responses API tells free-form tools apart by the tools offered). ``stop`` is why
    the reply ended, in neutral terms; ``None`` derives it from the reply (tool calls
    or the end of the turn). ``whole_deltas`` streams each text, reasoning text and
    argument string as one delta instead of a model's small pieces: a stream
    translated whole is sent at once, and pieces would only cost encoding work.
    """

    reply: Reply
    model: str
    ident: str
    created: int
    usage: Usage
    request: DecodedRequest | None = None
    stop: StopReason | None = None
    whole_deltas: bool = False

    def text_deltas(self, text: str) -> list[str]:
        """The stream deltas of a text: a few words each, or the text whole."""
        if self.whole_deltas:
            return [text] if text else []
        return text_pieces(text)

    def argument_deltas(self, text: str) -> list[str]:
        """The stream fragments of a JSON argument string (at least one, maybe empty)."""
        return [text] if self.whole_deltas else fragments(text)

    def stop_reason(self) -> StopReason:
        """Why the reply ended: :attr:`stop`, else ``tool_calls`` or ``end``."""
        if self.stop is not None:
            return self.stop
        return "tool_calls" if self.reply.tool_calls else "end"


class ApiCodec(Protocol):
    """One API's request decoding and reply/error encoding."""

    api: ApiName

    def decode(self, body: dict[str, Any], target: Target | None = None) -> DecodedRequest:
        """Decode a request body (raises ``WireFormatError`` naming the field)."""
        ...

    def reply_body(self, out: Outgoing) -> Any:
        """The non-streaming reply document (any JSON value)."""
        ...

    def reply_events(self, out: Outgoing, include_usage: bool) -> Iterator[bytes]:
        """The streaming reply, as encoded server-sent events."""
        ...

    def error_body(self, status: int, message: str, param: str | None = None) -> dict[str, Any]:
        """An error document in the API's own shape."""
        ...


def model_list(names: list[str]) -> dict[str, Any]:
    """The answer to ``GET /v1/models``, readable as both OpenAI's and Anthropic's list."""
    data = [
        {
            "id": name,
            "object": "model",
            "type": "model",
            "display_name": name,
            "created": 0,
            "created_at": "1970-01-01T00:00:00Z",
            "owned_by": "adhere-scripted-policy-server",
        }
        for name in names
    ]
    return {
        "object": "list",
        "data": data,
        "has_more": False,
        "first_id": names[0] if names else None,
        "last_id": names[-1] if names else None,
    }


def count_tokens(text: str) -> int:
    """Deterministic stand-in for a tokenizer: whitespace-separated words."""
    return len(text.split())


def reply_usage(request: DecodedRequest, reply: Reply) -> Usage:
    """Token counts of a request and its reply, by :func:`count_tokens`.

    Input counts the system prompt, every message's content and the JSON of earlier
    tool calls; output counts the reply's text, reasoning and tool-call JSON, and
    ``reasoning_tokens`` the reasoning alone (``None`` when the reply has none).
    """
    seen = [request.system]
    for message in request.messages:
        seen.append(message.content)
        seen.extend(_call_text(call.name, call.arguments) for call in message.tool_calls)
    said = [reply.text, reply.reasoning]
    said.extend(_call_text(call.name, call.arguments) for call in reply.tool_calls)
    return Usage(
        input_tokens=sum(count_tokens(text) for text in seen),
        output_tokens=sum(count_tokens(text) for text in said),
        reasoning_tokens=count_tokens(reply.reasoning) if reply.reasoning else None,
    )


_WORD = re.compile(r"\s*\S+\s*")


def text_pieces(text: str, words: int = 3) -> list[str]:
    """Split text into a few streaming deltas of about ``words`` words each."""
    tokens = _WORD.findall(text)
    if "".join(tokens) != text:  # whitespace-only text
        return [text] if text else []
    return ["".join(tokens[start : start + words]) for start in range(0, len(tokens), words)]


def fragments(text: str, size: int = 12) -> list[str]:
    """Split a JSON string into fixed-size fragments, as tool-call arguments stream."""
    return [text[start : start + size] for start in range(0, len(text), size)] or [""]


def _call_text(name: str, arguments: dict[str, Any]) -> str:
    return f"{name} {json.dumps(arguments, ensure_ascii=False)}"
