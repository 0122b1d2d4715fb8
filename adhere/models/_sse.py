"""Server-sent events: decoding a stream of lines into events, and encoding one event."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass

__all__ = ["SseDecoder", "SseEvent", "encode_sse", "iter_sse"]


@dataclass(frozen=True)
class SseEvent:
    """One dispatched event: its ``event:`` name (``message`` by default) and data."""

    event: str
    data: str


class SseDecoder:
    """Turns lines (without line endings) into events, following the SSE rules.

    Comment lines (``:``) and unknown fields are ignored; several ``data:`` lines are
    joined with newlines; a blank line dispatches the event if it carried data.
    """

    def __init__(self) -> None:
        self._event = ""
        self._data: list[str] = []

    def feed(self, line: str) -> SseEvent | None:
        """Consume one line; return the event it completes, if any."""
        line = line.rstrip("\r")
        if not line:
            if not self._data:
                self._event = ""
                return None
            event = SseEvent(self._event or "message", "\n".join(self._data))
            self._event, self._data = "", []
            return event
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        return None


async def iter_sse(lines: AsyncIterable[str]) -> AsyncIterator[SseEvent]:
    """Events of a line stream; an unterminated last event is dropped, as SSE says."""
    decoder = SseDecoder()
    async for line in lines:
        event = decoder.feed(line)
        if event is not None:
            yield event


def encode_sse(data: str, event: str | None = None) -> bytes:
    """Bytes of one event, ``event:`` line first when named."""
    head = f"event: {event}\n" if event else ""
    body = "".join(f"data: {line}\n" for line in data.split("\n"))
    return f"{head}{body}\n".encode()
