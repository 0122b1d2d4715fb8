"""The recorded model call: one record per call the recording proxy forwarded.

The recording proxy builds a :class:`ProxyCall` once a call is over (answered,
failed or cut), redacted; its sinks keep or write it; the runner takes a trial's
calls and stores them as ``calls.jsonl``, one JSON object a line; the normalizer
reads them into a trajectory. The JSON form is documented field by field in
``docs/proxy.md`` and is what :meth:`ProxyCall.to_json_dict` returns.

Not to be confused with ``adhere.models.CallRecord``: that is the HTTP model client's
record of one attempt of its own calls (judges, checklist generation), never stored
here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from adhere.errors import SpecError

__all__ = ["CALL_RECORD_FORMAT", "ProxyCall"]

CALL_RECORD_FORMAT = (
    "adhere's call record (one JSON object a line with seq, trial, upstream, api, method, "
    "path, query, stream, request, status, response, sse_events, error, started_at, "
    "duration_seconds, ttfb_seconds, usage; see docs/proxy.md, 'The record')"
)
"""What a call log's records must be, named in the errors about records that are not."""

_MINI_VELA_KEYS = frozenset({"session_id", "request_body", "response_body"})
_OWN_KEYS = frozenset({"seq", "api", "request"})


def _foreign_record(keys: frozenset[str] | set[str]) -> str | None:
    """Why an object with these keys is not a call record at all, or ``None`` if it may be.

    A record that has none of ``seq``, ``api`` and ``request`` is another format, not
    a call record with a field wrong; mini-vela's logs are named, with their importer.
    """
    if keys & _OWN_KEYS:
        return None
    shown = ", ".join(sorted(keys)[:8]) or "none"
    why = f"not a call record: expected {CALL_RECORD_FORMAT}; this record has keys {shown}"
    if _MINI_VELA_KEYS <= keys:
        why += (
            ". It is a mini-vela log line: import such logs with "
            "`adhere import mini-vela DIR --out RUN`"
        )
    return why


class ProxyCall(BaseModel):
    """One model call as the recording proxy saw it, secrets redacted.

    Attributes:
        seq: 0-based number of the call within its trial, in order of arrival.
        trial: Trial id from the path.
        upstream: Upstream name from the path.
        api: ``anthropic``, ``openai-chat``, ``openai-responses`` or ``gemini``.
        method: HTTP method.
        path: API path, e.g. ``/v1/messages``.
        query: Query string as the client sent it, redacted.
        stream: Whether the client asked for a stream.
        request: The parsed JSON body; ``{"_raw": text}`` when not JSON; ``None``
            when empty.
        status: Upstream's HTTP status; ``None`` when upstream never answered.
        response: The response body, a stream reassembled into the non-streaming
            shape of its API; ``None`` when nothing came.
        sse_events: Server-sent events received (0 when not an SSE stream).
        error: Why the call failed; ``None`` on success.
        started_at: ISO 8601 UTC time the request arrived.
        duration_seconds: Arrival to the end of the response to the client.
        ttfb_seconds: Arrival to the first response-body bytes from upstream.
        usage: ``{"input_tokens", "output_tokens"}`` from the response, plus
            ``reasoning_tokens`` when the response reports them; ``None`` when it has
            no usage.
        outcome: What the call amounted to: ``ok``, a model-side outcome
            (``context_length``, ``refusal``, ``max_tokens``, ``empty``), an upstream
            fault (``unreachable``, ``timeout``, ``rate_limited``, ``server_error``,
            ``cut``) or another failure (``rejected``, ``client_gone``,
            ``cancelled``); see ``docs/proxy.md``. ``None`` in records written before
            the field existed (``adhere.observe.outcome_of`` classifies those).
        upstream_call: For a call translated into the upstream's API shape, what went
            upstream and came back: ``api``, ``path``, ``request``, ``status``,
            ``response`` (a stream reassembled), ``sse_events``, ``error`` and
            ``usage``, as above; ``None`` for a call forwarded as it came (the fields
            above are then both sides). The fields above are always the scaffold's side.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    seq: int
    trial: str
    upstream: str
    api: str
    method: str
    path: str
    query: str
    stream: bool
    request: Any
    status: int | None
    response: Any
    sse_events: int
    error: str | None
    started_at: str
    duration_seconds: float
    ttfb_seconds: float | None
    usage: dict[str, int] | None
    outcome: str | None = None
    upstream_call: dict[str, Any] | None = None

    @property
    def reasoning_tokens(self) -> int | None:
        """Output tokens the model spent thinking, as the upstream reported them.

        The upstream's side of a translated call (the scaffold's shape may have no such
        count); ``None`` when the reply did not say (Anthropic never does).
        """
        usage = (self.upstream_call or {}).get("usage") if self.upstream_call else self.usage
        value = usage.get("reasoning_tokens") if isinstance(usage, dict) else None
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def to_json_dict(self) -> dict[str, Any]:
        """The record as a JSON object, its keys in the documented order.

        ``upstream_call`` is left out when ``None`` (a call forwarded as it came), so
        such records read as they always have.
        """
        data = self.model_dump()
        if data["upstream_call"] is None:
            del data["upstream_call"]
        return data

    def to_json_line(self) -> str:
        """The record as one line of ``calls.jsonl`` (no newline)."""
        return json.dumps(self.to_json_dict(), ensure_ascii=False)

    @classmethod
    def from_json_dict(cls, data: Mapping[str, Any], *, where: str = "") -> ProxyCall:
        """Read a record back from its JSON object.

        Args:
            data: The object.
            where: What it was read from (a file and line), for errors.

        Raises:
            SpecError: A field is missing, unknown or of the wrong type (the error
                names it), or the object is another format altogether (the error
                names the format expected).
        """
        if not isinstance(data, Mapping):
            raise SpecError(
                f"a call record must be a JSON object, got {type(data).__name__}; "
                f"expected {CALL_RECORD_FORMAT}",
                file=where or None,
            )
        foreign = _foreign_record(frozenset(str(key) for key in data))
        if foreign is not None:
            raise SpecError(foreign, file=where or None)
        try:
            return cls.model_validate(dict(data))
        except ValidationError as exc:
            problem = exc.errors()[0]
            field = ".".join(str(part) for part in problem["loc"])
            raise SpecError(
                f"malformed call record: {problem['msg']}", file=where or None, field=field
            ) from None

    @classmethod
    def from_json_line(cls, line: str, *, where: str = "") -> ProxyCall:
        """Read a record back from one line of ``calls.jsonl``.

        Raises:
            SpecError: The line is not JSON, or not a valid record (naming the field).
        """
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise SpecError(
                f"a call record is not valid JSON ({exc})", file=where or None
            ) from None
        return cls.from_json_dict(data, where=where)
