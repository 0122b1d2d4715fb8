"""Table 4's undecided rule (docs: "undecided runs are counted and shown, never read as
following a side"): a trial that did not finish ``ok`` — an error or an upstream fault —
an ``error`` attribution and an answer other than A or B are undecided, under every
rule; an error attribution abstains from the majority vote."""

import dataclasses

import pytest

from adhere.core import Verdict
from adhere.metrics import (
    ConflictRun,
    SideTally,
    attributed,
    conflict_of,
    followed,
    majority_side,
    side_tally,
)

SIDES = [{"source": "SP", "check": "sp"}, {"source": "UserQuery", "check": "uq"}]
CONFLICT = {"scenario": "language", "type": "SP vs UserQuery", "sides": SIDES}


def answer(text: str | None, result: str = "n/a") -> Verdict:
    details = {} if text is None else {"followed": text}
    return Verdict(check_id="conflict", result=result, decided_by="judge:j", details=details)


def run(status: str = "ok", **attributions: Verdict) -> ConflictRun:
    verdicts = [
        Verdict(check_id="sp", result="pass", decided_by="verifier:x"),
        Verdict(check_id="uq", result="fail", decided_by="verifier:x"),
    ]
    return ConflictRun({"model": "m"}, status, CONFLICT, verdicts, attributions)


@pytest.mark.parametrize("status", ["error", "upstream_fault"])
def test_a_trial_that_did_not_finish_ok_is_undecided_under_every_rule(status: str) -> None:
    finished = run(status, j1=answer("A"), j2=answer("A"))
    assert followed(finished) == "undecided"  # though its side checks say "first"
    assert majority_side(finished) == "undecided"
    tally = side_tally([finished], ["model"])[("m", "SP vs UserQuery")]
    assert (tally["j1"].first, tally["j1"].undecided) == (0, 1)
    assert followed(run()) == "first" and majority_side(run(j1=answer("A"))) == "first"


def test_an_error_attribution_is_undecided_whatever_it_carries() -> None:
    assert attributed(answer("A", result="error")) == "undecided"
    assert attributed(answer("A")) == "first" and attributed(answer("B")) == "second"


@pytest.mark.parametrize("text", ["", "0", "@", None])
def test_only_a_or_b_names_a_side(text: str | None) -> None:
    assert attributed(answer(text)) == "undecided"


def test_an_error_attribution_abstains_from_the_majority_vote() -> None:
    voted = run(j1=answer("A"), j2=answer("x", result="error"))
    assert majority_side(voted) == "first"


def test_a_conflict_has_exactly_two_sides() -> None:
    assert conflict_of({"conflict": CONFLICT}) == CONFLICT
    for sides in (SIDES[:1], [*SIDES, {"source": "Doc", "check": "doc"}]):
        assert conflict_of({"conflict": {**CONFLICT, "sides": sides}}) is None


def test_runs_and_tallies_are_values() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        run().status = "error"  # type: ignore[misc]
    assert SideTally(first=2, second=1) == SideTally(2, 1, 0)
    assert SideTally(first=2, second=1, undecided=3).share("second") == pytest.approx(1 / 3)
