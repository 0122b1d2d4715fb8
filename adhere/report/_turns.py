"""Figure 3 of the OctoBench paper: ISR by number of interaction turns.

The paper (§4.3.3) relates ISR to "interaction length … as interaction history
accumulates"; its normalized trajectories (§3.2, App. F.2) annotate **assistant
turns** with indices — one per model response, whether it says something or calls
tools. A trial's number of interaction turns is therefore the number of assistant
messages of its main conversation (:meth:`adhere.core.Trajectory.assistant_turns`;
sub-agent and auxiliary conversations are apart and not counted). The user turns of
an instance do not measure it: 71 of the 72 published instances have one.

Trials are put in fixed bins (:data:`TURN_BINS`, the same in every report so that
reports compare), pooled over scaffolds; each point follows the report's judge rule:
the mean ISR across judges, its bar ± the standard deviation across judges (``mean``),
or the majority vote's ISR (``majority``). Trials
without a stored trajectory (an upstream fault, a run that crashed before its first
call) are left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from adhere.artifacts import RolloutStore
from adhere.metrics import ScoredTrial, Table
from adhere.report._judges import across_judges, combined_by
from adhere.report._plot import Span, line_plot_svg

__all__ = ["TURN_BINS", "interaction_turns", "turn_bin", "turns_figure"]

TURN_BINS: tuple[tuple[int, int | None], ...] = (
    (0, 0),
    (1, 5),
    (6, 10),
    (11, 20),
    (21, 40),
    (41, 80),
    (81, None),
)
"""Interaction-turn bins, inclusive; ``None``: no upper end."""

BIN = "turn bin"


def turn_bin(turns: int) -> int:
    """The index in :data:`TURN_BINS` of a trial with ``turns`` assistant turns."""
    if turns < 0:
        raise ValueError(f"a number of turns is never negative, got {turns}")
    for index, (low, high) in enumerate(TURN_BINS):
        if low <= turns and (high is None or turns <= high):
            return index
    raise AssertionError("TURN_BINS cover every non-negative number")  # pragma: no cover


def bin_label(index: int) -> str:
    """``1–5``, ``81+``, ``0``."""
    low, high = TURN_BINS[index]
    if high is None:
        return f"{low}+"
    return str(low) if low == high else f"{low}–{high}"


def interaction_turns(store: RolloutStore) -> dict[str, int]:
    """Trial id → assistant turns of its stored trajectory (trials without one absent).

    A trajectory.json that cannot be read leaves its trial out of the figure (the trial
    viewer's page names the file) instead of failing the whole report.
    """
    out: dict[str, int] = {}
    for stored in store.iter_trials():
        try:
            trajectory = store.read_trajectory(stored.result.trial)
        except ValueError:  # not JSON, or not a trajectory (pydantic's ValidationError)
            continue
        if trajectory is not None:
            out[stored.result.trial.id] = len(trajectory.assistant_turns())
    return out


def turns_figure(
    per_judge: Sequence[ScoredTrial], turns: Mapping[str, int], isr_name: str = "ISR"
) -> tuple[Table, str] | None:
    """The Figure 3 table (model × turn bin) and its plot; ``None`` without turns."""
    binned = [
        replace(t, keys={**t.keys, BIN: turn_bin(turns[str(t.keys.get("trial"))])})
        for t in per_judge
        if str(t.keys.get("trial")) in turns
    ]
    if not binned:
        return None
    cells = across_judges(binned, ("model", BIN))
    bins = sorted({int(k[1]) for k in cells})
    models = sorted({str(k[0]) for k in cells})
    rows = []
    series: dict[str, list[tuple[float, float]]] = {}
    errors: dict[str, dict[float, Span]] = {}
    for model in models:
        row = [model]
        for index in bins:
            found = cells.get((model, index))
            if found is None:
                row.append("–")
                continue
            trials = max(r.trials for r in found.judges.values())
            row.append(f"{found.cell('isr')} (n={trials})")
            mean, std = found.mean("isr"), found.std("isr")
            if mean is not None:
                series.setdefault(model, []).append((float(index), mean))
                if std is not None:
                    errors.setdefault(model, {})[float(index)] = (
                        max(0.0, mean - std),
                        min(1.0, mean + std),
                    )
        rows.append(row)
    title = f"Figure 3 — {isr_name} by number of interaction turns (assistant turns)"
    table = Table(
        title=f"{title}: {combined_by(per_judge)} (n: trials)",
        header=["model", *(f"{bin_label(i)} turns" for i in bins)],
        rows=rows,
    )
    svg = line_plot_svg(
        series,
        title=f"{title}; bars: ± std across judges",
        x_label="interaction turns (assistant turns of the trajectory)",
        y_label=isr_name,
        errors=errors,
        x_ticks={float(i): bin_label(i) for i in bins},
    )
    return table, svg
