"""ΔISR / ΔCSR over paired trials (feedback correction)."""

import dataclasses

import pytest

from adhere.core import Verdict
from adhere.metrics import ScoredTrial
from adhere.metrics._delta import (
    Delta,
    PairedTrial,
    delta,
    group_deltas,
    signed_points,
    split_pair,
)


def trial(model, *results, instance="i"):
    verdicts = [Verdict(check_id=f"c{n}", result=r, decided_by="t") for n, r in enumerate(results)]
    return ScoredTrial({"model": model, "instance": instance}, "ok", verdicts)


PAIRS = [
    # fixed both failures: not all-passed → all-passed
    PairedTrial(trial("a", "fail", "pass", "fail"), trial("a", "pass", "pass", "pass")),
    # carried over unchanged
    PairedTrial(trial("a", "pass", "n/a"), trial("a", "pass", "n/a"), changed=False),
    # one fixed, one broken, an error stays an error
    PairedTrial(trial("b", "fail", "pass", "error"), trial("b", "pass", "fail", "error")),
]


def test_delta_is_after_minus_before_over_the_same_complete_pairs() -> None:
    d = delta(PAIRS)
    assert (d.pairs, d.changed, d.fixed, d.broken) == (3, 2, 3, 1)
    # the third pair keeps an error verdict on both sides: incomplete, left out of both
    assert d.incomplete == 1
    assert d.before.scored == d.after.scored == 2
    assert d.before.isr == pytest.approx(1 / 2) and d.after.isr == pytest.approx(2 / 2)
    assert d.isr == pytest.approx(1 / 2)
    before_csr = (1 / 3 + 1) / 2
    after_csr = (1 + 1) / 2
    assert d.csr == pytest.approx(after_csr - before_csr)


def test_a_pair_incomplete_on_one_side_only_leaves_both_sides() -> None:
    pair = PairedTrial(trial("a", "pass", "pass"), trial("a", "pass", "error"))
    d = delta([pair, PairedTrial(trial("a", "fail"), trial("a", "fail"))])
    assert d.incomplete == 1 and d.before.scored == d.after.scored == 1
    assert d.before.isr == d.after.isr == 0.0 and d.isr == 0.0


def test_groups_and_empty_sides() -> None:
    groups = group_deltas(PAIRS, ["model"])
    assert list(groups) == [("a",), ("b",)]
    assert groups[("a",)].isr == pytest.approx(0.5)
    assert groups[("b",)].isr is None and groups[("b",)].incomplete == 1
    empty = delta([PairedTrial(trial("a", "n/a"), trial("a", "n/a"))])
    assert empty.isr is None and empty.csr is None


def test_split_by_category_pairs_each_side() -> None:
    pair = PAIRS[0]
    parts = split_pair(pair, {"c0": "SP", "c1": "SP"}, "source")
    assert [p.before.keys["source"] for p in parts] == ["SP", "other"]
    sp, other = parts
    assert [v.check_id for v in sp.after.verdicts] == ["c0", "c1"]
    assert delta([other]).isr == pytest.approx(1.0)  # c2: fail → pass


@pytest.mark.parametrize(
    ("value", "text"),
    [(None, "–"), (0.0, "0.0 pp"), (0.125, "+12.5 pp"), (-0.0004, "0.0 pp"), (-0.5, "-50.0 pp")],
)
def test_signed_points(value, text) -> None:
    assert signed_points(value) == text


def verdicts_of(**results):
    return [Verdict(check_id=c, result=r, decided_by="t") for c, r in results.items()]


def test_only_fail_to_pass_is_fixed_and_only_pass_to_fail_is_broken() -> None:
    """Items that were or became error or n/a, or are new, are in neither count."""
    before = ScoredTrial({}, "ok", verdicts_of(a="fail", b="error", c="pass", d="n/a", e="fail"))
    after = ScoredTrial(
        {}, "ok", verdicts_of(a="n/a", b="pass", c="error", d="fail", e="error", new="pass")
    )
    d = delta([PairedTrial(before, after)])
    assert (d.fixed, d.broken) == (0, 0)
    after = ScoredTrial({}, "ok", verdicts_of(a="pass", b="pass", c="fail", d="pass", new="fail"))
    d = delta([PairedTrial(before, after)])
    assert (d.fixed, d.broken) == (1, 1)


def test_one_side_without_a_score_has_no_delta() -> None:
    """Before scored, after all n/a: nothing to subtract from, so no Δ (not a crash)."""
    d = delta([PairedTrial(trial("a", "pass"), trial("a", "n/a"))])
    assert d.before.isr == 1.0 and d.after.isr is None
    assert d.isr is None and d.csr is None
    d = delta([PairedTrial(trial("a", "n/a"), trial("a", "fail"))])
    assert d.before.isr is None and d.after.isr == 0.0 and d.isr is None


def test_an_upstream_fault_side_is_not_an_incomplete_pair() -> None:
    """A side the model service failed is left out of the rates, not counted incomplete."""
    fault = ScoredTrial({}, "upstream_fault", [], expected=("c0",))
    d = delta([PairedTrial(trial("a", "pass"), fault)])
    assert d.incomplete == 0 and d.after.upstream_faults == 1 and d.before.scored == 1
    failed = ScoredTrial({}, "error", verdicts_of(c0="error"))
    d = delta([PairedTrial(trial("a", "pass"), failed)])
    assert d.incomplete == 0 and d.after.trial_errors == 1 and d.after.isr == 0.0


def test_split_keeps_categories_present_on_either_side_only() -> None:
    before = ScoredTrial({"model": "m"}, "ok", verdicts_of(a="pass", b="fail"))
    after = ScoredTrial({"model": "m"}, "ok", verdicts_of(a="pass", c="pass"))
    parts = split_pair(
        PairedTrial(before, after, changed=False), {"a": "A", "b": "B", "c": "C"}, "k"
    )
    assert [p.before.keys["k"] for p in parts] == ["A", "B", "C"]
    by = {p.after.keys["k"]: p for p in parts}
    assert by["B"].after.verdicts == [] and [v.check_id for v in by["B"].before.verdicts] == ["b"]
    assert by["C"].before.verdicts == [] and [v.check_id for v in by["C"].after.verdicts] == ["c"]
    assert all(p.changed is False and p.before.keys["model"] == "m" for p in parts)
    # A callable names categories as well as a mapping.
    assert len(split_pair(PairedTrial(before, after), str.upper, "k")) == 3


def test_pairs_and_deltas_are_values() -> None:
    pair = PAIRS[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        pair.changed = False  # type: ignore[misc]
    d = delta([pair])
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.fixed = 0  # type: ignore[misc]
    assert pair.changed is True  # a pair is a re-run unless said otherwise
    assert (
        Delta(pairs=1, changed=1, before=d.before, after=d.after, fixed=0, broken=0).incomplete == 0
    )
