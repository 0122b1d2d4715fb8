"""Conflict attribution while scoring: the judge panel says which side a run followed.

For a trial of an OctoBench-Conflict instance (one that carries ``metadata["conflict"]``)
every judge of the rollout's panel is asked which of the two contradicting
instructions the run ultimately followed (:func:`adhere.judging.run_conflict_panel`:
the same clients, rate limits, prefix ordering, verdict cache and re-asks as the
checks' judging). Each judge's attribution is stored in the trial's
``conflict_verdicts.json``; the report's Table 4 is computed from them, and the two
deterministic side checks stay as a cross-check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from adhere.artifacts import RolloutStore
from adhere.core import Instance, Trajectory, Trial, Verdict
from adhere.judging import (
    ConflictQuestion,
    ConflictSide,
    PanelJudge,
    VerdictCache,
    run_conflict_panel,
)
from adhere.metrics import conflict_of

__all__ = ["conflict_question", "judge_conflict_trial"]


def conflict_question(instance: Instance) -> ConflictQuestion | None:
    """What the attribution judge is asked about ``instance`` (``None``: not a conflict)."""
    conflict = conflict_of(instance.metadata)
    if conflict is None:
        return None
    described = {c.id: c.description for c in instance.checks}
    sides = [
        ConflictSide(
            source=str(side["source"]),
            instruction=str(side.get("instruction") or described.get(str(side["check"]), "")),
            check=described.get(str(side["check"]), ""),
        )
        for side in conflict["sides"]
    ]
    return ConflictQuestion(
        kind=str(conflict.get("type", f"{sides[0].source} vs {sides[1].source}")),
        scenario=str(conflict.get("scenario", "")),
        a=sides[0],
        b=sides[1],
    )


async def judge_conflict_trial(
    store: RolloutStore,
    trial: Trial,
    instance: Instance,
    trajectory: Trajectory,
    judges: Sequence[PanelJudge],
    cache: VerdictCache | None,
) -> Mapping[str, Verdict] | None:
    """Ask every judge about a conflict trial and store the attributions.

    Returns ``None`` (and stores nothing) for an instance that is not a conflict.
    Without judges an empty attribution set is stored, so an earlier pass's
    attributions never outlive a re-score without a panel.
    """
    question = conflict_question(instance)
    if question is None:
        return None
    found: Mapping[str, Verdict] = {}
    if judges:
        found = await run_conflict_panel(judges, question, trajectory, cache=cache)
    store.write_conflict_verdicts(trial, found)
    return found
