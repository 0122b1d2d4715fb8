"""The smallest chat call in each API shape, and whether an answer to it reads as a reply.

What ``adhere run``'s preflight sends every endpoint before the first trial: one user
message (``"ping"``) with an output cap of one token (``max_tokens: 1``, Gemini's
``maxOutputTokens: 1``; Responses' ``max_output_tokens`` is 16, the least that API
accepts), no tools, not streamed. The call is built the
way the recording proxy builds a translated call (:func:`plan_call` from a Chat
Completions request), so the probe and the trials speak the endpoint's shape alike.
"""

from __future__ import annotations

import json

from adhere.wire._decode import _DECODERS
from adhere.wire._json import WireFormatError
from adhere.wire._reassemble_base import Api
from adhere.wire._recorded import read_answer
from adhere.wire._translate import Plan, plan_call

__all__ = ["PROBE_TEXT", "probe_call", "probe_problem"]

PROBE_TEXT = "ping"
"""The one user message of a probe."""

RESPONSES_MIN_OUTPUT = 16
"""The smallest output cap the Responses API accepts."""


def probe_call(api: Api, model: str) -> Plan:
    """The probe in ``api``'s shape: API path (with query), body and headers (no auth)."""
    body = {
        "model": model,
        "messages": [{"role": "user", "content": PROBE_TEXT}],
        "max_tokens": 1,
        "stream": False,
    }
    plan = plan_call("openai-chat", "/v1/chat/completions", "", body, api, model=model)
    assert isinstance(plan, Plan)  # a chat call is always planned, never answered locally
    if api == "openai-responses":
        plan.body["max_output_tokens"] = RESPONSES_MIN_OUTPUT
    return plan


def probe_problem(plan: Plan, status: int, content_type: str, body: bytes) -> str | None:
    """Why a 2xx answer to the probe is not a reply in the plan's shape; ``None`` when it is."""
    answer = read_answer(plan.upstream_api, status, content_type, body)
    if answer.error is not None:
        return answer.error
    if not isinstance(answer.response, dict):
        return f"the answer is not a JSON object: {_snippet(body)}"
    try:
        *_, reply = _DECODERS[plan.upstream_api](plan.body, answer.response)
    except (WireFormatError, KeyError, TypeError, ValueError) as exc:
        return f"the answer does not read as a reply: {exc}"
    if reply is None:
        return f"the answer does not read as a reply: {_snippet(body)}"
    return None


def _snippet(body: bytes, limit: int = 120) -> str:
    text = " ".join(body.decode("utf-8", "replace").split()) or "(empty body)"
    try:
        json.loads(body)
    except ValueError:
        text = "not JSON: " + text
    return text if len(text) <= limit else text[: limit - 1] + "…"
