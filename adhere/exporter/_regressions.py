"""Regression series: a rollout against its baseline, per model and instruction source.

The statistics are :func:`adhere.metrics.compare_trials` — intervals by a bootstrap
over instances, McNemar's exact or the instance-level permutation test, the minimum
sample rule and the Benjamini–Hochberg correction over the comparison; ``adhere
compare`` and its ``--fail-on-regression`` use the same rows. Results are cached by a
fingerprint of both rollouts' verdicts, so they are recomputed only when a verdict
changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from adhere.core import Instance
from adhere.exporter._families import OTHER, Families
from adhere.exporter._read import RolloutData
from adhere.metrics import (
    MetricRegression,
    RegressionRow,
    RegressionSettings,
    ScoredTrial,
    compare_trials,
)

__all__ = ["RegressionCache", "add_regressions", "check_sources"]


def check_sources(*instance_sets: Mapping[str, Instance]) -> dict[str, dict[str, str]]:
    """Instance id → check id → instruction source, over every given instance set."""
    out: dict[str, dict[str, str]] = {}
    for instances in instance_sets:
        for instance in instances.values():
            out.setdefault(instance.id, {}).update({c.id: c.source.value for c in instance.checks})
    return out


def _fingerprint(trials: list[ScoredTrial], settings: RegressionSettings) -> str:
    digest = hashlib.sha256(repr(settings).encode())
    for trial in trials:
        keys = (trial.keys.get(k) for k in ("model", "scaffold", "instance", "repeat"))
        digest.update(repr((*keys, [(v.check_id, v.result) for v in trial.verdicts])).encode())
    return digest.hexdigest()


class RegressionCache:
    """Regression rows per (candidate, baseline), recomputed when the verdicts change."""

    def __init__(self) -> None:
        self._rows: dict[tuple[str, str], tuple[str, list[RegressionRow]]] = {}

    def rows(
        self, candidate: RolloutData, baseline: RolloutData, settings: RegressionSettings
    ) -> list[RegressionRow]:
        """The comparison rows of ``candidate`` against ``baseline``."""
        after = [t.scored for t in candidate.trials]
        before = [t.scored for t in baseline.trials]
        key = (candidate.name, baseline.name)
        fingerprint = _fingerprint(before + after, settings)
        hit = self._rows.get(key)
        if hit is not None and hit[0] == fingerprint:
            return hit[1]
        sources = check_sources(baseline.instances, candidate.instances)
        rows = compare_trials(before, after, sources=sources, settings=settings)
        self._rows[key] = (fingerprint, rows)
        return rows


def add_regressions(
    families: Families,
    rows: list[RegressionRow],
    rollout: str,
    baseline: str,
    models: Mapping[str, str],
) -> None:
    """Add the regression families of one rollout (models beyond the bound are left out)."""
    for row in rows:
        if models.get(row.model, OTHER) == OTHER:
            continue
        labels = {
            "rollout": rollout,
            "baseline": baseline,
            "model": row.model,
            "source": row.source,
        }
        families.set(
            "adhere_regression_pairs",
            "Trials both rollouts ran (model, scaffold, "
            "instance, repeat) with an applicable check of the source.",
            labels,
            row.regression.pairs,
        )
        families.set(
            "adhere_regression_instances",
            "Instances among those trials: the unit the tests and intervals resample.",
            labels,
            row.regression.clusters,
        )
        families.set(
            "adhere_regression_insufficient_data",
            "1 when too few instances are shared for a test (no p-value, never flagged).",
            labels,
            1.0 if row.regression.insufficient else 0.0,
        )
        for result in (row.regression.isr, row.regression.csr):
            _add_metric(families, {**labels, "metric": result.metric}, result)


def _add_metric(families: Families, metric: dict[str, str], result: MetricRegression) -> None:
    families.set(
        "adhere_regression_delta",
        "Paired difference candidate − baseline of ISR or CSR over the shared trials.",
        metric,
        result.delta,
    )
    families.set(
        "adhere_regression_baseline_rate",
        "The baseline's ISR or CSR over the shared trials.",
        metric,
        result.baseline,
    )
    families.set(
        "adhere_regression_candidate_rate",
        "The candidate's ISR or CSR over the shared trials.",
        metric,
        result.candidate,
    )
    if result.delta_ci is not None:
        families.set(
            "adhere_regression_ci_lower",
            "Lower bound of the 95 % interval of the difference (bootstrap over instances).",
            metric,
            result.delta_ci.low,
        )
        families.set(
            "adhere_regression_ci_upper",
            "Upper bound of the 95 % interval of the difference (bootstrap over instances).",
            metric,
            result.delta_ci.high,
        )
    if result.p_value is not None:
        families.set(
            "adhere_regression_p_value",
            "Two-sided p-value of the difference, before correction (test: mcnemar for "
            "ISR with one pair per instance, else permutation over instances).",
            {**metric, "test": result.test},
            result.p_value,
        )
    if result.p_adjusted is not None:
        families.set(
            "adhere_regression_p_adjusted",
            "The p-value after the Benjamini–Hochberg correction over every "
            "(model, source, metric) of the comparison.",
            metric,
            result.p_adjusted,
        )
    families.set(
        "adhere_regression_flag",
        "1 when the drop reaches the threshold with a corrected p-value below alpha.",
        metric,
        1.0 if result.regressed else 0.0,
    )
