"""The report's notes when no trial finished: faults are not 'checks left undecided'."""

from adhere.core import Verdict
from adhere.metrics import ScoredTrial
from adhere.report import build_report

UNDECIDED = "No check of these trials was decided yet"


def report(statuses: list[str], verdicts: list[Verdict] | None = None):
    trials = [
        ScoredTrial(keys={"model": "m", "scaffold": "chat"}, status=s, verdicts=verdicts or [])
        for s in statuses
    ]
    return build_report(
        rollout="r", suite="pacific", metric_names=("ISR", "CSR"), trials=trials, breakdowns=[]
    )


def test_a_run_of_upstream_faults_is_not_called_undecided() -> None:
    notes = report(["upstream_fault"] * 3).notes
    assert not any(UNDECIDED in n for n in notes)
    assert any(n.startswith("3 trial(s) ended as upstream faults") for n in notes)


def test_finished_trials_without_verdicts_still_get_the_note() -> None:
    notes = report(["ok", "upstream_fault"]).notes
    assert any(UNDECIDED in n for n in notes)
    decided = report(["ok"], [Verdict(check_id="c", result="pass", decided_by="x")]).notes
    assert not any(UNDECIDED in n for n in decided)
