"""Per-instruction accuracy (the paper's Figure 6), from stored verdicts. Pure.

Each step of a sample is one check (``step-i``) and names its instruction, so a
rollout's verdicts give, per model and instruction, how many of the steps using that
instruction were answered correctly — aggregated over instruction counts and target
lengths, as the paper's Figure 6 is. Which trials count follows ISR/CSR
(:mod:`adhere.metrics`): a trial the model service failed (``upstream_fault``) is left
out; a trial with an undecided step (no verdict, or ``error``) is left out and counted
apart; a trial that failed to run counts every step as not correct. Nothing
undecided counts as correct.

Beside the paper's share, the share **after a correct step** counts only the steps
whose input the model had right (step 1, or the step before it passed): a step after
a wrong one almost never matches the expected value, so this share separates an
instruction's own difficulty from errors carried down the chain.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from adhere.core import Instance
from adhere.metrics import Interval, ScoredTrial, Table, pct, rate_interval
from adhere.suites.pacific._instructions import by_id

__all__ = ["InstructionTally", "accuracy_tables", "instruction_accuracy", "step_instructions"]

Group = tuple[str, ...]


@dataclass
class InstructionTally:
    """Steps of one instruction in one group (a model, or a model and scaffold)."""

    steps: int = 0
    correct: int = 0
    after_correct: int = 0
    """Steps whose input was right: step 1, or the previous step passed."""
    correct_after_correct: int = 0
    per_instance: dict[str, list[int]] = field(default_factory=dict)
    """Instance id → [correct, steps] (the clusters of the interval)."""

    @property
    def accuracy(self) -> float | None:
        """Share of the steps answered correctly (``None`` without steps)."""
        return self.correct / self.steps if self.steps else None

    @property
    def accuracy_after_correct(self) -> float | None:
        """Share of the steps with a right input answered correctly."""
        return self.correct_after_correct / self.after_correct if self.after_correct else None

    def interval(self) -> Interval | None:
        """95% interval of :attr:`accuracy`, resampling instances (``rate_interval``)."""
        sums = [float(c) for c, _n in self.per_instance.values()]
        sizes = [n for _c, n in self.per_instance.values()]
        return rate_interval(sums, sizes, binary=True)


def step_instructions(instance: Instance) -> dict[str, int]:
    """Check id (``step-i``) → the paper id of the instruction that step applies."""
    steps = instance.metadata.get("sample", {}).get("steps", [])
    return {f"step-{i}": int(step["paper_id"]) for i, step in enumerate(steps, start=1)}


def instruction_accuracy(
    trials: Iterable[ScoredTrial], instances: Mapping[str, Instance], group: Sequence[str]
) -> tuple[dict[Group, dict[int, InstructionTally]], int]:
    """Per group (the ``group`` keys' values) and instruction, the tally of its steps.

    Returns the tallies and how many trials were left out as incomplete.
    """
    out: dict[Group, dict[int, InstructionTally]] = defaultdict(dict)
    incomplete = 0
    for trial in trials:
        if trial.status == "upstream_fault":
            continue
        instance = instances.get(str(trial.keys.get("instance")))
        if instance is None or instance.suite != "pacific":
            continue
        if trial.status == "ok" and not trial.score().complete:
            incomplete += 1
            continue
        results = {v.check_id: v.result for v in trial.verdicts}
        key = tuple(str(trial.keys.get(k)) for k in group)
        previous_passed = True
        for check_id, paper_id in step_instructions(instance).items():
            passed = trial.status == "ok" and results.get(check_id) == "pass"
            tally = out[key].setdefault(paper_id, InstructionTally())
            tally.steps += 1
            tally.correct += passed
            cell = tally.per_instance.setdefault(instance.id, [0, 0])
            cell[0] += passed
            cell[1] += 1
            if previous_passed:
                tally.after_correct += 1
                tally.correct_after_correct += passed
            previous_passed = passed
    return dict(out), incomplete


def _label(paper_id: int) -> str:
    return by_id(paper_id).name


def accuracy_tables(
    tallies: Mapping[Group, Mapping[int, InstructionTally]], group: Sequence[str]
) -> tuple[Table, Table]:
    """The paper's layout (one row an instruction, one column a group) and the long table.

    The first shows ``accuracy (steps)`` per cell; the second one row per group and
    instruction with the counts, the 95% interval and the share after a correct step.
    """
    groups = sorted(tallies)
    ids = sorted({pid for by_id_ in tallies.values() for pid in by_id_})
    wide_rows = []
    for pid in ids:
        cells = []
        for key in groups:
            tally = tallies[key].get(pid)
            cells.append("–" if tally is None else f"{pct(tally.accuracy)} ({tally.steps})")
        wide_rows.append([f"{pid} {_label(pid)}", *cells])
    wide = Table(
        title="Per-instruction accuracy (the paper's Figure 6): steps answered correctly "
        "(steps), over every instruction count and target length",
        header=["instruction", *(" / ".join(key) for key in groups)],
        rows=wide_rows,
    )
    long_rows = []
    for key in groups:
        for pid in sorted(tallies[key]):
            tally = tallies[key][pid]
            interval = tally.interval()
            long_rows.append(
                [
                    *key,
                    str(pid),
                    _label(pid),
                    str(tally.steps),
                    str(tally.correct),
                    pct(tally.accuracy),
                    "–"
                    if interval is None
                    else f"{interval.low * 100:.1f}–{interval.high * 100:.1f}%",
                    str(tally.after_correct),
                    pct(tally.accuracy_after_correct),
                ]
            )
    long = Table(
        title="Per-instruction accuracy with 95% intervals (over instances), and after a "
        "correct step (the step's input was right)",
        header=[
            *group,
            "#",
            "instruction",
            "steps",
            "correct",
            "accuracy",
            "95% interval",
            "steps after a correct step",
            "accuracy after a correct step",
        ],
        rows=long_rows,
    )
    return wide, long
