"""ISR, CSR and every count a group's rates rest on, computed by hand from small groups."""

import dataclasses

import pytest

from adhere.core import Verdict
from adhere.metrics import Rates, ScoredTrial, TrialScore, group_rates, rates, score_trial
from adhere.metrics._rates import failed_run_score, split_trial


def v(check: str, result: str, by: str | None = "verifier", **details) -> Verdict:
    return Verdict(check_id=check, result=result, decided_by=by or "", details=details)  # type: ignore[arg-type]


def trial(status: str, *verdicts: Verdict, expected=None, **keys) -> ScoredTrial:
    return ScoredTrial(keys=keys, status=status, verdicts=list(verdicts), expected=expected)


def test_every_count_of_a_mixed_group() -> None:
    """Each trial state lands in its own count; the rates rest on the scored trials only."""
    group = [
        # scored: 2 of 3 applicable items pass (not all passed)
        trial("ok", v("a", "pass"), v("b", "fail"), v("c", "pass"), v("d", "n/a")),
        # scored: all passed
        trial("ok", v("a", "pass"), v("b", "pass")),
        # incomplete: one verifier errored, one check never decided
        trial("ok", v("a", "pass"), v("b", "error", by="judge:j1"), expected=("a", "b", "c")),
        # incomplete: an error verdict with no one named
        trial("ok", v("a", "error", by=None), v("b", "n/a")),
        # complete, nothing applicable
        trial("ok", v("a", "n/a"), v("b", "n/a")),
        # failed to run: both checks count as failed items
        trial("error", v("a", "error", by="runner"), v("b", "error", by="runner")),
        # the model service failed: left out whatever its verdicts
        trial("upstream_fault", v("a", "pass")),
    ]
    r = rates(group)
    assert r.trials == 7
    assert r.scored == 3 and r.incomplete == 2 and r.no_applicable == 1
    assert r.trial_errors == 1 and r.upstream_faults == 1
    assert r.items == 3 + 2 + 2 and r.items_passed == 2 + 2 + 0
    assert r.isr == pytest.approx(1 / 3)
    assert r.csr == pytest.approx((2 / 3 + 1 + 0) / 3)
    # Checks of the trials that ran (ok): undecided = no verdict; errored = error verdicts.
    assert r.undecided == 1 and r.errored == 2
    assert r.errored_by == {"judge:j1": 1, "unknown": 1}  # not the failed run's
    assert r.not_applicable == 1 + 1 + 2  # n/a verdicts in trials that ran
    assert r.checks == r.items + r.not_applicable + r.undecided + r.errored == 7 + 4 + 1 + 2
    assert not r.complete


def test_checks_add_up_their_four_kinds() -> None:
    r = Rates(items=3, not_applicable=5, undecided=11, errored=17)
    assert r.checks == 36
    assert Rates(incomplete=0).complete and not Rates(incomplete=1).complete


def test_an_empty_group_has_no_rates_and_zero_counts() -> None:
    r = rates([])
    assert (r.isr, r.csr) == (None, None)
    assert r == Rates()
    assert all(
        getattr(r, f.name) in (0, None) or getattr(r, f.name) == {} for f in dataclasses.fields(r)
    )
    assert r.checks == 0 and r.complete


def test_a_group_of_only_unscorable_trials_has_no_rates() -> None:
    r = rates([trial("ok", v("a", "n/a")), trial("upstream_fault", v("a", "pass"))])
    assert (r.isr, r.csr, r.scored) == (None, None, 0)
    assert (r.no_applicable, r.upstream_faults, r.trials) == (1, 1, 2)


def test_a_trial_with_nothing_applicable_does_not_stop_the_count() -> None:
    """Trials after an incomplete or n/a-only trial are still counted."""
    group = [
        trial("ok", v("a", "n/a")),
        trial("ok", v("a", "error")),
        trial("ok", v("a", "pass")),
        trial("ok", v("a", "fail")),
    ]
    r = rates(group)
    assert (r.scored, r.no_applicable, r.incomplete) == (2, 1, 1)
    assert (r.isr, r.csr, r.items, r.items_passed) == (0.5, 0.5, 2, 1)


def test_categories_count_wrong_answers_errors_and_extra_tags_of_scored_trials() -> None:
    group = [
        trial(
            "ok",
            v("a", "fail", category="wrong"),
            v("b", "pass", extra_tags=["x", "y"]),
            v("c", "fail", category=7),  # not a category name: ignored
        ),
        trial("error", v("a", "error", category="wrong")),  # an error counts as such
        trial("ok", v("a", "fail", category="missed"), v("b", "error")),  # incomplete
    ]
    r = rates(group)
    assert r.categories == {"wrong": 1, "extra": 2, "error": 1}


def test_a_trial_with_hundreds_of_checks_all_passed_passes() -> None:
    """Counts are compared by value, whatever their size."""
    many = [v(f"c{n}", "pass") for n in range(300)]
    score = score_trial(many)
    assert score.passed == score.applicable == 300 and score.all_passed
    assert rates([trial("ok", *many)]).isr == 1.0


def test_trial_score_properties() -> None:
    s = TrialScore(passed=2, applicable=4, errors=3, missing=5, not_applicable=1)
    assert s.undecided == 8 and not s.complete and not s.all_passed and s.rate == 0.5
    assert TrialScore(passed=0, applicable=0, errors=0).rate == 0.0
    assert not TrialScore(passed=0, applicable=0, errors=0).all_passed  # nothing to pass
    assert TrialScore(passed=3, applicable=3, errors=0).all_passed
    assert not TrialScore(passed=3, applicable=3, errors=1).all_passed  # incomplete
    assert not TrialScore(passed=3, applicable=3, errors=0, missing=1).all_passed
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.passed = 4  # type: ignore[misc]
    assert hash(s) == hash(
        TrialScore(passed=2, applicable=4, errors=3, missing=5, not_applicable=1)
    )


def test_missing_counts_expected_checks_without_a_verdict_not_unexpected_verdicts() -> None:
    score = score_trial([v("a", "pass"), v("z", "pass")], expected=("a", "b", "c"))
    assert score.missing == 2  # b and c; the verdict for z is not "missing"
    assert score_trial([v("a", "pass")], expected=None).missing == 0


def test_a_failed_run_fails_even_a_check_that_passed_before_it_failed() -> None:
    score = failed_run_score([v("a", "pass"), v("b", "n/a"), v("c", "fail")], expected=None)
    assert (score.passed, score.applicable, score.not_applicable) == (0, 2, 1)


def test_a_trial_score_counts_nothing_missing_or_n_a_unless_told() -> None:
    assert TrialScore(passed=1, applicable=2, errors=0) == TrialScore(
        passed=1, applicable=2, errors=0, missing=0, not_applicable=0
    )


def test_a_failed_run_fails_every_check_except_the_n_a_ones() -> None:
    verdicts = [v("a", "error"), v("b", "n/a"), v("c", "error")]
    score = failed_run_score(verdicts, expected=("a", "b", "c", "d"))
    assert score == TrialScore(passed=0, applicable=3, errors=0, missing=0, not_applicable=1)
    assert failed_run_score(verdicts, None).applicable == 2
    assert trial("error", *verdicts, expected=("a", "b", "c", "d")).score() == score


def test_a_scored_trial_defaults_to_no_calls_and_no_checklist() -> None:
    t = ScoredTrial(keys={}, status="ok", verdicts=[])
    assert (t.calls, dict(t.outcomes), t.expected) == (0, {}, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.status = "error"  # type: ignore[misc]


def test_split_by_category_keeps_each_category_s_verdicts_and_expected_checks() -> None:
    category = {"a": "style", "b": "tests", "c": "style", "d": "docs"}.__getitem__
    whole = trial(
        "ok", v("a", "pass"), v("b", "fail"), v("c", "pass"), expected=("a", "b", "c", "d")
    )
    parts = {p.keys["kind"]: p for p in split_trial(whole, category, "kind")}
    assert list(parts) == ["style", "tests", "docs"]  # verdicts' order, then the rest
    assert [x.check_id for x in parts["style"].verdicts] == ["a", "c"]
    assert parts["style"].expected == ("a", "c") and parts["docs"].expected == ("d",)
    assert parts["docs"].verdicts == [] and not parts["docs"].score().complete
    assert rates(parts.values()).incomplete == 1
    # Without a checklist, splits have none either.
    unknown = split_trial(trial("ok", v("a", "pass")), category, "kind")
    assert [p.expected for p in unknown] == [None]


def test_groups_come_sorted_numbers_first_then_by_text() -> None:
    group = [
        trial("ok", v("a", "pass"), level=10),
        trial("ok", v("a", "fail"), level="b"),
        trial("ok", v("a", "pass"), level=2.5),
        trial("ok", v("a", "pass"), level=None),
        trial("ok", v("a", "pass"), level="a"),
    ]
    by = group_rates(group, ["level"])
    # Text order is by str(): "None" sorts before lower-case letters.
    assert list(by) == [(2.5,), (10,), (None,), ("a",), ("b",)]
    assert by[("b",)].isr == 0.0 and by[(10,)].isr == 1.0
