"""What a recorded call amounted to: an answer, a model-side outcome, or an upstream fault.

Each record's ``outcome`` (``docs/proxy.md``) is one of:

- ``ok`` — a plain answer;
- a **model-side outcome** (:data:`MODEL_OUTCOMES`, read by
  :func:`adhere.wire.reply_outcome`): ``context_length``, ``refusal``, ``max_tokens``,
  ``empty`` — the model's doing, counted apart in reports, never a fault;
- an **upstream fault** (:data:`UPSTREAM_FAULTS`): the model service failed the call,
  not the agent — ``unreachable`` (refused, reset or DNS failure before an answer),
  ``timeout`` (connect, idle or total limit), ``rate_limited`` (429),
  ``server_error`` (5xx, or an error event inside a stream), ``cut`` (a stream that
  broke off, ended before its final event, or was still unfinished after the
  scaffold was done);
- another failure: ``rejected`` (any other 4xx: a bad request, a wrong key),
  ``client_gone`` (the client hung up first), ``cancelled`` (the proxy stopped).

The proxy words its errors (``upstream timed out …``) and :func:`call_outcome` reads
them back, so records written before ``outcome`` existed are classified the same way
(:func:`outcome_of`).
"""

from __future__ import annotations

from typing import Any

from adhere.artifacts import ProxyCall
from adhere.wire import MODEL_OUTCOMES, Api, reply_outcome

__all__ = ["MODEL_OUTCOMES", "UPSTREAM_FAULTS", "call_outcome", "outcome_of"]

UPSTREAM_FAULTS = ("unreachable", "timeout", "rate_limited", "server_error", "cut")
"""Outcomes that are the model service's failure, not the agent's (module doc)."""

_BY_PREFIX = (
    ("upstream unreachable", "unreachable"),
    ("upstream timed out", "timeout"),
    ("the upstream reply broke off", "cut"),
    ("the stream ended before its final event", "cut"),
    ("cut:", "cut"),
    ("the client went away", "client_gone"),
    ("cancelled:", "cancelled"),
)


def call_outcome(api: Api, status: int | None, response: Any, error: str | None) -> str:
    """The outcome of one call from its status, response and error (see the module doc)."""
    model_side = reply_outcome(api, status, response)
    if model_side == "context_length":
        return model_side
    if error is not None:
        for prefix, outcome in _BY_PREFIX:
            if error.startswith(prefix):
                return outcome
        if status is None:
            return "unreachable"
        if status < 300:  # an error event inside the stream, or the reply went wrong midway
            return "server_error" if error.startswith("stream error:") else "cut"
    if status is not None and status >= 400:
        return "rate_limited" if status == 429 else "rejected" if status < 500 else "server_error"
    return model_side or "ok"


def outcome_of(call: ProxyCall) -> str:
    """The record's ``outcome``, classified now for records written without one."""
    if call.outcome is not None:
        return call.outcome
    api = _APIS.get(call.api, "openai-chat")
    return call_outcome(api, call.status, call.response, call.error)


_APIS: dict[str, Api] = {
    "anthropic": "anthropic",
    "openai-chat": "openai-chat",
    "openai-responses": "openai-responses",
    "gemini": "gemini",
}
