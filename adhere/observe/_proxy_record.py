"""One proxied call: what was seen while forwarding it, and the redacted record built from it.

The record is an :class:`adhere.artifacts.ProxyCall` (fields in ``docs/proxy.md``);
what the answer amounted to (the response reassembled, the error, the usage) is read
by :func:`adhere.wire.read_answer`, and the call's outcome by
:func:`~adhere.observe._outcomes.call_outcome`. While a stream is relayed,
:meth:`CallLog.stream_final` watches for its final event (:class:`adhere.wire.StreamEnd`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from adhere.artifacts import ProxyCall
from adhere.core import plain_text
from adhere.observe._outcomes import call_outcome
from adhere.observe._redact import Redactor
from adhere.wire import Api, RecordedAnswer, StreamEnd, is_event_stream, read_answer

__all__ = ["CallLog", "UpstreamSide"]


class _StreamWatch:
    """Watches relayed stream bytes for the API's final event (:class:`StreamEnd`)."""

    api: Api
    content_type: str
    body: bytearray
    _end: StreamEnd | None = None
    _watched: int = 0

    def _watch(self) -> StreamEnd | None:
        """The stream's end watcher, fed with the bytes relayed since the last look."""
        if self._end is None:
            if not is_event_stream(self.content_type):
                return None
            self._end = StreamEnd(self.api)
        if self._watched < len(self.body):
            self._end.feed(bytes(self.body[self._watched :]))
            self._watched = len(self.body)
        return self._end

    def stream_final(self) -> bool:
        """The API's last stream event has been relayed: nothing more may come."""
        end = self._watch()
        return end is not None and end.final

    def reply_ended(self) -> bool:
        """The reply has been relayed whole (its final event, or a finish reason)."""
        end = self._watch()
        return end is not None and end.ended


@dataclass
class UpstreamSide(_StreamWatch):
    """What went upstream and came back, for a call translated into the upstream's shape."""

    api: Api
    path: str
    request: dict[str, Any]
    status: int | None = None
    content_type: str = ""
    body: bytearray = field(default_factory=bytearray)
    answer: RecordedAnswer | None = None
    """What the answer amounted to, once read (the translation reads it first)."""

    def record(self, redactor: Redactor, failure: str | None) -> dict[str, Any]:
        """The ``upstream_call`` field of the call's record, redacted."""
        answer = self.answer
        if answer is None or failure is not None:
            body = bytes(self.body)
            answer = read_answer(self.api, self.status, self.content_type, body, failure)
        return {
            "api": self.api,
            "path": redactor.text(self.path),
            "request": redactor.value(self.request),
            "status": self.status,
            "response": redactor.value(answer.response),
            "sse_events": answer.sse_events,
            "error": plain_text(redactor.text(answer.error)) if answer.error is not None else None,
            "usage": answer.usage,
        }


@dataclass
class CallLog(_StreamWatch):
    """What the proxy saw of one call while forwarding it (unredacted; never stored as is).

    Attributes:
        seq: 0-based number of the call within its trial, in order of arrival.
        trial: Trial id from the path.
        upstream: Upstream name from the path.
        api: The call's API shape.
        method: HTTP method.
        path: API path forwarded upstream (without the ``/t/<trial>/<upstream>`` prefix).
        query: Query string as the client sent it.
        request: The parsed request body (see :func:`adhere.wire.parse_body`).
        stream: Whether the client asked for a stream.
        status: Upstream's HTTP status; ``None`` while (or when) none arrived.
        content_type: Upstream's content type.
        body: The response bytes relayed so far.
        error: Why the call failed, as the proxy saw it (unreachable, timeout, cut).
        ttfb_seconds: Arrival to the first response-body bytes from upstream.
        translated: The upstream side of a translated call (``body`` above is then
            what the client was sent); ``None`` when forwarded as it came.
        answered: What ``body`` amounts to, when the translation knows it already.
        upstream_error: Why the upstream side of a translated call failed (the
            client's side may have been answered with a translated error).
        settled: The call was still in flight when its trial was settled, and was
            ended then (see :class:`~adhere.observe._proxy_inflight.InFlight`).
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
    translated: UpstreamSide | None = None
    answered: RecordedAnswer | None = None
    upstream_error: str | None = None
    settled: bool = False

    def first_bytes(self) -> None:
        """Note the arrival of the first response bytes (only the first call counts)."""
        if self.ttfb_seconds is None:
            self.ttfb_seconds = time.monotonic() - self.began

    def finish(self) -> None:
        """Note the end of the call (only the first call counts)."""
        if self.ended is None:
            self.ended = time.monotonic()

    def record(self, redactor: Redactor) -> ProxyCall:
        """The call's record, with every secret the redactor knows removed."""
        self.finish()
        assert self.ended is not None
        answer = self.answered
        if answer is None or self.error is not None:
            body = bytes(self.body)
            answer = read_answer(self.api, self.status, self.content_type, body, self.error)
        error = plain_text(redactor.text(answer.error)) if answer.error is not None else None
        return ProxyCall(
            seq=self.seq,
            trial=self.trial,
            upstream=self.upstream,
            api=self.api,
            method=self.method,
            path=redactor.text(self.path),
            query=redactor.query(self.query),
            stream=self.stream,
            request=redactor.value(self.request),
            status=self.status,
            response=redactor.value(answer.response),
            sse_events=answer.sse_events,
            error=error,
            started_at=self.started_at,
            duration_seconds=self.ended - self.began,
            ttfb_seconds=self.ttfb_seconds,
            usage=answer.usage,
            outcome=call_outcome(self.api, self.status, answer.response, answer.error),
            upstream_call=None
            if self.translated is None
            else self.translated.record(redactor, self.upstream_error or self.error),
        )
