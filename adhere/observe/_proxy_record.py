"""One proxied call's record: what was seen while forwarding, and the redacted dict built from it.

The record (one per call, see ``docs/proxy.md``)::

    seq, trial, upstream, api, method, path, query, stream, request, status,
    response, sse_events, error, started_at, duration_seconds, ttfb_seconds, usage
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from adhere.observe._redact import Redactor
from adhere.wire import Api, Reassembly, decode_sse, error_summary, reassemble, usage_of
from adhere.wire.gemini import GeminiReassembler

__all__ = ["MAX_RAW_CHARS", "CallLog", "parse_body"]

MAX_RAW_CHARS = 1_000_000
"""Bodies that are not JSON are kept as text under ``_raw``, cut to this many characters."""


def parse_body(body: bytes) -> Any:
    """A body as JSON, ``{"_raw": text}`` when it is not JSON, ``None`` when empty."""
    if not body.strip():
        return None
    try:
        return json.loads(body)
    except ValueError:
        text = body.decode("utf-8", errors="replace")
        if len(text) > MAX_RAW_CHARS:
            text = f"{text[:MAX_RAW_CHARS]}…[{len(text) - MAX_RAW_CHARS} more characters]"
        return {"_raw": text}


@dataclass
class CallLog:
    """What the proxy saw of one call while forwarding it (unredacted; never stored as is).

    Attributes:
        seq: 0-based number of the call within its trial, in order of arrival.
        trial: Trial id from the path.
        upstream: Upstream name from the path.
        api: The call's API shape.
        method: HTTP method.
        path: API path forwarded upstream (without the ``/t/<trial>/<upstream>`` prefix).
        query: Query string as the client sent it.
        request: The parsed request body (see :func:`parse_body`).
        stream: Whether the client asked for a stream.
        status: Upstream's HTTP status; ``None`` while (or when) none arrived.
        content_type: Upstream's content type.
        body: The response bytes relayed so far.
        error: Why the call failed, as the proxy saw it (unreachable, timeout, cut).
        ttfb_seconds: Arrival to the first response-body bytes from upstream.
    """

    seq: int
    trial: str
    upstream: str
    api: Api
    method: str
    path: str
    query: str
    request: Any = None
    stream: bool = False
    status: int | None = None
    content_type: str = ""
    body: bytearray = field(default_factory=bytearray)
    error: str | None = None
    ttfb_seconds: float | None = None
    started_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())
    began: float = field(default_factory=time.monotonic)
    ended: float | None = None

    def first_bytes(self) -> None:
        """Note the arrival of the first response bytes (only the first call counts)."""
        if self.ttfb_seconds is None:
            self.ttfb_seconds = time.monotonic() - self.began

    def finish(self) -> None:
        """Note the end of the call (only the first call counts)."""
        if self.ended is None:
            self.ended = time.monotonic()

    def record(self, redactor: Redactor) -> dict[str, Any]:
        """The call's record, with every secret the redactor knows removed."""
        self.finish()
        assert self.ended is not None
        response, events, problem = self._response()
        error = self.error
        if error is None and self.status is not None and not 200 <= self.status < 300:
            if problem is not None:
                error = f"HTTP {self.status}: {problem}"
            else:
                text = self.body.decode("utf-8", "replace")
                error = error_summary(self.status, response, text)
        error = error or problem
        return {
            "seq": self.seq,
            "trial": self.trial,
            "upstream": self.upstream,
            "api": self.api,
            "method": self.method,
            "path": redactor.text(self.path),
            "query": redactor.query(self.query),
            "stream": self.stream,
            "request": redactor.value(self.request),
            "status": self.status,
            "response": redactor.value(response),
            "sse_events": events,
            "error": redactor.text(error) if error is not None else None,
            "started_at": self.started_at,
            "duration_seconds": self.ended - self.began,
            "ttfb_seconds": self.ttfb_seconds,
            "usage": usage_of(self.api, response),
        }

    def _response(self) -> tuple[Any, int, str | None]:
        """The response document, the SSE event count, and a problem found in the stream."""
        if self.status is None and not self.body:
            return None, 0, None
        if "text/event-stream" in self.content_type:
            outcome = reassemble(self.api, decode_sse(bytes(self.body)))
            if outcome.response is None and self.body.strip():
                return parse_body(bytes(self.body)), outcome.events, outcome.error
            return outcome.response, outcome.events, _stream_problem(outcome, self.status)
        document = parse_body(bytes(self.body))
        if self.api == "gemini" and isinstance(document, list):
            return _gemini_array(document), 0, None
        return document, 0, None


def _stream_problem(outcome: Reassembly, status: int | None) -> str | None:
    if outcome.error is not None:
        return outcome.error
    if not outcome.complete and status is not None and 200 <= status < 300:
        return "the stream ended before its final event"
    return None


def _gemini_array(chunks: list[Any]) -> dict[str, Any] | None:
    """A JSON-array Gemini stream (``streamGenerateContent`` without ``alt=sse``)."""
    reassembler = GeminiReassembler()
    for chunk in chunks:
        if isinstance(chunk, dict):
            reassembler.feed_chunk(chunk)
    return reassembler.result()
