"""ΔISR / ΔCSR over paired trials (feedback correction)."""

import pytest

from adhere.core import Verdict
from adhere.metrics import ScoredTrial
from adhere.metrics._delta import PairedTrial, delta, group_deltas, signed_points, split_pair


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
