"""What a forwarded call amounted to, read from the bytes the recording proxy relayed.

The proxy keeps the request body and the response bytes as they passed; once the
call is over, :func:`parse_body` and :func:`read_answer` turn them into the record's
``request``, ``response``, ``sse_events``, ``error`` and ``usage``: an SSE stream is
reassembled into the API's non-streaming response, Gemini's JSON-array stream too,
and a non-2xx answer or a stream that failed gives the record's error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from adhere.wire._apis import error_summary, usage_of
from adhere.wire._reassemble import Reassembly, reassemble
from adhere.wire._reassemble_base import Api, decode_sse
from adhere.wire._sse import is_event_stream
from adhere.wire.gemini._reassemble import GeminiReassembler

__all__ = ["MAX_RAW_CHARS", "RecordedAnswer", "parse_body", "read_answer"]

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


@dataclass(frozen=True)
class RecordedAnswer:
    """What upstream's answer amounted to (unredacted).

    Attributes:
        response: The response document; a stream reassembled into the non-streaming
            shape; ``None`` when nothing came.
        sse_events: How many SSE events were decoded (0 when not an SSE stream).
        error: Why the call failed, or ``None``.
        usage: ``{"input_tokens", "output_tokens"}`` from the response, or ``None``.
    """

    response: Any
    sse_events: int
    error: str | None
    usage: dict[str, int] | None


def read_answer(
    api: Api, status: int | None, content_type: str, body: bytes, failure: str | None = None
) -> RecordedAnswer:
    """Read upstream's answer to one call.

    Args:
        api: The call's API shape.
        status: Upstream's HTTP status; ``None`` when none arrived.
        content_type: Upstream's content type.
        body: The response bytes relayed.
        failure: Why forwarding failed, as the proxy saw it (it wins over what the
            answer itself says).
    """
    response, events, problem = _response(api, status, content_type, body)
    error = failure
    if error is None and status is not None and not 200 <= status < 300:
        if problem is not None:
            error = f"HTTP {status}: {problem}"
        else:
            error = error_summary(status, response, body.decode("utf-8", "replace"))
    return RecordedAnswer(response, events, error or problem, usage_of(api, response))


def _response(
    api: Api, status: int | None, content_type: str, body: bytes
) -> tuple[Any, int, str | None]:
    """The response document, the SSE event count, and a problem found in the stream."""
    if status is None and not body:
        return None, 0, None
    if is_event_stream(content_type):
        outcome = reassemble(api, decode_sse(body))
        if outcome.response is None and body.strip():
            return parse_body(body), outcome.events, outcome.error
        return outcome.response, outcome.events, _stream_problem(outcome, status)
    document = parse_body(body)
    if api == "gemini" and isinstance(document, list):
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
