"""Pairing two rollouts' trials for a regression: same model, scaffold, instance and repeat.

A candidate trial is paired with the baseline trial of the same grouping keys (the
model), scaffold, instance and repeat; trials without a counterpart are left out. The
cluster of a pair — the unit the statistics resample and test — is its instance.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from adhere.metrics._rates import ScoredTrial, TrialScore, split_trial

__all__ = ["ALL_SOURCES", "MATCH", "Pair", "paired_trials"]

ALL_SOURCES = "all"
"""The ``source`` of a comparison over every check of the trials."""

MATCH = ("scaffold", "instance", "repeat")
"""Keys a pair shares besides the grouping keys."""


@dataclass(frozen=True)
class Pair:
    """One trial scored in the baseline and in the candidate.

    Attributes:
        cluster: The resampling and testing unit (the instance id).
        baseline: How the baseline trial did.
        candidate: How the candidate trial did.
    """

    cluster: str
    baseline: TrialScore
    candidate: TrialScore


def paired_trials(
    baseline: Iterable[ScoredTrial],
    candidate: Iterable[ScoredTrial],
    *,
    by: Sequence[str] = ("model",),
    sources: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[tuple[Any, ...], list[Pair]]:
    """Pairs of shared trials per group of ``by`` keys, and per instruction source.

    Trials match on ``by`` plus scaffold, instance and repeat; the cluster is the
    instance. Groups are keyed ``(*by, source)``: ``source`` is :data:`ALL_SOURCES`
    for every check, and — when ``sources`` (instance id → check id → source) is
    given — each source, over that source's checks only. A pair enters a group only
    when both of its trials are complete there (every check decided: an undecided or
    errored check has no score, so it cannot regress) and have an applicable item. A
    trial whose run failed counts as failed on every check.
    """
    match = [*by, *(k for k in MATCH if k not in by)]
    base = {tuple(t.keys.get(k) for k in match): t for t in baseline}
    out: dict[tuple[Any, ...], list[Pair]] = defaultdict(list)
    for trial in candidate:
        key = tuple(trial.keys.get(k) for k in match)
        before = base.get(key)
        if before is None:
            continue
        group = key[: len(by)]
        cluster = str(trial.keys.get("instance"))
        for source, b, c in _split(before, trial, sources):
            if b.complete and c.complete and b.applicable and c.applicable:
                out[(*group, source)].append(Pair(cluster, b, c))
    return {k: out[k] for k in sorted(out, key=_group_order)}


def _group_order(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """Groups in key order, the :data:`ALL_SOURCES` row of a group first."""
    return (*map(str, key[:-1]), key[-1] != ALL_SOURCES, str(key[-1]))


def _split(
    before: ScoredTrial, after: ScoredTrial, sources: Mapping[str, Mapping[str, str]] | None
) -> list[tuple[str, TrialScore, TrialScore]]:
    out = [(ALL_SOURCES, before.score(), after.score())]
    if sources is None:
        return out
    source_of = sources.get(str(after.keys.get("instance")), {})

    def parts(trial: ScoredTrial) -> dict[str, TrialScore]:
        split = split_trial(trial, lambda check: source_of.get(check, "other"), _SOURCE)
        return {str(t.keys[_SOURCE]): t.score() for t in split}

    b, c = parts(before), parts(after)
    empty = TrialScore(passed=0, applicable=0, errors=0)
    for name in sorted(set(b) | set(c)):
        out.append((name, b.get(name, empty), c.get(name, empty)))
    return out


_SOURCE = "\x00source"
"""The key :func:`split_trial` files a pair's source under (not a grouping key)."""
