"""Pairing two rollouts' trials: which trials pair, the groups' order, sources on one side."""

import dataclasses

import pytest

from adhere.core import Verdict
from adhere.metrics import ScoredTrial
from adhere.metrics._pairing import ALL_SOURCES, Pair, paired_trials


def trial(model: str, instance: str, *results: str, scaffold: str = "chat", repeat: int = 0):
    verdicts = [
        Verdict(check_id=f"{instance}.c{n}", result=r, decided_by="v")  # type: ignore[arg-type]
        for n, r in enumerate(results)
    ]
    keys = {"model": model, "scaffold": scaffold, "instance": instance, "repeat": repeat}
    return ScoredTrial(keys=keys, status="ok", verdicts=verdicts)


def test_a_trial_without_a_counterpart_does_not_stop_the_pairing() -> None:
    baseline = [trial("m", "i2", "pass")]
    candidate = [trial("m", "i1", "pass"), trial("m", "i2", "fail")]
    (pair,) = paired_trials(baseline, candidate)[("m", ALL_SOURCES)]
    assert pair.cluster == "i2" and pair.candidate.passed == 0


def test_groups_come_in_key_order_with_each_group_s_all_row_first() -> None:
    sources = {"i": {"i.c0": "UserQuery", "i.c1": "SP"}}
    baseline = [trial(m, "i", "pass", "pass") for m in ("m2", "m10")]
    candidate = [trial(m, "i", "pass", "fail") for m in ("m2", "m10")]
    groups = paired_trials(baseline, candidate, sources=sources)
    assert list(groups) == [
        ("m10", ALL_SOURCES),
        ("m10", "SP"),
        ("m10", "UserQuery"),
        ("m2", ALL_SOURCES),
        ("m2", "SP"),
        ("m2", "UserQuery"),
    ]


def test_sources_are_ordered_by_name_whatever_instance_brought_them() -> None:
    sources = {"i1": {"i1.c0": "SP"}, "i2": {"i2.c0": "Memory"}}  # i2.c1: no source
    baseline = [trial("m", "i1", "pass"), trial("m", "i2", "pass", "pass")]
    candidate = [trial("m", "i1", "fail"), trial("m", "i2", "pass", "fail")]
    groups = paired_trials(baseline, candidate, sources=sources)
    assert list(groups) == [("m", ALL_SOURCES), ("m", "Memory"), ("m", "SP"), ("m", "other")]


def test_groups_of_two_keys_are_ordered_by_both() -> None:
    sources = {"i": {"i.c0": "SP"}}
    baseline = [trial("m", "i", "pass", scaffold=s) for s in ("kilo", "chat")]
    candidate = [trial("m", "i", "fail", scaffold=s) for s in ("kilo", "chat")]
    groups = paired_trials(baseline, candidate, by=("model", "scaffold"), sources=sources)
    assert list(groups) == [
        ("m", "chat", ALL_SOURCES),
        ("m", "chat", "SP"),
        ("m", "kilo", ALL_SOURCES),
        ("m", "kilo", "SP"),
    ]


def test_a_source_only_one_side_has_checks_of_pairs_nothing() -> None:
    """Nothing applicable on one side: no pair for that source (and no crash)."""
    sources = {"i": {"i.c0": "SP", "i.c1": "Memory"}}
    baseline = [trial("m", "i", "pass")]  # only i.c0
    candidate = [trial("m", "i", "pass", "fail")]  # i.c0 and i.c1
    groups = paired_trials(baseline, candidate, sources=sources)
    assert set(groups) == {("m", ALL_SOURCES), ("m", "SP")}
    (pair,) = groups[("m", "SP")]
    assert (pair.baseline.applicable, pair.candidate.applicable) == (1, 1)


def test_a_pair_is_a_value() -> None:
    (pair,) = paired_trials([trial("m", "i", "pass")], [trial("m", "i", "pass")])[
        ("m", ALL_SOURCES)
    ]
    assert isinstance(pair, Pair)
    with pytest.raises(dataclasses.FrozenInstanceError):
        pair.cluster = "x"  # type: ignore[misc]
