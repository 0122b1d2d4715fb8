"""Paper Table 5: Δ on the partial-failure instances of the base run only."""

import pytest

from adhere.core import Verdict
from adhere.metrics import PairedTrial, ScoredTrial, is_partial_failure, partial_failure_pairs
from adhere.workflows._feedback_paper import table5


def trial(results, *, instance, repeat=0, scaffold="claude-code", status="ok"):
    verdicts = [
        Verdict(check_id=f"c{i}", result=r, decided_by="verifier:x") for i, r in enumerate(results)
    ]
    keys = {"model": "m", "scaffold": scaffold, "instance": instance, "repeat": repeat}
    return ScoredTrial(keys, status, verdicts)


def pair(before, after, **keys):
    return PairedTrial(trial(before, **keys), trial(after, **keys), changed="fail" in before)


PAIRS = [
    # i1: partial failure in repeat 0; repeat 1 passed (kept: same instance)
    pair(["pass", "fail", "pass"], ["pass", "pass", "pass"], instance="i1"),
    pair(["pass", "pass", "pass"], ["pass", "pass", "pass"], instance="i1", repeat=1),
    # i2: partial failure, feedback fixed nothing
    pair(["fail", "pass", "n/a"], ["fail", "pass", "n/a"], instance="i2"),
    # i3: every check failed (a total failure, not partial)
    pair(["fail", "fail"], ["pass", "pass"], instance="i3"),
    # i4: passed everything
    pair(["pass", "pass"], ["pass", "pass"], instance="i4"),
    # i5: an undecided check: not a partial failure
    pair(["pass", "fail", "error"], ["pass", "pass", "pass"], instance="i5"),
]


def test_which_trials_are_partial_failures():
    assert [is_partial_failure(p.before) for p in PAIRS] == [True, False, True, False, False, False]
    assert not is_partial_failure(trial(["pass", "fail"], instance="x", status="error"))
    chosen = partial_failure_pairs(PAIRS)
    assert [(p.before.keys["instance"], p.before.keys["repeat"]) for p in chosen] == [
        ("i1", 0),
        ("i1", 1),
        ("i2", 0),
    ]


def test_table5_is_computed_on_the_subset_only():
    table, notes = table5(PAIRS, "ISR", "CSR", ["model"])
    (row,) = table.rows
    cells = dict(zip(table.header, row, strict=True))
    # by hand, over i1 r0, i1 r1, i2 r0: before ISR 1/3, CSR (2/3 + 1 + 1/2)/3
    isr_before, csr_before = 1 / 3, (2 / 3 + 1 + 1 / 2) / 3
    isr_after, csr_after = 2 / 3, (1 + 1 + 1 / 2) / 3
    assert cells["instances"] == "2" and cells["trials"] == "3" and cells["re-run"] == "2"
    assert cells["ISR before"] == f"{isr_before * 100:.1f}%"
    assert cells["CSR before"] == f"{csr_before * 100:.1f}%"
    assert cells["ISR after"] == f"{isr_after * 100:.1f}%"
    assert cells["CSR after"] == f"{csr_after * 100:.1f}%"
    assert cells["ΔISR"] == f"{(isr_after - isr_before) * 100:+.1f} pp"
    assert cells["ΔCSR"] == f"{(csr_after - csr_before) * 100:+.1f} pp"
    assert "3 of 6 paired trials" in notes[0]


def test_table5_empty_when_nothing_partially_failed():
    table, notes = table5(PAIRS[3:5], "ISR", "CSR", ["model"])
    assert table.rows == [] and "empty" in notes[-1]


@pytest.mark.parametrize("group", [["model"], ["model", "scaffold"]])
def test_rows_per_group(group):
    other = pair(["pass", "fail"], ["pass", "pass"], instance="i1", scaffold="kilo")
    table, _ = table5([*PAIRS, other], "ISR", "CSR", group)
    assert len(table.rows) == (1 if group == ["model"] else 2)
