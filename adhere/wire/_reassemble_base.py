"""What every stream reassembler has in common: the protocol and SSE/JSON helpers."""

from __future__ import annotations

import json
from typing import Any, Literal, Protocol

from adhere.wire._sse import SseDecoder, SseEvent

__all__ = ["Api", "Reassembler", "StreamErrors", "decode_sse", "error_text", "event_json"]

Api = Literal["anthropic", "openai-chat", "openai-responses", "gemini"]
"""The four API shapes the proxy understands."""


class Reassembler(Protocol):
    """Rebuilds one API's non-streaming response from its stream events."""

    @property
    def complete(self) -> bool:
        """Whether the stream's final event (or an equivalent) has arrived."""
        ...

    @property
    def error(self) -> str | None:
        """The error the stream itself reported, if any."""
        ...

    def feed(self, event: SseEvent) -> None:
        """Consume one event; never raises."""
        ...

    def result(self) -> dict[str, Any] | None:
        """The response so far in the non-streaming shape; ``None`` if nothing arrived."""
        ...


class StreamErrors:
    """Base of the reassemblers: keeps the error a stream reported (see :class:`Reassembler`)."""

    def __init__(self) -> None:
        self._error: str | None = None

    @property
    def error(self) -> str | None:
        """The error the stream itself reported, if any."""
        return self._error

    def _report(self, error: Any) -> None:
        """Note an error object (any of the APIs' shapes) sent inside the stream."""
        self._error = f"stream error: {error_text(error)}"


def event_json(event: SseEvent) -> dict[str, Any] | None:
    """The event's data as a JSON object, or ``None`` when it is not one."""
    try:
        value = json.loads(event.data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def decode_sse(body: bytes) -> list[SseEvent]:
    """Every event of an SSE body; an unterminated last event is kept too."""
    decoder = SseDecoder()
    events = []
    for line in body.decode("utf-8", errors="replace").split("\n"):
        event = decoder.feed(line)
        if event is not None:
            events.append(event)
    last = decoder.feed("")
    if last is not None:
        events.append(last)
    return events


def error_text(error: Any) -> str:
    """A short description of an error value in any of the APIs' error shapes."""
    if isinstance(error, dict):
        message = error.get("message")
        kind = error.get("type") or error.get("status") or error.get("code")
        if isinstance(message, str) and message:
            return f"{kind}: {message}" if isinstance(kind, str) and kind else message
        return json.dumps(error, ensure_ascii=False)[:300]
    return str(error)
