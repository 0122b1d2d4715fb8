"""``adhere compare``: a candidate rollout against a baseline, as a table and a report.

The statistics are :func:`adhere.metrics.compare_trials` — the same rows the exporter
publishes as ``adhere_regression_*`` series for a rollout with a baseline, and the
same flags ``--fail-on-regression`` exits on. Rates and differences are shown with
their intervals; rows with too few instances say ``insufficient data``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from adhere.artifacts import RolloutStore, open_rollout
from adhere.metrics import (
    ALL_SOURCES,
    MIN_INSTANCES,
    Interval,
    Regression,
    RegressionRow,
    RegressionSettings,
    Table,
    compare_trials,
    pct,
    signed_points,
)
from adhere.report._results import collect
from adhere.store import open_store

__all__ = ["Comparison", "compare_stores", "comparison_table", "open_run", "render_comparison"]

PANEL_VOTE = "panel:majority"
"""``decided_by`` of a judge panel's majority-vote verdict."""


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
        judged: Some check of either side was decided by a judge panel (its vote).
    """

    baseline: str
    candidate: str
    settings: RegressionSettings
    rows: list[RegressionRow]
    trials: dict[str, int]
    unpaired: dict[str, int]
    judged: bool = False

    @property
    def regressed(self) -> list[RegressionRow]:
        """The rows flagged as regressions."""
        return [r for r in self.rows if r.regression.regressed]


def open_run(ref: str | Path) -> RolloutStore:
    """A rollout's store from its artifact directory, its rollout YAML or a store URI.

    The URI ends in the rollout: ``s3://bucket/runs/quickstart?endpoint_url=…`` or
    ``file:///…/runs/quickstart`` (see :func:`adhere.artifacts.open_rollout`).
    """
    from adhere.spec import load_run_config

    if "://" in str(ref):
        return open_rollout(ref)
    path = Path(ref)
    if path.is_file():
        config = load_run_config([path])
        return RolloutStore(
            open_store(config.rollout.spec.storage, base_dir=config.base_dir),
            config.rollout.metadata.name,
        )
    return open_rollout(path)


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
        judged=any(
            v.decided_by == PANEL_VOTE for t in (*before.trials, *after.trials) for v in t.verdicts
        ),
    )


def _rate(value: float, interval: Interval | None) -> str:
    """``80.0% [61.2, 92.1]``: a rate with its interval (``[–]`` when there is none)."""
    if interval is None:
        return f"{pct(value)} [–]"
    return f"{pct(value)} [{interval.low * 100:.1f}, {interval.high * 100:.1f}]"


def _delta(value: float, interval: Interval | None) -> str:
    """``-20.0 pp [-35.1, -5.2]``: a difference with its interval."""
    if interval is None:
        return f"{signed_points(value)} [–]"
    return f"{signed_points(value)} [{interval.low * 100:+.1f}, {interval.high * 100:+.1f}]"


def _p(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.3g}" if value >= 0.001 else "<0.001"


def _flag(regression: Regression) -> str:
    flagged = [m.metric.upper() for m in (regression.isr, regression.csr) if m.regressed]
    if flagged:
        return "REGRESSED " + ", ".join(flagged)
    return "insufficient data" if regression.insufficient else ""


def comparison_table(comparison: Comparison) -> Table:
    """One row per model and source: rates and Δ with intervals, tests, the flag."""
    rows = []
    for row in comparison.rows:
        r = row.regression
        rows.append(
            [
                row.model,
                row.source,
                str(r.clusters),
                str(r.pairs),
                _rate(r.isr.baseline, r.isr.baseline_ci),
                _rate(r.isr.candidate, r.isr.candidate_ci),
                _delta(r.isr.delta, r.isr.delta_ci),
                "–" if r.insufficient else r.isr.test,
                _p(r.isr.p_value),
                _p(r.isr.p_adjusted),
                _rate(r.csr.baseline, r.csr.baseline_ci),
                _rate(r.csr.candidate, r.csr.candidate_ci),
                _delta(r.csr.delta, r.csr.delta_ci),
                _p(r.csr.p_value),
                _p(r.csr.p_adjusted),
                _flag(r),
            ]
        )
    return Table(
        title=f"{comparison.candidate} against {comparison.baseline}",
        header=[
            "model",
            "source",
            "instances",
            "pairs",
            "ISR base",
            "ISR cand",
            "ΔISR",
            "ISR test",
            "p",
            "p adj.",
            "CSR base",
            "CSR cand",
            "ΔCSR",
            "p",
            "p adj.",
            "flag",
        ],
        rows=rows,
    )


def comparison_notes(comparison: Comparison) -> list[str]:
    """What the reader needs to read the table."""
    s = comparison.settings
    level = f"{s.confidence * 100:g}%"
    notes = [
        f"Δ is candidate − baseline over the trials both ran (same model, scaffold, "
        f"instance and repeat); source `{ALL_SOURCES}` counts every check, the other rows "
        "the checks of one instruction source.",
        f"[low, high] are {level} intervals: Δ by a bootstrap over instances ({s.samples} "
        f"draws, seed {s.seed}); a rate by Wilson's interval when each instance has one "
        "trial, else by the same bootstrap; [–]: none can be given (fewer than two "
        "instances, or every instance alike).",
        "Tests are two-sided and per instance: ISR by McNemar's exact test when each "
        "instance has one pair, otherwise (and for CSR) by the sign-flip permutation test "
        "over instances. `p adj.` is Benjamini–Hochberg over every p-value of the table.",
        f"A row is flagged when Δ ≤ −{s.threshold * 100:g} pp with p adj. < {s.alpha:g}. "
        f"Rows with fewer than {MIN_INSTANCES} instances, or too few for any p-value to "
        f"fall below {s.alpha:g}, are `insufficient data`: no p-value, never flagged.",
    ]
    if comparison.judged:
        notes.append(
            "Judge-decided checks count by the panel's majority vote (the stored verdicts), "
            "whatever the JudgePanel's aggregation: the paired tests need one pass/fail per "
            "check of each trial, which a mean over judges does not give. A run report "
            "under the `mean` rule can therefore show other rates than this comparison."
        )
    short = sum(1 for r in comparison.rows if r.regression.insufficient)
    if short:
        notes.append(
            f"{short} of {len(comparison.rows)} row(s) have insufficient data "
            f"(fewest instances: {min(r.regression.clusters for r in comparison.rows)})."
        )
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
