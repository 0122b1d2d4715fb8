"""Lenient decoders: one recorded call (any of the four API shapes) → neutral messages.

The normalizer must never fail on what a CLI sent: unknown block types are kept as
bracketed text markers (``[image]``, ``[document]``), malformed JSON arguments are
kept as a string under ``_raw``, and a missing response just means no reply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from adhere.core import ChatMessage, ToolSpec
from adhere.wire.anthropic._decode import decode_anthropic
from adhere.wire.gemini._decode import decode_gemini
from adhere.wire.openai_chat._decode import decode_openai_chat
from adhere.wire.openai_responses._decode import decode_responses


class RecordedCall(Protocol):
    """What :func:`decode_call` reads of a recorded call (``adhere.artifacts.ProxyCall``)."""

    @property
    def api(self) -> str:
        """The call's API shape."""
        ...

    @property
    def request(self) -> Any:
        """The parsed request body."""
        ...

    @property
    def response(self) -> Any:
        """The response in the API's non-streaming shape, if any."""
        ...

    @property
    def status(self) -> int | None:
        """Upstream's HTTP status, if any."""
        ...

    @property
    def error(self) -> str | None:
        """Why the call failed, if it did."""
        ...


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


_DECODERS = {
    "anthropic": decode_anthropic,
    "openai": decode_openai_chat,
    "openai-chat": decode_openai_chat,
    "openai-responses": decode_responses,
    "gemini": decode_gemini,
}


def decode_call(record: RecordedCall, seq: int) -> CallView | None:
    """Decode one recorded call; None when its request is not a model call body."""
    request = record.request
    decoder = _DECODERS.get(record.api)
    if decoder is None or not isinstance(request, dict) or "_raw" in request:
        return None
    system, messages, tools, reply = decoder(request, record.response)
    status = record.status
    if status is not None and not 200 <= status < 300:
        reply = None
    return CallView(
        seq=seq,
        api=record.api,
        system=system,
        messages=tuple(messages),
        tools=tuple(tools),
        reply=reply,
        status=status,
        error=record.error,
    )
