"""mini-vela's raw call logs, read and mapped to adhere's call records. Pure.

mini-vela (the OctoBench harness) records calls with a callback of its logging proxy
that appends one JSON object a line to ``<session_id>.jsonl``::

    {"session_id": "<instance id>", "biz_id": "", "request_time": <ms since epoch>,
     "request_body": {"messages": [...], "system": [...], "tools": [...],
                      "model": "...", "max_tokens": N, "metadata": {}},
     "response_body": {"content": [<Anthropic content blocks>]}}

What the format means for an importer:

- **Each call is logged twice.** The logging proxy runs both the synchronous and the
  asynchronous success hook of a callback, and mini-vela's asynchronous hook calls the
  synchronous one, so every call is written twice, milliseconds apart, with the same
  ``request_body`` and ``response_body``. :func:`dedupe` pairs identical lines of a
  session in time order and keeps the first of each pair; a line without a twin is
  kept (a genuine repeat of a call shows up as two pairs).
- Only successful calls are logged (the failure hooks do nothing), so every call
  reads as status 200.
- ``response_body.content`` is Anthropic content (``thinking``, ``text``,
  ``tool_use``) whatever the endpoint spoke, and ``tools`` are in Anthropic's form.
  ``messages`` are what the scaffold sent: Anthropic turns for Claude Code and Droid,
  OpenAI chat messages for Kilo (system and ``tool`` roles, ``tool_calls``).
  :func:`proxy_calls` records every call in the Anthropic shape; OpenAI-shaped
  conversations are carried over through the neutral messages (a ``system`` message
  in the middle of the conversation becomes a user turn, since the Anthropic shape
  has no other place for it).
- The log does not say whether a call streamed (the proxy hands the callback the
  assembled response either way): imported calls read ``stream: false``.
- ``request_time`` is taken when the hook runs, after the answer; it becomes the
  record's ``started_at``; durations and token usage are not logged (0 and ``null``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from adhere.artifacts import ProxyCall
from adhere.core import ChatMessage
from adhere.errors import SpecError
from adhere.observe._outcomes import call_outcome
from adhere.wire import decode_call
from adhere.wire.anthropic import encode_anthropic_messages

__all__ = ["MINI_VELA_FORMAT", "MiniVelaLine", "dedupe", "parse_log", "proxy_calls"]

MINI_VELA_FORMAT = (
    "a mini-vela log line: a JSON object with session_id (text), request_time "
    "(milliseconds), request_body (an object with a messages list) and response_body "
    "(an object with a content list)"
)
"""What every line of a mini-vela log must be, named in the errors about one that is not."""

_OPENAI_ROLES = frozenset({"system", "developer", "tool"})


class _Body(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)

    messages: list[dict[str, Any]]
    model: str = ""


class _Response(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)

    content: list[dict[str, Any]]


class _Line(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)

    session_id: str = Field(min_length=1)
    request_time: Any  # a number, checked before
    request_body: _Body
    response_body: _Response


@dataclass(frozen=True)
class MiniVelaLine:
    """One line of a mini-vela log, checked, with where it came from.

    Attributes:
        session: ``session_id`` (mini-vela's instance id).
        request_time: ``request_time`` in milliseconds since the epoch.
        request: ``request_body`` as logged.
        response: ``response_body`` as logged.
        where: ``file:line``, for messages.
    """

    session: str
    request_time: float
    request: dict[str, Any]
    response: dict[str, Any]
    where: str

    @property
    def model(self) -> str:
        """The model the call asked for (``request_body.model``)."""
        value = self.request.get("model")
        return value if isinstance(value, str) else ""


def _line(data: Any, where: str) -> MiniVelaLine:
    if not isinstance(data, dict):
        raise SpecError(f"expected {MINI_VELA_FORMAT}, got {type(data).__name__}", file=where)
    if {"seq", "api", "request"} <= set(data):
        raise SpecError(
            "this is a call record in adhere's own format (calls.jsonl), not a mini-vela "
            "log line: it needs no import",
            file=where,
        )
    moment = data.get("request_time")
    if "request_time" in data and (isinstance(moment, bool) or not isinstance(moment, int | float)):
        raise SpecError(
            f"expected a number of milliseconds; {MINI_VELA_FORMAT}",
            file=where,
            field="request_time",
        )
    try:
        _Line.model_validate(data)
    except ValidationError as exc:
        problem = exc.errors()[0]
        field = ".".join(str(part) for part in problem["loc"])
        raise SpecError(
            f"{problem['msg']}; expected {MINI_VELA_FORMAT}", file=where, field=field
        ) from None
    return MiniVelaLine(
        session=data["session_id"],
        request_time=float(data["request_time"]),
        request=data["request_body"],
        response=data["response_body"],
        where=where,
    )


def parse_log(text: str, path: str) -> list[MiniVelaLine]:
    """The lines of one mini-vela log file (blank lines skipped).

    Raises:
        SpecError: A line is not JSON or not a mini-vela log line; the error names the
            file, the line and the field.
    """
    out = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(raw)
        except ValueError as exc:
            raise SpecError(
                f"not valid JSON ({exc}); expected {MINI_VELA_FORMAT}", file=where
            ) from None
        out.append(_line(data, where))
    return out


def _content_key(line: MiniVelaLine) -> str:
    return json.dumps([line.request, line.response], sort_keys=True, ensure_ascii=False)


def dedupe(lines: Iterable[MiniVelaLine]) -> tuple[list[MiniVelaLine], int, int]:
    """The calls of a session's lines, each logged twice, in time order.

    Identical lines (same request and response) are paired in time order; the first
    of each pair is kept.

    Returns:
        The kept lines, how many copies were dropped, and how many kept lines had no
        twin (a log written by something other than mini-vela's double hook).
    """
    ordered = sorted(lines, key=lambda line: line.request_time)  # stable: file order on ties
    waiting: dict[str, int] = {}
    kept: list[MiniVelaLine] = []
    dropped = 0
    for line in ordered:
        key = _content_key(line)
        if waiting.get(key, 0) > 0:
            waiting[key] -= 1
            dropped += 1
            continue
        waiting[key] = waiting.get(key, 0) + 1
        kept.append(line)
    return kept, dropped, sum(waiting.values())


def _openai_shaped(messages: Sequence[dict[str, Any]]) -> bool:
    return any(
        m.get("role") in _OPENAI_ROLES or "tool_calls" in m or "tool_call_id" in m for m in messages
    )


@dataclass(frozen=True)
class _Shape:
    """Just enough of a recorded call for :func:`adhere.wire.decode_call`."""

    api: str
    request: Any
    response: Any = None
    status: int | None = 200
    error: str | None = None


def _anthropic_request(line: MiniVelaLine) -> dict[str, Any]:
    """The call's request in the Anthropic shape (as logged when it already is)."""
    body = dict(line.request)
    messages = body["messages"]
    if not _openai_shaped(messages):
        return body
    view = decode_call(_Shape("openai-chat", {"messages": messages}), 0)
    assert view is not None  # a dict request always decodes
    turns = [
        m if m.role != "system" else ChatMessage(role="user", content=m.content)
        for m in view.messages
    ]
    try:
        body["messages"] = encode_anthropic_messages(turns)
    except ValueError as exc:
        raise SpecError(str(exc), file=line.where, field="request_body.messages") from None
    logged = body.get("system")
    if view.system and not logged:
        body["system"] = view.system
    elif view.system:
        extra = [{"type": "text", "text": view.system}]
        body["system"] = [*logged, *extra] if isinstance(logged, list) else [logged, *extra]
    return body


def _iso(milliseconds: float) -> str:
    return datetime.fromtimestamp(milliseconds / 1000, UTC).isoformat(timespec="milliseconds")


def proxy_calls(lines: Sequence[MiniVelaLine], trial_id: str) -> list[ProxyCall]:
    """The call records (adhere's format) of a session's deduplicated lines, in time order."""
    out = []
    for seq, line in enumerate(sorted(lines, key=lambda line: line.request_time)):
        stream = line.request.get("stream")
        out.append(
            ProxyCall(
                seq=seq,
                trial=trial_id,
                upstream="mini-vela",
                api="anthropic",
                method="POST",
                path="/v1/messages",
                query="",
                stream=stream is True,
                request=_anthropic_request(line),
                status=200,
                response=line.response,
                sse_events=0,
                error=None,
                started_at=_iso(line.request_time),
                duration_seconds=0.0,
                ttfb_seconds=None,
                usage=None,
                outcome=call_outcome("anthropic", 200, line.response, None),
            )
        )
    return out
