"""Tier variants (6/8/12) and scalar perturbations: conflict counts, fixed winners, flips."""

from pathlib import Path

import pytest

from adhere.core import Verdict
from adhere.metrics import ScoredTrial
from adhere.suites.manyih import (
    TIER_CONFLICTS,
    CodingSample,
    flip_rates,
    load_coding,
    n_conflicts,
    perturb,
    prompt_order,
    tier_variant,
    winners,
)
from tests.helpers import ROOT

DATA = ROOT.parent / "shared" / "data" / "manyih" / "coding.json"


@pytest.fixture(scope="module")
def samples() -> list[CodingSample]:
    return load_coding(Path(DATA))


def test_tier_variants_conflict_counts_and_fixed_winners(samples: list[CodingSample]) -> None:
    assert TIER_CONFLICTS == {6: (0, 0), 8: (2, 4), 12: (7, 11)}
    for sample in samples:
        groups = {i.style_key for i in sample.instructions}
        for tiers, (low, high) in TIER_CONFLICTS.items():
            variant = tier_variant(sample, tiers, seed=0)
            assert len(variant.instructions) == tiers
            assert low <= n_conflicts(variant) <= high, (sample.id, tiers)
            assert variant.metadata["n_conflicts"] == n_conflicts(variant)
            assert winners(variant) == winners(sample)
            assert {i.style_key for i in variant.instructions} == groups
            prompt_order(variant)  # its prompt lists every kept instruction, re-ranked


def test_tier_variant_is_seeded(samples: list[CodingSample]) -> None:
    sample = samples[5]
    first = tier_variant(sample, 8, seed=0)
    assert tier_variant(sample, 8, seed=0) == first
    picks = {
        tuple(sorted(i.id for i in tier_variant(sample, 8, seed=s).instructions)) for s in range(8)
    }
    assert len(picks) > 1
    assert tier_variant(sample, 12) is sample


def test_tier_variant_limits(samples: list[CodingSample]) -> None:
    with pytest.raises(ValueError, match="outside 6–12"):
        tier_variant(samples[0], 5)
    with pytest.raises(ValueError, match="outside"):
        tier_variant(samples[0], 13)


def test_perturbation_keeps_order_and_ties(samples: list[CodingSample]) -> None:
    for sample in samples[:50]:
        for k in (1, 2, 3):
            moved = perturb(sample, k, seed=4)
            old = [i.privilege for i in sample.instructions]
            new = [i.privilege for i in moved.instructions]
            assert new != old and all(1 <= v <= 100 for v in new)
            for a in range(12):
                for b in range(12):
                    assert (old[a] < old[b]) == (new[a] < new[b])
                    assert (old[a] == old[b]) == (new[a] == new[b])
            assert winners(moved) == winners(sample)
            assert moved.prompt == sample.prompt  # the ordinal rendering does not move
            assert moved.metadata["perturbation"] == k
    assert perturb(samples[0], 1, seed=4) == perturb(samples[0], 1, seed=4)
    assert perturb(samples[0], 1, seed=4) != perturb(samples[0], 2, seed=4)
    with pytest.raises(ValueError, match="start at 1"):
        perturb(samples[0], 0)


def trial(model: str, base: str, k: int, passed: bool) -> ScoredTrial:
    verdicts = [
        Verdict(check_id="tests", result="pass", decided_by="t"),
        Verdict(check_id="style:indent_4", result="pass" if passed else "fail", decided_by="t"),
    ]
    keys = {"model": model, "base": base, "perturbation": k, "repeat": 0, "subset": "coding"}
    return ScoredTrial(keys=keys, status="ok", verdicts=verdicts)


def test_flip_rates_by_hand() -> None:
    trials = [
        # sample a: original passes; perturbations pass, fail, fail → 2/3 flipped
        trial("m", "a", 0, True), trial("m", "a", 1, True), trial("m", "a", 2, False),
        trial("m", "a", 3, False),
        # sample b: original fails; all perturbations fail → no flip
        trial("m", "b", 0, False), trial("m", "b", 1, False), trial("m", "b", 2, False),
        trial("m", "b", 3, False),
        # sample c: no perturbations → not counted
        trial("m", "c", 0, True),
    ]  # fmt: skip
    rates = flip_rates(trials, ["model"])
    assert rates == {("m",): [pytest.approx(2 / 3), 0.0]}
