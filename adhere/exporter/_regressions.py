"""Regression series: a rollout against its baseline, per model and instruction source.

The statistics are :func:`adhere.metrics.compare_trials` (paired bootstrap and
McNemar's exact test over the trials both rollouts ran); ``adhere compare`` prints
the same rows. Results are cached by a fingerprint of both rollouts' verdicts, so
the bootstrap runs again only when a verdict changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from adhere.core import Instance
from adhere.exporter._families import OTHER, Families
from adhere.exporter._read import RolloutData
from adhere.metrics import RegressionRow, RegressionSettings, ScoredTrial, compare_trials

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
        for result in (row.regression.isr, row.regression.csr):
            metric = {**labels, "metric": result.metric}
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
            families.set(
                "adhere_regression_ci_lower",
                "Lower bound of the bootstrap interval of the difference.",
                metric,
                result.bootstrap.ci_lower,
            )
            families.set(
                "adhere_regression_ci_upper",
                "Upper bound of the bootstrap interval of the difference.",
                metric,
                result.bootstrap.ci_upper,
            )
            doc = "p-value of the difference (bootstrap: paired over instances; mcnemar: exact)."
            families.set(
                "adhere_regression_p_value",
                doc,
                {**metric, "test": "bootstrap"},
                result.bootstrap.p_value,
            )
            if result.p_mcnemar is not None:
                families.set(
                    "adhere_regression_p_value",
                    doc,
                    {**metric, "test": "mcnemar"},
                    result.p_mcnemar,
                )
            families.set(
                "adhere_regression_flag",
                "1 when the drop reaches the threshold "
                "with a p-value below alpha (McNemar for ISR, bootstrap for CSR).",
                metric,
                1.0 if result.regressed else 0.0,
            )
