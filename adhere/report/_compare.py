"""``adhere compare``: a candidate rollout against a baseline, as a table and a report.

The statistics are :func:`adhere.metrics.compare_trials` — the same the exporter
publishes as ``adhere_regression_*`` series for a rollout with a baseline.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from adhere.artifacts import RolloutStore, open_rollout_dir
from adhere.metrics import (
    ALL_SOURCES,
    RegressionRow,
    RegressionSettings,
    Table,
    compare_trials,
    signed_points,
)
from adhere.report._results import collect
from adhere.store import open_store

__all__ = ["Comparison", "compare_stores", "comparison_table", "open_run", "render_comparison"]


@dataclass(frozen=True)
class Comparison:
    """A candidate rollout compared with a baseline.

    Attributes:
        baseline: The baseline rollout's name.
        candidate: The candidate rollout's name.
        settings: How the differences were tested and flagged.
        rows: One per model and instruction source (``all`` first).
        trials: Finished trials of each side (``baseline``, ``candidate``).
        unpaired: Trials of each side without a counterpart (other models, instances,
            scaffolds or repeats); they are left out of every row.
    """

    baseline: str
    candidate: str
    settings: RegressionSettings
    rows: list[RegressionRow]
    trials: dict[str, int]
    unpaired: dict[str, int]

    @property
    def regressed(self) -> list[RegressionRow]:
        """The rows flagged as regressions."""
        return [r for r in self.rows if r.regression.regressed]


def open_run(ref: str | Path) -> RolloutStore:
    """A rollout's store from its artifact directory or its rollout YAML."""
    from adhere.spec import load_run_config

    path = Path(ref)
    if path.is_file():
        config = load_run_config([path])
        return RolloutStore(
            open_store(config.rollout.spec.storage, base_dir=config.base_dir),
            config.rollout.metadata.name,
        )
    return open_rollout_dir(path)


def compare_stores(
    baseline: RolloutStore, candidate: RolloutStore, settings: RegressionSettings | None = None
) -> Comparison:
    """Compare two rollouts' stored verdicts."""
    settings = settings or RegressionSettings()
    before, after = collect(baseline), collect(candidate)
    sources: dict[str, dict[str, str]] = {}
    for instances in (before.instances, after.instances):
        for instance in instances.values():
            sources.setdefault(instance.id, {}).update(
                {c.id: c.source.value for c in instance.checks}
            )
    rows = compare_trials(before.trials, after.trials, sources=sources, settings=settings)
    keys = ("model", "scaffold", "instance", "repeat")
    sides = {
        "baseline": Counter(tuple(t.keys.get(k) for k in keys) for t in before.trials),
        "candidate": Counter(tuple(t.keys.get(k) for k in keys) for t in after.trials),
    }
    shared = sides["baseline"] & sides["candidate"]
    return Comparison(
        baseline=before.rollout,
        candidate=after.rollout,
        settings=settings,
        rows=rows,
        trials={"baseline": len(before.trials), "candidate": len(after.trials)},
        unpaired={side: sum((c - shared).values()) for side, c in sides.items()},
    )


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def _interval(low: float, high: float) -> str:
    return f"[{low * 100:+.1f}, {high * 100:+.1f}]"


def _p(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.3g}" if value >= 0.001 else "<0.001"


def comparison_table(comparison: Comparison) -> Table:
    """One row per model and source: rates, Δ with its interval, p-values, the flag."""
    rows = []
    for row in comparison.rows:
        r = row.regression
        flagged = [m.metric.upper() for m in (r.isr, r.csr) if m.regressed]
        rows.append(
            [
                row.model,
                row.source,
                str(r.pairs),
                _pct(r.isr.baseline),
                _pct(r.isr.candidate),
                signed_points(r.isr.delta),
                _interval(r.isr.bootstrap.ci_lower, r.isr.bootstrap.ci_upper),
                _p(r.isr.p_mcnemar),
                _p(r.isr.bootstrap.p_value),
                _pct(r.csr.baseline),
                _pct(r.csr.candidate),
                signed_points(r.csr.delta),
                _interval(r.csr.bootstrap.ci_lower, r.csr.bootstrap.ci_upper),
                _p(r.csr.bootstrap.p_value),
                "REGRESSED " + ", ".join(flagged) if flagged else "",
            ]
        )
    confidence = f"{comparison.settings.confidence * 100:g}% CI (pp)"
    return Table(
        title=f"{comparison.candidate} against {comparison.baseline}",
        header=[
            "model",
            "source",
            "pairs",
            "ISR base",
            "ISR cand",
            "ΔISR",
            confidence,
            "p McNemar",
            "p bootstrap",
            "CSR base",
            "CSR cand",
            "ΔCSR",
            confidence,
            "p bootstrap",
            "flag",
        ],
        rows=rows,
    )


def comparison_notes(comparison: Comparison) -> list[str]:
    """What the reader needs to read the table."""
    s = comparison.settings
    notes = [
        f"Δ is candidate − baseline over the trials both ran (same model, scaffold, "
        f"instance and repeat); source `{ALL_SOURCES}` counts every check, the other rows "
        "the checks of one instruction source.",
        f"A row is flagged when Δ ≤ −{s.threshold * 100:g} pp with p < {s.alpha:g} "
        "(McNemar's exact test for ISR, the paired bootstrap for CSR); the bootstrap "
        f"resamples instances, {s.samples} draws, seed {s.seed}.",
    ]
    for side in ("baseline", "candidate"):
        if comparison.unpaired[side]:
            notes.append(
                f"{comparison.unpaired[side]} of {comparison.trials[side]} {side} trials "
                "have no counterpart and are left out."
            )
    if not comparison.rows:
        notes.append("The two rollouts share no trial: nothing to compare.")
    return notes


def render_comparison(comparison: Comparison) -> str:
    """The comparison as Markdown."""
    table = comparison_table(comparison)
    out = [f"# Regression: `{comparison.candidate}` against `{comparison.baseline}`", ""]
    flagged = comparison.regressed
    if flagged:
        names = ", ".join(f"{r.model} / {r.source}" for r in flagged)
        out += [f"**{len(flagged)} regression(s):** {names}", ""]
    else:
        out += ["No regression flagged.", ""]
    out += [f"- {note}" for note in comparison_notes(comparison)]
    out += ["", "| " + " | ".join(table.header) + " |"]
    out.append("|" + "|".join("---" for _ in table.header) + "|")
    out += ["| " + " | ".join(row) + " |" for row in table.rows]
    out.append("")
    return "\n".join(out)
