"""A recorded call's outcome: answer, model-side outcome, upstream fault or other failure."""

import pytest

from adhere.artifacts import ProxyCall
from adhere.observe import UPSTREAM_FAULTS, call_outcome, outcome_of

ANSWER = {"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]}


@pytest.mark.parametrize(
    ("status", "response", "error", "outcome"),
    [
        (200, ANSWER, None, "ok"),
        (None, None, "upstream unreachable: ClientConnectorError: refused", "unreachable"),
        (None, None, "upstream timed out after 30s connecting", "timeout"),
        (200, ANSWER, "upstream timed out after 900s without data", "timeout"),
        (429, {"error": {"message": "slow down"}}, "HTTP 429: slow down", "rate_limited"),
        (503, {"error": {"message": "overloaded"}}, "HTTP 503: overloaded", "server_error"),
        (200, ANSWER, "stream error: overloaded_error: Overloaded", "server_error"),
        (200, ANSWER, "the stream ended before its final event", "cut"),
        (200, ANSWER, "the upstream reply broke off: ClientPayloadError: …", "cut"),
        (200, ANSWER, "cut: still in flight 10s after the trial's scaffold finished", "cut"),
        (401, {"error": {"message": "bad key"}}, "HTTP 401: bad key", "rejected"),
        (400, {"error": {"code": "context_length_exceeded"}}, "HTTP 400: …", "context_length"),
        (200, ANSWER, "the client went away: ConnectionResetError", "client_gone"),
        (200, ANSWER, "cancelled: the proxy stopped before the call ended", "cancelled"),
        (None, None, "proxy failure: RuntimeError: boom", "unreachable"),
        (200, {"choices": [{"message": {"content": ""}, "finish_reason": "length"}]}, None,
         "max_tokens"),
    ],
)  # fmt: skip
def test_outcomes(status, response, error, outcome):
    assert call_outcome("openai-chat", status, response, error) == outcome


def test_only_the_model_services_failures_are_upstream_faults():
    assert set(UPSTREAM_FAULTS) == {"unreachable", "timeout", "rate_limited", "server_error", "cut"}


def test_a_stored_outcome_wins_and_an_old_record_is_classified_on_reading():
    fields = {
        "seq": 0, "trial": "t", "upstream": "m", "api": "anthropic", "method": "POST",
        "path": "/v1/messages", "query": "", "stream": True, "request": None, "status": 200,
        "response": {"type": "message", "content": [], "stop_reason": "refusal"},
        "sse_events": 3, "error": None, "started_at": "2025-01-01T00:00:00+00:00",
        "duration_seconds": 1.0, "ttfb_seconds": 0.1, "usage": None,
    }  # fmt: skip
    assert outcome_of(ProxyCall.from_json_dict(fields)) == "refusal"
    assert outcome_of(ProxyCall.from_json_dict({**fields, "outcome": "ok"})) == "ok"
    unknown_api = ProxyCall.from_json_dict({**fields, "api": "other", "status": 502, "error": "x"})
    assert outcome_of(unknown_api) == "server_error"
