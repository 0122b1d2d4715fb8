"""The ``--format json`` documents of ``run``, ``score``, ``plan`` and ``validate``.

Built from the objects the commands print from (:class:`~adhere.runner.RunSummary`,
:class:`~adhere.scoring.ScoreSummary`, the trial plan and its estimates, what
``validate`` found); ``report`` and ``compare`` documents come from
:mod:`adhere.report`. The shapes are documented in docs/results.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from adhere.report import JSON_FORMAT, jsonable, report_json

if TYPE_CHECKING:
    from adhere.report import Report
    from adhere.runner import ModelEstimate, TrialPlan, Validated
    from adhere.spec import Rollout

__all__ = ["plan_json", "run_json", "score_json", "validate_json"]


def _scoring(summary: Any) -> dict[str, Any] | None:
    if summary is None:
        return None
    return {**jsonable(summary), "complete": summary.complete}


def run_json(store: str, summary: Any, report: Report | None, complete: bool) -> dict[str, Any]:
    """``adhere run``'s final summary: trials run, scoring, the report, completeness."""
    trials = {k: v for k, v in jsonable(summary).items() if k != "scoring"}
    return {
        "format": JSON_FORMAT,
        "kind": "run",
        "store": store,
        "trials": trials,
        "scoring": _scoring(summary.scoring),
        "complete": complete,
        "report": report_json(report) if report is not None else None,
    }


def score_json(store: str, summary: Any, report: Report | None, complete: bool) -> dict[str, Any]:
    """``adhere score``: what the scoring pass decided, the report, completeness."""
    return {
        "format": JSON_FORMAT,
        "kind": "score",
        "store": store,
        "scoring": _scoring(summary),
        "complete": complete,
        "report": report_json(report) if report is not None else None,
    }


def plan_json(
    rollout: Rollout, plan: TrialPlan, estimates: Sequence[ModelEstimate]
) -> dict[str, Any]:
    """``adhere plan``: trials per model × scaffold × version, what is left out, estimates."""
    priced = [e.cost for e in estimates if e.cost is not None]
    return {
        "format": JSON_FORMAT,
        "kind": "plan",
        "rollout": rollout.metadata.name,
        "trials": len(plan.trials),
        "instances": len(plan.instances_run()),
        "repeats": rollout.spec.repeats,
        "groups": [
            {"model": m, "scaffold": s, "version": v, "trials": n}
            for (m, s, v), n in plan.counts().items()
        ],
        "scaffolds": [
            {"name": name, "version": p.version, "notes": list(p.notes)}
            for name, p in plan.scaffolds.items()
        ],
        "idle": list(plan.idle),
        "skipped": [{"instance": s.instance, "reason": s.reason} for s in plan.skipped],
        "estimates": [jsonable(e) for e in estimates],
        "total_cost": sum(priced) if priced else None,
    }


def validate_json(checked: Sequence[Validated]) -> dict[str, Any]:
    """``adhere validate``: every file checked, with what it holds (one line a resource)."""
    return {
        "format": JSON_FORMAT,
        "kind": "validate",
        "valid": True,
        "files": [{"file": done.file, "holds": list(done.lines)} for done in checked],
    }
