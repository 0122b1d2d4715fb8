"""The OctoBench paper's result tables, computed by its definitions (§3.3, §4, App. H).

Every cell follows the report's one judge rule (:mod:`adhere.report._judges`): under
``mean`` each judge's ISR / CSR, then their mean ± population std across judges;
under ``majority`` the rates of the panel's majority-vote verdicts (Table 2 still
has a column per judge — the table is by judge model — and its aggregate columns
are the majority's).

- **Table 2** (by judge model): one row a model, every scaffold pooled; for each
  judge its ISR and CSR, then the judges' mean ± std (the paper's "Overall Average").
- **Table 3** (by scaffold): one row a model; for each scaffold its ISR and CSR, each
  the mean ± std across judges.
- **Tables 13–15** (by scaffold × instruction category): one table a scaffold (the
  paper: 13 Claude Code, 14 Droid, 15 Kilo-dev); one row a model; for each
  instruction category present, ISR and CSR over that category's checks — a trial
  passes a category when all its applicable checks of that category pass, and
  counts only in the categories it has checks of — each the mean ± std across judges.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from adhere.core import Source
from adhere.judging import category_trials
from adhere.metrics import ScoredTrial, Table
from adhere.report._judges import MAJORITY, STORED, Across, across_judges, combined_by

__all__ = ["CATEGORY_TABLES", "SOURCE_NAMES", "paper_tables"]

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

CATEGORY_TABLES: Mapping[str, str] = {"claude-code": "13", "droid": "14", "kilo": "15"}
"""The paper's per-category table of each of its scaffolds."""

METRICS = ("isr", "csr")


def paper_tables(
    sets: Sequence[ScoredTrial],
    sources: Mapping[str, Mapping[str, str]],
    names: tuple[str, str] = ("ISR", "CSR"),
    per_judge: Sequence[ScoredTrial] | None = None,
) -> list[Table]:
    """Table 2, Table 3 and one per-category table per scaffold (Tables 13–15).

    Args:
        sets: The report's scoring sets (:func:`scoring_sets`: every judge's own
            scoring under ``mean``, the majority vote's under ``majority``), with the
            keys ``model``, ``scaffold``, ``instance`` and ``judge``.
        sources: Instance id → check id → source value (``SP``, ``UserQuery`` …).
        names: The suite's names for ISR and CSR.
        per_judge: Every judge's own scoring (:func:`per_judge_trials`), for Table 2's
            per-judge columns; ``None``: ``sets``.
    """
    tables = [table_2(sets, names, per_judge), table_3(sets, names)]
    tables += category_tables(sets, sources, names)
    return tables


def _models(per_judge: Sequence[ScoredTrial]) -> list[str]:
    return sorted({str(t.keys.get("model")) for t in per_judge})


def _pair(found: Across | None) -> list[str]:
    return ["–", "–"] if found is None else [found.cell(m) for m in METRICS]


def table_2(
    sets: Sequence[ScoredTrial],
    names: tuple[str, str],
    per_judge: Sequence[ScoredTrial] | None = None,
) -> Table:
    """Per judge ISR and CSR over all scaffolds, then the rule's aggregate.

    The aggregate is the judges' mean ± std under ``mean``, the majority vote's rate
    under ``majority`` (``sets`` holds the one :data:`MAJORITY` set then).
    """
    per_judge = sets if per_judge is None else per_judge
    judges = sorted({str(t.keys["judge"]) for t in per_judge})
    shown = [j for j in judges if j not in (STORED, MAJORITY)]
    by_judge = {(str(k[0]),): v for k, v in across_judges(per_judge, ("model",)).items()}
    cells = {(str(k[0]),): v for k, v in across_judges(sets, ("model",)).items()}
    majority = {str(t.keys["judge"]) for t in sets} == {MAJORITY}
    label = "majority" if majority else "mean"
    header = ["model"]
    for judge in shown:
        header += [f"{judge} {names[0]}", f"{judge} {names[1]}"]
    header += [f"{label} {names[0]}", f"{label} {names[1]}"]
    rows = []
    for model in _models(sets):
        found = by_judge.get((model,))
        row = [model]
        for judge in shown:
            row += ["–", "–"] if found is None else [found.judge_cell(judge, m) for m in METRICS]
        rows.append([*row, *_pair(cells.get((model,)))])
    return Table(
        title=(
            f"Table 2 — by judge model: {names[0]} and {names[1]} per judge over all "
            f"scaffolds, then {'the majority vote' if majority else 'mean ± std across judges'}"
        ),
        header=header,
        rows=rows,
    )


def table_3(per_judge: Sequence[ScoredTrial], names: tuple[str, str]) -> Table:
    """Per scaffold ISR and CSR, each the mean ± std across judges."""
    scaffolds = sorted({str(t.keys.get("scaffold")) for t in per_judge})
    cells = {
        (str(k[0]), str(k[1])): v
        for k, v in across_judges(per_judge, ("model", "scaffold")).items()
    }
    header = ["model"]
    for scaffold in scaffolds:
        header += [f"{scaffold} {names[0]}", f"{scaffold} {names[1]}"]
    rows = [
        [model, *(c for s in scaffolds for c in _pair(cells.get((model, s))))]
        for model in _models(per_judge)
    ]
    return Table(
        title=f"Table 3 — by scaffold: {names[0]} and {names[1]}, {combined_by(per_judge)}",
        header=header,
        rows=rows,
    )


def category_tables(
    per_judge: Sequence[ScoredTrial],
    sources: Mapping[str, Mapping[str, str]],
    names: tuple[str, str],
) -> list[Table]:
    """One table per scaffold: ISR and CSR per instruction category (mean ± std)."""
    split: list[ScoredTrial] = []
    for trial in per_judge:
        label_of = sources.get(str(trial.keys.get("instance")), {})
        split += category_trials(trial, label_of, key="source")
    cells = {
        tuple(map(str, k)): v
        for k, v in across_judges(split, ("scaffold", "model", "source")).items()
    }
    tables = []
    for scaffold in sorted({str(t.keys.get("scaffold")) for t in per_judge}):
        present = {k[2] for k in cells if k[0] == scaffold}
        models = sorted({k[1] for k in cells if k[0] == scaffold})
        columns = [s for s in SOURCE_NAMES if s in present]
        if not columns:
            continue
        header = ["model"]
        for column in columns:
            header += [f"{SOURCE_NAMES[column]} {names[0]}", f"{SOURCE_NAMES[column]} {names[1]}"]
        rows = [
            [model, *(c for s in columns for c in _pair(cells.get((scaffold, model, s))))]
            for model in models
        ]
        number = CATEGORY_TABLES.get(scaffold)
        label = f"Table {number}" if number else "Tables 13–15 layout"
        tables.append(
            Table(
                title=(
                    f"{label} — {scaffold} by instruction category: {names[0]} and "
                    f"{names[1]}, {combined_by(per_judge)}"
                ),
                header=header,
                rows=rows,
            )
        )
    return tables
