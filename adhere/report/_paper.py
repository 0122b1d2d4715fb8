"""Report tables laid out like the OctoBench paper's main results.

- **Main results** (the shape of the paper's Table 2): one row a model; for each
  scaffold an ISR and a CSR column, then both over all scaffolds. With a judge
  panel every cell is the mean ± std across judges (each judge's verdicts plus the
  deterministic ones); without one, the stored verdicts' rate.
- **By instruction category** (the shape of Table 3): one row a model; one column an
  instruction source in the paper's order (SP, System reminder, User query,
  Agents.md, Skill.md, Memory, Tool schema), each cell ISR / CSR over the checks of
  that source (across judges: the mean).
- **Per judge** (the shape of Tables 13–15): the main-results table once per judge.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adhere.core import Source, Verdict
from adhere.judging import PanelScore, category_trials, judge_trials, panel_scores
from adhere.metrics import ScoredTrial, Table, group_rates, pct
from adhere.report._document import rate_cell

__all__ = ["SOURCE_NAMES", "paper_tables"]

SOURCE_NAMES: Mapping[str, str] = {
    Source.SYSTEM_PROMPT.value: "SP",
    Source.SYSTEM_REMINDER.value: "System reminder",
    Source.USER_QUERY.value: "User query",
    Source.AGENTS_MD.value: "Agents.md",
    Source.SKILL_MD.value: "Skill.md",
    Source.MEMORY.value: "Memory",
    Source.TOOL_SCHEMA.value: "Tool schema",
}
"""Instruction sources in the paper's column order, with its names."""

ALL = "all scaffolds"


def paper_tables(
    trials: Sequence[ScoredTrial],
    judged: Mapping[str, Mapping[str, Sequence[Verdict]]],
    sources: Mapping[str, Mapping[str, str]],
    names: tuple[str, str] = ("ISR", "CSR"),
) -> list[Table]:
    """The main-results, per-category and per-judge tables.

    Args:
        trials: Every trial with its final verdicts (keys ``model``, ``scaffold``,
            ``instance``, …).
        judged: Per trial id (``keys["trial"]``): judge name → that judge's verdicts.
        sources: Instance id → check id → source value (``SP``, ``UserQuery`` …).
        names: The suite's names for ISR and CSR.
    """
    per_judge = _judge_trials(trials, judged)
    scaffolds = sorted({str(t.keys.get("scaffold")) for t in trials})
    tables = [_main(trials, per_judge, scaffolds, names)]
    by_source = _by_source(trials, per_judge, sources, names)
    if by_source is not None:
        tables.append(by_source)
    judges = sorted({str(t.keys["judge"]) for t in per_judge})
    for judge in judges if len(judges) > 1 else []:
        mine = [t for t in per_judge if t.keys["judge"] == judge]
        table = _main(mine, [], scaffolds, names)
        tables.append(
            Table(
                title=f"Per judge — {judge} (paper Tables 13–15 layout)",
                header=table.header,
                rows=table.rows,
            )
        )
    return tables


def _judge_trials(
    trials: Sequence[ScoredTrial], judged: Mapping[str, Mapping[str, Sequence[Verdict]]]
) -> list[ScoredTrial]:
    out: list[ScoredTrial] = []
    for trial in trials:
        by_judge = judged.get(str(trial.keys.get("trial")))
        if not by_judge:
            continue
        ids = {v.check_id for verdicts in by_judge.values() for v in verdicts}
        fixed = [v for v in trial.verdicts if v.check_id not in ids]
        out += judge_trials(trial.keys, trial.status, by_judge, fixed, trial.expected)
    return out


def _main(
    trials: Sequence[ScoredTrial],
    per_judge: Sequence[ScoredTrial],
    scaffolds: Sequence[str],
    names: tuple[str, str],
) -> Table:
    cells = _cells(trials, per_judge, ("model", "scaffold"))
    pooled = _cells(trials, per_judge, ("model",))
    models = sorted({str(t.keys.get("model")) for t in trials})
    header = ["model"]
    for scaffold in [*scaffolds, ALL] if len(scaffolds) > 1 else scaffolds:
        header += [f"{scaffold} {names[0]}", f"{scaffold} {names[1]}"]
    rows = []
    for model in models:
        row = [model]
        for scaffold in scaffolds:
            row += cells.get((model, scaffold), ["–", "–"])
        if len(scaffolds) > 1:
            row += pooled.get((model,), ["–", "–"])
        rows.append(row)
    across = "; mean ± std across judges" if per_judge else ""
    return Table(title=f"Main results (paper Table 2 layout{across})", header=header, rows=rows)


def _cells(
    trials: Sequence[ScoredTrial], per_judge: Sequence[ScoredTrial], by: tuple[str, ...]
) -> dict[tuple[str, ...], list[str]]:
    if per_judge:
        return {
            tuple(map(str, key)): [
                _pm(s.isr_mean, s.isr_std, _incomplete(s)),
                _pm(s.csr_mean, s.csr_std, _incomplete(s)),
            ]
            for key, s in panel_scores(per_judge, by=by).items()
        }
    return {
        tuple(map(str, key)): [rate_cell(r, r.isr), rate_cell(r, r.csr)]
        for key, r in group_rates(trials, list(by)).items()
    }


def _incomplete(score: PanelScore) -> bool:
    return any(r.incomplete for r in score.judges.values())


def _by_source(
    trials: Sequence[ScoredTrial],
    per_judge: Sequence[ScoredTrial],
    sources: Mapping[str, Mapping[str, str]],
    names: tuple[str, str],
) -> Table | None:
    def split(group: Sequence[ScoredTrial]) -> list[ScoredTrial]:
        out: list[ScoredTrial] = []
        for trial in group:
            label_of = sources.get(str(trial.keys.get("instance")), {})
            out += category_trials(trial, label_of, key="source")
        return out

    present = {t.keys["source"] for t in split(trials)}
    columns = [s for s in SOURCE_NAMES if s in present]
    if not columns:
        return None
    values: dict[tuple[Any, ...], str] = {}
    if per_judge:
        for key, score in panel_scores(split(per_judge), by=("model", "source")).items():
            values[key] = _pair(score.isr_mean, score.csr_mean, _incomplete(score))
    else:
        for key, rates in group_rates(split(trials), ["model", "source"]).items():
            values[key] = _pair(rates.isr, rates.csr, bool(rates.incomplete))
    models = sorted({str(t.keys.get("model")) for t in trials})
    return Table(
        title=f"By instruction category, {names[0]} / {names[1]} (paper Table 3 layout)",
        header=["model", *(SOURCE_NAMES[c] for c in columns)],
        rows=[[m, *(values.get((m, c), "–") for c in columns)] for m in models],
    )


def _pair(isr: float | None, csr: float | None, incomplete: bool = False) -> str:
    if isr is None and csr is None:
        return "incomplete" if incomplete else "–"
    return f"{pct(isr)} / {pct(csr)}"


def _pm(mean: float | None, std: float | None, incomplete: bool = False) -> str:
    if mean is None:
        return "incomplete" if incomplete else "–"
    return f"{mean * 100:.1f}% ± {std * 100:.1f}" if std is not None else f"{mean * 100:.1f}%"
