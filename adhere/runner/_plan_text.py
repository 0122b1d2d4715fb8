"""A trial plan in words: what ``adhere plan`` prints and ``run``/``validate`` summarize."""

from __future__ import annotations

from collections import defaultdict

from adhere.runner._plan import TrialPlan
from adhere.spec import Rollout

__all__ = ["describe_plan", "plan_summary"]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def plan_summary(rollout: Rollout, plan: TrialPlan) -> str:
    """One line: instances, models, scaffolds at their versions, repeats, trials."""
    spec = rollout.spec
    scaffolds = ", ".join(f"{name} {p.version}" for name, p in plan.scaffolds.items())
    skipped = f" ({len(plan.skipped)} skipped)" if plan.skipped else ""
    return (
        f"{_plural(len(plan.instances_run()), 'instance')}{skipped} × "
        f"{_plural(len(spec.models), 'model')} × {_plural(spec.repeats, 'repeat')} "
        f"under {scaffolds} = {_plural(len(plan.trials), 'trial')}"
    )


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            cell.rjust(w) if n == len(row) - 1 else cell.ljust(w)
            for n, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


def describe_plan(rollout: Rollout, plan: TrialPlan) -> list[str]:
    """The plan: trials per model × scaffold × version, version notes, skipped instances."""
    lines = [f"Rollout {rollout.metadata.name}: {plan_summary(rollout, plan)}", ""]
    rows: list[tuple[str, ...]] = [("model", "scaffold", "version", "trials")]
    rows += [(m, s, v, str(n)) for (m, s, v), n in plan.counts().items()]
    lines += ["Trials per model × scaffold × version:", *(f"  {r}" for r in _table(rows))]
    notes = [(name, note) for name, p in plan.scaffolds.items() for note in p.notes]
    if notes:
        lines += ["", "Versions:"]
        lines += [f"  {name}: {note}" for name, note in notes]
    if plan.idle:
        lines += ["", "Listed scaffolds no instance names (they run nothing):"]
        lines += [f"  {name}" for name in plan.idle]
    if plan.skipped:
        lines += ["", f"Skipped: {_plural(len(plan.skipped), 'instance')}, no trial planned:"]
        by_reason: dict[str, list[str]] = defaultdict(list)
        for item in plan.skipped:
            by_reason[item.reason].append(item.instance)
        for reason, ids in by_reason.items():
            shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
            lines.append(f"  {_plural(len(ids), 'instance')}: {reason}: {shown}")
    return lines
