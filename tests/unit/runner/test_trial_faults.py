"""When a trial is an upstream fault: the rule over its recorded calls."""

from adhere.artifacts import ProxyCall
from adhere.runner._faults import outcome_counts, retry_delay, trial_fault


def call(seq, outcome, error=None):
    return ProxyCall(
        seq=seq, trial="t", upstream="m", api="openai-chat", method="POST",
        path="/v1/chat/completions", query="", stream=False, request=None, status=200,
        response=None, sse_events=0, error=error, started_at="2025-01-01T00:00:00+00:00",
        duration_seconds=1.0, ttfb_seconds=0.1, usage=None, outcome=outcome,
    )  # fmt: skip


def test_a_last_call_that_failed_upstream_makes_a_fault_even_when_the_agent_exited_0():
    records = [call(0, "ok"), call(1, "cut", "the stream ended before its final event")]
    reason = trial_fault(records, scaffold_failed=False)
    assert reason == (
        "upstream fault: the last model call (#1) failed (cut): "
        "the stream ended before its final event"
    )
    assert trial_fault(list(reversed(records)), scaffold_failed=False) == reason  # by seq


def test_a_failed_call_recovered_from_is_no_fault_unless_the_scaffold_then_failed():
    records = [call(0, "server_error", "HTTP 503: overloaded"), call(1, "ok")]
    assert trial_fault(records, scaffold_failed=False) is None
    assert trial_fault(records, scaffold_failed=True) == (
        "upstream fault: model call #0 failed (server_error: HTTP 503: overloaded) and the "
        "scaffold did not recover"
    )


def test_model_side_outcomes_and_the_clients_own_failures_are_never_faults():
    for outcome in ("refusal", "context_length", "max_tokens", "empty", "rejected", "client_gone"):
        assert trial_fault([call(0, outcome, "x")], scaffold_failed=True) is None
    assert trial_fault([], scaffold_failed=True) is None


def test_counts_and_backoff():
    records = [call(0, "ok"), call(1, "timeout"), call(2, "timeout"), call(3, "refusal")]
    assert outcome_counts(records) == {"refusal": 1, "timeout": 2}
    assert [retry_delay(n, 5) for n in (1, 2, 3, 10)] == [5, 10, 20, 120]
