"""PACIFIC's per-instruction accuracy in a report: the paper's Figure 6 as tables and a plot."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from adhere.core import Instance
from adhere.metrics import ScoredTrial
from adhere.report._document import Report
from adhere.report._plot import Span, bar_svg
from adhere.suites.pacific import accuracy_tables, by_id, instruction_accuracy

__all__ = ["FIGURE_FILE", "add_instruction_accuracy"]

FIGURE_FILE = "instruction_accuracy.svg"


def add_instruction_accuracy(
    report: Report, trials: Sequence[ScoredTrial], instances: Mapping[str, Instance]
) -> None:
    """Add the per-instruction tables and plot to ``report`` (nothing without PACIFIC steps)."""
    scaffolds = {t.keys.get("scaffold") for t in trials}
    group = ["model", "scaffold"] if len(scaffolds) > 1 else ["model"]
    tallies, incomplete = instruction_accuracy(trials, instances, group)
    if not tallies:
        return
    wide, long = accuracy_tables(tallies, group)
    report.paper.append(wide)
    report.breakdowns.append(long)
    if incomplete:
        report.notes.append(
            f"Per-instruction accuracy leaves out {incomplete} trial(s) with an undecided "
            "step, as the prompt- and instruction-level accuracies do."
        )
    bars: dict[str, dict[str, float | None]] = {}
    errors: dict[str, dict[str, Span]] = {}
    for key, per_instruction in tallies.items():
        series = " / ".join(key)
        for paper_id, tally in per_instruction.items():
            label = f"{paper_id:02d} {by_id(paper_id).name}"
            bars.setdefault(label, {})[series] = tally.accuracy
            interval = tally.interval()
            if interval is not None:
                errors.setdefault(label, {})[series] = (interval.low, interval.high)
    title = "Accuracy per instruction, over all instruction counts and lengths (bars: 95% CI)"
    report.plots[FIGURE_FILE] = (
        title,
        bar_svg(bars, title=title, y_label="steps answered correctly", errors=errors),
    )
