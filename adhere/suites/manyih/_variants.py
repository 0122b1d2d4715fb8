"""Tier variants and scalar-value perturbations of a coding sample.

Tier variants keep a sample's style groups and winners and drop losing instructions:
the 6-tier variant keeps only the winners (0 conflicts), the 8-tier variant the
winners and two losers, chosen (seeded) so that 2 to 4 pairs conflict, and the 12-tier
variant is the sample itself (7 to 11 conflicts). Dropping losers never changes the
winners: a kept winner conflicted with no stronger winner, and a kept loser still
conflicts with the stronger winner that beat it.

A scalar perturbation changes the privilege values keeping their order, ties included:
``redraw`` (adhere's default) draws new values in 1–100, ``shift`` (the paper's §6.4)
moves each value by a small random integer. The ordinal rendering is unchanged, the
scalar one is not.
Comparing a model's outcome on the sample and on its perturbations gives its flip rate.
"""

from __future__ import annotations

import hashlib
import itertools
import random

from adhere.suites.manyih._hierarchy import render_prompt
from adhere.suites.manyih._sample import CodingSample, grouped, n_conflicts, tagged, winners

__all__ = ["TIER_CONFLICTS", "perturb", "rng_for", "tier_variant"]

TIER_CONFLICTS: dict[int, tuple[int, int]] = {6: (0, 0), 8: (2, 4), 12: (7, 11)}
"""The conflict counts each tier variant of the published data falls in."""


def rng_for(*parts: object) -> random.Random:
    """A random generator seeded from any values (stable across runs and platforms)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _restrict(sample: CodingSample, keep: set[int], extra: dict[str, object]) -> CodingSample:
    items = [i for i in sample.instructions if i.id in keep]
    instructions = [
        i.model_copy(update={"conflicts_with": [c for c in i.conflicts_with if c in keep]})
        for i in items
    ]
    order = [t for t in tagged(sample) if t.key in keep]
    partial = sample.model_copy(update={"instructions": instructions})
    prompt = render_prompt(sample.original_prompt, order, "ordinal")
    metadata = {
        **sample.metadata,
        "n_instructions": len(instructions),
        "n_conflicts": n_conflicts(partial),
        "expected_styles": grouped(winners(sample)),
        **extra,
    }
    return sample.model_copy(
        update={"instructions": instructions, "prompt": prompt, "metadata": metadata}
    )


def tier_variant(sample: CodingSample, tiers: int, *, seed: int = 0) -> CodingSample:
    """The sample with ``tiers`` instructions: all winners plus seeded losers.

    Raises:
        ValueError: ``tiers`` is below the number of winners or above the number of
            instructions, or no choice of losers gives the conflict range of
            :data:`TIER_CONFLICTS` (8 tiers: 2–4).
    """
    total = len(sample.instructions)
    if tiers == total:
        return sample
    won = set(winners(sample))
    winner_ids = {i.id for i in sample.instructions if i.style_id in won}
    losers = sorted(i.id for i in sample.instructions if i.id not in winner_ids)
    if not len(winner_ids) <= tiers <= total:
        raise ValueError(
            f"sample {sample.id}: {tiers} tiers is outside {len(winner_ids)}–{total} "
            "(winners … all instructions)"
        )
    low, high = TIER_CONFLICTS.get(tiers, (0, 10**6))
    choices = list(itertools.combinations(losers, tiers - len(winner_ids)))
    rng_for("tiers", seed, sample.id, tiers).shuffle(choices)
    by_id = {i.id: i for i in sample.instructions}
    for chosen in choices:
        keep = winner_ids | set(chosen)
        count = sum(1 for a in keep for b in by_id[a].conflicts_with if b in keep) // 2
        if low <= count <= high:
            return _restrict(sample, keep, {"tiers_of": total})
    raise ValueError(f"sample {sample.id}: no {tiers}-tier variant has {low}–{high} conflicts")


def perturb(
    sample: CodingSample, index: int, *, seed: int = 0, mode: str = "redraw", shift: int = 3
) -> CodingSample:
    """Perturbation ``index`` (≥ 1) of the scalar values, order and ties kept.

    ``redraw`` (adhere's default) draws new values in 1–100; ``shift`` (the paper's
    §6.4) moves each distinct value by a random integer in ``[-shift, shift]``, kept
    ≥ 1, so the strict order of the distinct values is preserved and at least one
    value changes.
    """
    if index < 1:
        raise ValueError("perturbation indices start at 1 (0 is the sample itself)")
    if mode not in ("redraw", "shift"):
        raise ValueError(f"unknown perturbation mode {mode!r} (redraw or shift)")
    old = sorted({i.privilege for i in sample.instructions}, reverse=True)
    if mode == "redraw" and len(old) > 100:
        raise ValueError("more than 100 distinct privilege values cannot be redrawn in 1–100")
    rng = rng_for("perturb", seed, sample.id, index)
    new = _shifted(old, rng, shift) if mode == "shift" else _redrawn(old, rng)
    mapping = dict(zip(old, new, strict=True))
    instructions = [
        i.model_copy(update={"privilege": mapping[i.privilege]}) for i in sample.instructions
    ]
    return sample.model_copy(
        update={
            "instructions": instructions,
            "metadata": {**sample.metadata, "perturbation": index, "perturb_seed": seed},
        }
    )


def _redrawn(old: list[int], rng: random.Random) -> list[int]:
    new = old
    for _ in range(100):
        new = sorted(rng.sample(range(1, 101), len(old)), reverse=True)
        if new != old:
            break
    return new


def _shifted(old: list[int], rng: random.Random, shift: int) -> list[int]:
    """Each value (largest first) moved within ``±shift``, kept in order and ≥ 1.

    Each new value stays below the previous new one and leaves room for the smaller
    ones, which is always possible, so nothing is rejected.
    """
    if shift < 1:
        raise ValueError("the shift of a perturbation is at least 1")
    new = old
    for _ in range(100):
        new = []
        for rest, value in zip(range(len(old) - 1, -1, -1), old, strict=True):
            low = max(value - shift, rest + 1)
            high = min(value + shift, new[-1] - 1) if new else value + shift
            new.append(rng.randint(low, high))
        if new != old:
            break
    return new
