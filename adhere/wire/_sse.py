"""Server-sent events: decoding a stream of lines into events, and encoding one event."""

from __future__ import annotations

import codecs
import re
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass

__all__ = [
    "SSE_CONTENT_TYPE",
    "SseDecoder",
    "SseEvent",
    "encode_sse",
    "is_event_stream",
    "iter_lines",
    "iter_sse",
]

SSE_CONTENT_TYPE = "text/event-stream; charset=utf-8"
"""The content type a server sends a stream of events with."""

_LINE_END = re.compile(r"\r\n|\r|\n")


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


async def iter_lines(chunks: AsyncIterable[bytes]) -> AsyncIterator[str]:
    """Lines (without line endings) of a UTF-8 byte stream cut anywhere.

    Lines end at CRLF, CR or LF, as SSE says, and at nothing else (a U+2028 inside
    JSON data is not a line end); lines may be of any length. A last line without an
    ending is yielded too.
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending = ""
    async for final, chunk in _with_end(chunks):
        # ``pending`` holds no line end but perhaps a last CR: rescan from there.
        scan = max(0, len(pending) - 1)
        pending += decoder.decode(chunk, final=final)
        start = 0
        for match in _LINE_END.finditer(pending, scan):
            if not final and match.group() == "\r" and match.end() == len(pending):
                break  # perhaps the first half of a CRLF cut between chunks
            yield pending[start : match.start()]
            start = match.end()
        pending = pending[start:]
    if pending:
        yield pending


async def _with_end(chunks: AsyncIterable[bytes]) -> AsyncIterator[tuple[bool, bytes]]:
    async for chunk in chunks:
        yield False, chunk
    yield True, b""


async def iter_sse(lines: AsyncIterable[str]) -> AsyncIterator[SseEvent]:
    """Events of a line stream; an unterminated last event is dropped, as SSE says."""
    decoder = SseDecoder()
    async for line in lines:
        event = decoder.feed(line)
        if event is not None:
            yield event


def is_event_stream(content_type: str) -> bool:
    """Whether a response's content type says server-sent events."""
    return "text/event-stream" in content_type


def encode_sse(data: str, event: str | None = None) -> bytes:
    """Bytes of one event, ``event:`` line first when named."""
    head = f"event: {event}\n" if event else ""
    body = "".join(f"data: {line}\n" for line in data.split("\n"))
    return f"{head}{body}\n".encode()
