"""Turning a recorded stream back into the API's non-streaming response, for the log.

One reassembler per API shape. Each is lenient, unlike the model clients' stream
assemblers: it never raises, skips events that are not JSON, and keeps whatever it
got when a stream breaks off, because a recording of a broken call is still worth
having. :func:`reassemble` takes the events of a whole stream at once (the proxy
keeps the relayed bytes and reassembles after the stream ends, so relaying is never
slowed by it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from adhere.wire._reassemble_base import Api, Reassembler
from adhere.wire._sse import SseEvent
from adhere.wire.anthropic._reassemble import AnthropicReassembler
from adhere.wire.gemini._reassemble import GeminiReassembler
from adhere.wire.openai_chat._reassemble import ChatReassembler
from adhere.wire.openai_responses._reassemble import ResponsesReassembler

__all__ = ["Api", "Reassembly", "reassemble", "reassembler_for"]

_KINDS: dict[str, type[Reassembler]] = {
    "anthropic": AnthropicReassembler,
    "openai-chat": ChatReassembler,
    "openai-responses": ResponsesReassembler,
    "gemini": GeminiReassembler,
}


@dataclass(frozen=True)
class Reassembly:
    """What a stream amounted to.

    Attributes:
        response: The non-streaming response shape, ``None`` when nothing usable came.
        events: How many SSE events were decoded.
        complete: Whether the stream reached its final event.
        error: An error reported inside the stream, if any.
    """

    response: dict[str, Any] | None
    events: int
    complete: bool
    error: str | None


def reassembler_for(api: Api) -> Reassembler:
    """A fresh reassembler for the API shape."""
    return _KINDS[api]()


def reassemble(api: Api, events: Iterable[SseEvent]) -> Reassembly:
    """Feed every event to a fresh reassembler and collect the outcome."""
    reassembler = reassembler_for(api)
    count = 0
    for event in events:
        count += 1
        reassembler.feed(event)
    return Reassembly(reassembler.result(), count, reassembler.complete, reassembler.error)
