"""Upstream faults in rates and reports: never a pass, never the agent's failure, apart."""

from adhere.core import TrialResult, Verdict
from adhere.metrics import ScoredTrial, rates
from adhere.report import build_report, report_table


def v(result: str) -> Verdict:
    return Verdict(check_id="c", result=result, decided_by="t")  # type: ignore[arg-type]


def trials() -> list[ScoredTrial]:
    keys = {"model": "m", "scaffold": "chat"}
    return [
        ScoredTrial(keys=keys, status="ok", verdicts=[v("pass")], calls=2,
                    outcomes={"server_error": 1}),
        ScoredTrial(keys=keys, status="ok", verdicts=[v("fail")], calls=1,
                    outcomes={"refusal": 1}),
        ScoredTrial(keys=keys, status="error", verdicts=[v("error")], calls=1),
        # Even verdicts a fault trial might carry (an older store) never count.
        ScoredTrial(keys=keys, status="upstream_fault", verdicts=[v("error")], calls=3,
                    outcomes={"timeout": 2, "cut": 1}),
        ScoredTrial(keys=keys, status="upstream_fault", verdicts=[], calls=1,
                    outcomes={"unreachable": 1}),
    ]  # fmt: skip


def test_upstream_faults_are_left_out_of_the_rates_and_counted_apart() -> None:
    r = rates(trials())
    assert (r.trials, r.scored, r.trial_errors, r.upstream_faults) == (5, 3, 1, 2)
    assert r.isr == 1 / 3 and r.categories["error"] == 1


def test_the_report_shows_faults_and_model_side_outcomes_apart() -> None:
    report = build_report(
        rollout="r", suite="s", metric_names=("ISR", "CSR"), trials=trials(), breakdowns=[]
    )
    header = report.summary.header
    [row] = report.summary.rows
    assert row[header.index("trial errors")] == "1"
    assert row[header.index("upstream faults")] == "2"
    assert row[header.index("ISR")] == "33.3%"
    assert any(note.startswith("2 trial(s) ended as upstream faults") for note in report.notes)
    assert any(note.startswith("1 trial(s) failed to run") for note in report.notes)
    [outcomes] = [t for t in report.breakdowns if t.title.startswith("Model-side outcomes")]
    assert outcomes.header == [
        "model", "calls", "context length", "refusal", "max tokens", "empty",
        "calls failed upstream", "upstream-fault trials",
    ]  # fmt: skip
    assert outcomes.rows == [["m", "8", "0", "1", "0", "0", "5", "2"]]
    table = report_table(report)
    assert [c.header for c in table.columns][-1] == "upstream\nfaults"


def test_results_from_before_upstream_faults_still_read() -> None:
    old = {
        "trial": {"rollout": "r", "model": "m", "scaffold": "chat", "instance": "i", "repeat": 0},
        "trial_id": "x", "status": "error", "error": "boom", "attempt": 1,
        "started_at": "2025-01-01T00:00:00+00:00", "finished_at": "2025-01-01T00:00:01+00:00",
        "duration_seconds": 1.0, "calls": 1, "input_tokens": 0, "output_tokens": 0,
    }  # fmt: skip
    result = TrialResult.model_validate(old)
    assert result.status == "error" and result.outcomes == {}
    no_outcomes = build_report(
        rollout="r", suite="s", metric_names=("ISR", "CSR"),
        trials=[ScoredTrial(keys={"model": "m"}, status="ok", verdicts=[v("pass")])],
        breakdowns=[],
    )  # fmt: skip
    assert not any(t.title.startswith("Model-side") for t in no_outcomes.breakdowns)
