"""Raw call log → Trajectory.

Steps:

1. Each recorded call (:class:`adhere.artifacts.ProxyCall`) is decoded (any of the
   four API shapes) into the messages the model saw and the reply it gave
   (:func:`adhere.wire.decode_call`).
2. Calls are threaded: a call whose messages extend an earlier thread's conversation
   (its messages plus reply) continues that thread — the prefix-duplicate calls of a
   growing conversation merge into one. A call that extends nothing starts a new
   thread: a sub-agent, or an auxiliary call (titles, summaries) a CLI makes.
   Messages are compared by role, tool-call ids and text with
   ``<system-reminder>`` blocks removed, since CLIs rewrite reminders between calls.
3. The main thread is the one whose first user message holds the instance's first
   user turn (most calls wins a tie); the others are kept apart as ``subagents``.
4. Tool results are paired with their calls (the result message gets the tool's
   name); unanswered calls and orphan results are listed in ``meta``.
5. Long tool outputs and long tool-call string arguments are truncated for judging
   with an explicit marker; the raw log keeps everything.

Records must be adhere's call records (:class:`adhere.artifacts.ProxyCall`, or their
JSON objects, which are validated): another format is an error naming the format
expected, never an empty trajectory — a record of an API shape the decoders do not
know, or a log none of whose records holds a conversation in its API's shape.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from adhere.artifacts import CALL_RECORD_FORMAT, ProxyCall
from adhere.core import ChatMessage, ToolCall, ToolSpec, Trajectory
from adhere.errors import SpecError
from adhere.wire import CallView, decode_call

_CONVERSATION = {
    "anthropic": "messages",
    "openai": "messages",
    "openai-chat": "messages",
    "openai-responses": "input",
    "gemini": "contents",
}
"""API shape → the request field that holds the conversation."""

_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Truncation:
    """How long texts are cut for judging (the raw log keeps them whole)."""

    max_chars: int = 6000
    head: int = 4000
    tail: int = 1500

    def cut(self, text: str) -> str:
        """``text`` or its head and tail around a marker naming what was dropped."""
        if len(text) <= self.max_chars:
            return text
        dropped = len(text) - self.head - self.tail
        return (
            f"{text[: self.head]}\n[… truncated {dropped} characters for judging; "
            f"the raw call log has the full text …]\n{text[-self.tail :]}"
        )


def _key(message: ChatMessage) -> tuple[Any, ...]:
    text = _SPACE.sub(" ", _REMINDER.sub("", message.content)).strip()[:300]
    return (
        message.role,
        text,
        tuple((c.id, c.name) for c in message.tool_calls),
        message.tool_call_id or "",
    )


@dataclass
class _Thread:
    calls: list[CallView] = field(default_factory=list)
    keys: list[tuple[Any, ...]] = field(default_factory=list)
    messages: list[ChatMessage] = field(default_factory=list)

    def extended_by(self, keys: Sequence[tuple[Any, ...]]) -> int:
        """Length of the matching prefix if ``keys`` continues this thread, else -1."""
        if len(keys) < len(self.keys) or list(keys[: len(self.keys)]) != self.keys:
            # A retried call repeats the request without the reply this thread recorded.
            last = self.calls[-1]
            request_keys = [_key(m) for m in last.messages]
            if list(keys) == request_keys:
                return len(request_keys)
            return -1
        return len(self.keys)

    def add(self, call: CallView) -> None:
        self.calls.append(call)
        sent = list(call.messages)
        # Keep assistant messages as the model produced them: CLIs often resend them
        # without reasoning blocks.
        for i, message in enumerate(sent[: len(self.messages)]):
            earlier = self.messages[i]
            if earlier.role == "assistant" and _key(earlier) == _key(message):
                sent[i] = earlier
        self.messages = sent + ([call.reply] if call.reply is not None else [])
        self.keys = [_key(m) for m in self.messages]


def thread_calls(calls: Iterable[CallView]) -> list[_Thread]:
    """Group calls into conversations (prefix-duplicates merged)."""
    threads: list[_Thread] = []
    for call in calls:
        keys = [_key(m) for m in call.messages]
        best, best_len = None, -1
        for thread in threads:
            n = thread.extended_by(keys)
            if n > best_len:
                best, best_len = thread, n
        if best is None or best_len <= 0:
            best = _Thread()
            threads.append(best)
        best.add(call)
    return threads


def _first_user(thread: _Thread) -> str:
    for m in thread.messages:
        if m.role == "user":
            return _SPACE.sub(" ", m.content)
    return ""


def _pair_and_truncate(
    messages: Sequence[ChatMessage], truncation: Truncation
) -> tuple[list[ChatMessage], list[str], list[str]]:
    names: dict[str, str] = {}
    answered: set[str] = set()
    orphans: list[str] = []
    out: list[ChatMessage] = []
    for m in messages:
        if m.role == "assistant" and m.tool_calls:
            calls = []
            for c in m.tool_calls:
                names[c.id] = c.name
                calls.append(_truncate_call(c, truncation))
            m = m.model_copy(update={"tool_calls": tuple(calls)})
        elif m.role == "tool":
            call_id = m.tool_call_id or ""
            if call_id in names:
                answered.add(call_id)
                m = m.model_copy(update={"name": names[call_id]})
            else:
                orphans.append(call_id)
            m = m.model_copy(update={"content": truncation.cut(m.content)})
        out.append(m)
    unanswered = [cid for cid in names if cid not in answered]
    return out, unanswered, orphans


def _truncate_call(call: ToolCall, truncation: Truncation) -> ToolCall:
    args = {k: truncation.cut(v) if isinstance(v, str) else v for k, v in call.arguments.items()}
    return call.model_copy(update={"arguments": args})


def _tools(thread: _Thread) -> list[ToolSpec]:
    seen: dict[str, ToolSpec] = {}
    for call in thread.calls:
        for tool in call.tools:
            seen.setdefault(tool.name, tool)
    return list(seen.values())


def _trajectory(thread: _Thread, truncation: Truncation, meta: dict[str, Any]) -> Trajectory:
    messages, unanswered, orphans = _pair_and_truncate(thread.messages, truncation)
    system = next((c.system for c in reversed(thread.calls) if c.system), "")
    failed = [
        {"seq": c.seq, "status": c.status, "error": c.error}
        for c in thread.calls
        if c.reply is None
    ]
    return Trajectory(
        meta={
            **meta,
            "api": thread.calls[0].api,
            "calls": [c.seq for c in thread.calls],
            "assistant_turns": sum(1 for m in messages if m.role == "assistant"),
            "failed_calls": failed,
            "unanswered_tool_calls": unanswered,
            "orphan_tool_results": orphans,
        },
        system=system,
        tools=_tools(thread),
        messages=messages,
    )


def _checked(records: Sequence[ProxyCall | Mapping[str, Any]], where: str) -> list[ProxyCall]:
    """The records as :class:`ProxyCall`; ``SpecError`` naming the format otherwise."""
    out = []
    for index, record in enumerate(records):
        place = f"{where}record {index}"
        call = (
            record
            if isinstance(record, ProxyCall)
            else ProxyCall.from_json_dict(record, where=place)
        )
        if call.api not in _CONVERSATION:
            raise SpecError(
                f"api {call.api!r} is not an API shape adhere decodes (anthropic, openai-chat, "
                f"openai-responses, gemini); expected {CALL_RECORD_FORMAT}",
                file=place,
                field="api",
            )
        out.append(call)
    return out


def _no_conversation(records: Sequence[ProxyCall], views: Sequence[CallView], where: str) -> None:
    """Refuse a log whose model-call bodies hold no conversation in their API's shape.

    Calls that failed (an error, or a status other than 2xx) are left out: a body the
    endpoint refused is the trial's failure, recorded as such, not another format.
    """
    bodies = [
        r
        for r in records
        if isinstance(r.request, dict)
        and "_raw" not in r.request
        and r.error is None
        and (r.status is None or 200 <= r.status < 300)
    ]
    if not bodies or any(v.messages or v.reply is not None for v in views):
        return
    first = bodies[0]
    wanted = _CONVERSATION[first.api]
    raise SpecError(
        f"none of the {len(records)} call records holds a conversation: record seq "
        f"{first.seq} ({first.api}) has no request.{wanted} (its request has keys "
        f"{', '.join(sorted(first.request)[:8]) or 'none'}) and no reply; "
        f"expected {CALL_RECORD_FORMAT} whose request is the API call's body",
        file=where or None,
        field=f"request.{wanted}",
    )


def normalize(
    records: Sequence[ProxyCall | Mapping[str, Any]],
    *,
    first_user_turn: str = "",
    truncation: Truncation | None = None,
    meta: dict[str, Any] | None = None,
    source: str = "",
) -> Trajectory:
    """Build the trajectory of one trial from its raw call records (in arrival order).

    Args:
        records: The trial's call records, typed or as their JSON objects.
        first_user_turn: The instance's first user turn (picks the main thread).
        truncation: How long texts are cut for judging.
        meta: Extra ``meta`` of the trajectory.
        source: Where the records came from (a file), for errors.

    Raises:
        SpecError: A record is not in adhere's call record format, or none of them
            holds a conversation; the error names the format expected.
    """
    truncation = truncation or Truncation()
    checked = _checked(records, f"{source}: " if source else "")
    ordered = sorted(enumerate(checked), key=lambda p: (p[1].seq, p[0]))
    views = [v for v in (decode_call(r, i) for i, (_, r) in enumerate(ordered)) if v is not None]
    _no_conversation(checked, views, source)
    threads = thread_calls(views)
    base = dict(meta or {})
    base["recorded_calls"] = len(checked)
    if not threads:
        return Trajectory(meta={**base, "calls": [], "failed_calls": [], "assistant_turns": 0})
    wanted = _SPACE.sub(" ", first_user_turn).strip()
    ranked = sorted(
        range(len(threads)),
        key=lambda i: (
            bool(wanted) and wanted[:500] in _first_user(threads[i]),
            len(threads[i].calls),
            -i,
        ),
        reverse=True,
    )
    main = threads[ranked[0]]
    trajectory = _trajectory(main, truncation, base)
    trajectory.subagents = [
        _trajectory(threads[i], truncation, {"role": "subagent"}) for i in sorted(ranked[1:])
    ]
    return trajectory
