"""The Δ report of a feedback run: ISR and CSR of the original run against the corrected one.

Both sides are read from the stored verdicts (``verdicts.json`` of each trial) and
paired by model × scaffold × instance × repeat; only trials present in both runs
count, so each Δ is over the same trials. Carried-over trials (no failed check) are
in both sides unchanged. First the paper's Table 5, on the partial-failure instances
of the base run only (:mod:`adhere.workflows._feedback_paper`); then, over every
paired trial: per model × scaffold with an overall row, per
instruction source, per model by who decided the check (verifier or judges: judge
verdicts may move by chance whenever the transcript changes), and per fed-back check
(how often it was fed back, passed after, still failed). Written as
``report/feedback.md`` in the corrected run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.table import Table as RichTable

from adhere.artifacts import RolloutStore
from adhere.core import Instance
from adhere.metrics import (
    Delta,
    PairedTrial,
    ScoredTrial,
    Table,
    delta,
    group_deltas,
    pct,
    signed_points,
    split_pair,
)
from adhere.report import collect
from adhere.suites import get_suite
from adhere.workflows._feedback import FEEDBACK_PLACEMENT, _snapshot, read_record
from adhere.workflows._feedback_paper import table5

_Key = tuple[str, str, str, int]


@dataclass
class FeedbackReport:
    """ΔISR / ΔCSR between a run and its corrected run, as tables."""

    source: str
    target: str
    placement: str
    isr_name: str
    csr_name: str
    overall: Delta
    tables: list[Table] = field(default_factory=list)
    """Every paired trial: per model × scaffold, per source, per decider, per check."""
    notes: list[str] = field(default_factory=list)
    table5: Table | None = None
    """Paper Table 5: the partial-failure instances of the base run (shown first)."""
    scaffold: str | None = None
    """The one scaffold the report is restricted to (``None``: every scaffold)."""


def _key(trial: ScoredTrial) -> _Key:
    k = trial.keys
    return (str(k["model"]), str(k["scaffold"]), str(k["instance"]), int(k["repeat"]))


def paired_trials(source: RolloutStore, target: RolloutStore) -> tuple[list[PairedTrial], int]:
    """Trials of both runs paired up, and how many source trials have no counterpart yet."""
    before = {_key(t): t for t in collect(source).trials}
    after = {_key(t): t for t in collect(target).trials}
    changed = {}
    for stored in target.iter_trials():
        trial = stored.result.trial
        record = read_record(target, trial) or {}
        changed[(trial.model, trial.scaffold, trial.instance, trial.repeat)] = bool(
            record.get("corrected", True)
        )
    pairs = [
        PairedTrial(before=before[key], after=after[key], changed=changed.get(key, True))
        for key in sorted(before)
        if key in after
    ]
    return pairs, sum(1 for key in before if key not in after)


def _rate_cells(d: Delta) -> list[str]:
    return [
        pct(d.before.isr),
        pct(d.after.isr),
        signed_points(d.isr),
        pct(d.before.csr),
        pct(d.after.csr),
        signed_points(d.csr),
    ]


def feedback_report(
    source: RolloutStore, target: RolloutStore, *, scaffold: str | None = None
) -> FeedbackReport:
    """Build the Δ report from the two runs' stored verdicts.

    ``scaffold``: only that scaffold's trials (the paper's Table 5 uses Claude Code's).
    """
    rollout, _, _ = _snapshot(target)
    placement = rollout.metadata.annotations.get(FEEDBACK_PLACEMENT, "?")
    pairs, missing = paired_trials(source, target)
    if scaffold is not None:
        pairs = [p for p in pairs if str(p.before.keys["scaffold"]) == scaffold]
    instances = {i.id: i for i in source.read_instances()}
    suites = {i.suite for i in instances.values()}
    isr_name, csr_name = get_suite(suites.pop()).metric_names() if len(suites) == 1 else ("", "")
    isr_name, csr_name = isr_name or "ISR", csr_name or "CSR"
    report = FeedbackReport(
        source=source.rollout,
        target=target.rollout,
        placement=placement,
        isr_name=isr_name,
        csr_name=csr_name,
        overall=delta(pairs),
        scaffold=scaffold,
    )
    several = len({p.before.keys["scaffold"] for p in pairs}) > 1
    report.table5, paper_notes = table5(
        pairs, isr_name, csr_name, ["model", "scaffold"] if several else ["model"]
    )
    rates = [
        f"{isr_name} before",
        f"{isr_name} after",
        f"Δ{isr_name}",
        f"{csr_name} before",
        f"{csr_name} after",
        f"Δ{csr_name}",
    ]
    rows = [
        [str(m), str(s), str(d.pairs), str(d.changed), *_rate_cells(d), str(d.fixed), str(d.broken)]
        for (m, s), d in group_deltas(pairs, ["model", "scaffold"]).items()
    ]
    o = report.overall
    rows.append(
        ["all", "all", str(o.pairs), str(o.changed), *_rate_cells(o), str(o.fixed), str(o.broken)]
    )
    report.tables.append(
        Table(
            title=f"Δ{isr_name} and Δ{csr_name} per model × scaffold",
            header=["model", "scaffold", "trials", "re-run", *rates, "fixed", "broken"],
            rows=rows,
        )
    )
    report.tables.append(_source_table(pairs, instances, rates))
    report.tables.append(_decider_table(pairs, rates))
    report.tables.append(_check_table(pairs, instances))
    report.notes += [*paper_notes, *_notes(report, pairs, missing)]
    return report


def _source_table(
    pairs: list[PairedTrial], instances: dict[str, Instance], rates: list[str]
) -> Table:
    split: list[PairedTrial] = []
    for pair in pairs:
        instance = instances.get(str(pair.before.keys["instance"]))
        source_of = {c.id: c.source.value for c in instance.checks} if instance else {}
        split += split_pair(pair, source_of, "source")
    rows = [
        [str(m), str(s), str(src), str(d.pairs), *_rate_cells(d)]
        for (m, s, src), d in group_deltas(split, ["model", "scaffold", "source"]).items()
    ]
    rows += [
        ["all", "all", str(src), str(d.pairs), *_rate_cells(d)]
        for (src,), d in group_deltas(split, ["source"]).items()
    ]
    return Table(
        title="By instruction source",
        header=["model", "scaffold", "source", "trials", *rates],
        rows=rows,
    )


def decider(decided_by: str) -> str:
    """Who decided a verdict, coarsely: ``verifier``, ``judges`` (the panel) or the rest."""
    kind = decided_by.split(":", 1)[0]
    return {"verifier": "verifier", "panel": "judges"}.get(kind, kind or "?")


def _decider_table(pairs: list[PairedTrial], rates: list[str]) -> Table:
    """Per model (all scaffolds) and overall, split by who decided each check.

    Deterministic verifiers give the same verdict for the same behaviour; judges
    (and scripted judges, which draw from a hash of the transcript) may change their
    verdict whenever the transcript changes, so this split tells behaviour apart from
    judge noise. A check's decider is read from the original run's verdict.
    """
    split: list[PairedTrial] = []
    for pair in pairs:
        kinds = {v.check_id: decider(v.decided_by) for v in pair.before.verdicts}
        split += split_pair(pair, kinds, "decided by")
    rows = [
        [str(m), str(k), str(d.pairs), *_rate_cells(d), str(d.fixed), str(d.broken)]
        for (m, k), d in group_deltas(split, ["model", "decided by"]).items()
    ]
    rows += [
        ["all", str(k), str(d.pairs), *_rate_cells(d), str(d.fixed), str(d.broken)]
        for (k,), d in group_deltas(split, ["decided by"]).items()
    ]
    return Table(
        title="By who decided the check",
        header=["model", "decided by", "trials", *rates, "fixed", "broken"],
        rows=rows,
    )


def _check_table(pairs: list[PairedTrial], instances: dict[str, Instance]) -> Table:
    """Per check fed back: who decided it, how often, passed after, still failed."""
    counts: dict[tuple[str, str, str], list[int]] = {}
    for pair in pairs:
        if not pair.changed:
            continue
        instance = instances.get(str(pair.before.keys["instance"]))
        source_of = {c.id: c.source.value for c in instance.checks} if instance else {}
        after = {v.check_id: v.result for v in pair.after.verdicts}
        for verdict in pair.before.verdicts:
            if verdict.result != "fail":
                continue
            key = (
                verdict.check_id,
                source_of.get(verdict.check_id, "?"),
                decider(verdict.decided_by),
            )
            row = counts.setdefault(key, [0] * 3)
            row[0] += 1
            row[1] += after.get(verdict.check_id) == "pass"
            row[2] += after.get(verdict.check_id) == "fail"
    return Table(
        title="Checks fed back",
        header=["check", "source", "decided by", "fed back", "passed after", "still failed"],
        rows=[[c, s, k, *map(str, n)] for (c, s, k), n in sorted(counts.items())],
    )


def _notes(report: FeedbackReport, pairs: list[PairedTrial], missing: int) -> list[str]:
    carried = sum(1 for p in pairs if not p.changed)
    where = {
        "append": "appended to the first user query",
        "prepend": "put before the first user query",
        "new-turn": "sent as one more user turn after the last one",
        "none": "not sent (a control run: the same trials again, without feedback)",
    }.get(report.placement, report.placement)
    notes = [f"Restricted to the scaffold {report.scaffold}."] if report.scaffold else []
    notes += [
        f"Feedback (the failed checks of each trial) was {where}; {len(pairs) - carried} "
        f"trial(s) ran again with it, {carried} with no failed check were carried over "
        "unchanged, so both sides cover the same trials.",
        "Δ is after − before in percentage points; 'fixed' counts checks that went from "
        "fail to pass, 'broken' from pass to fail (error and n/a verdicts in neither).",
    ]
    if missing:
        notes.append(
            f"{missing} trial(s) of {report.source} have no counterpart in {report.target} yet "
            "(not finished); they are left out of both sides. Run the same command to continue."
        )
    return notes


def render_markdown(report: FeedbackReport) -> str:
    """The Δ report as Markdown."""
    out = [f"# Feedback correction: `{report.source}` → `{report.target}`", ""]
    out += [f"- {n}" for n in report.notes]
    out.append("")
    for table in [*([report.table5] if report.table5 else []), *report.tables]:
        out += [f"## {table.title}", ""]
        out.append("| " + " | ".join(table.header) + " |")
        out.append("|" + "|".join("---" for _ in table.header) + "|")
        out += ["| " + " | ".join(row) + " |" for row in table.rows]
        if not table.rows:
            out.append("| " + " | ".join("–" for _ in table.header) + " |")
        out.append("")
    return "\n".join(out)


def write_markdown(report: FeedbackReport, target: RolloutStore) -> str:
    """Write ``report/feedback.md`` into the corrected run; return where it went."""
    return target.write_report("feedback.md", render_markdown(report))


def _short(share: str) -> str:
    return share.removesuffix("%")


def _compact(
    table: Table,
    title: str,
    keys: list[int],
    first: int,
    *,
    rerun: bool,
    flips: bool,
    caption: str | None,
) -> RichTable:
    """One Δ table for a terminal: key columns, count, rates as before→after, Δ."""
    shown = RichTable(title=title, caption=caption)
    for index in keys:
        shown.add_column(table.header[index], no_wrap=True)
    shown.add_column("re-run" if rerun else "trials", justify="right")
    for column in ("ISR %", "ΔISR pp", "CSR %", "ΔCSR pp", *(("fixed", "broken") if flips else ())):
        shown.add_column(column, justify="right", no_wrap=True)
    for row in table.rows:
        cells = row[first:]
        count = f"{cells[1]}/{cells[0]}" if rerun else cells[0]
        r = cells[2:8] if rerun else cells[1:7]
        line = [
            *(row[i] for i in keys),
            count,
            f"{_short(r[0])}→{_short(r[1])}",
            r[2].removesuffix(" pp"),
            f"{_short(r[3])}→{_short(r[4])}",
            r[5].removesuffix(" pp"),
        ]
        if flips:
            line += cells[-2:]
        shown.add_row(*line)
    return shown


def rich_tables(report: FeedbackReport) -> list[Any]:
    """The tables for a terminal, compacted to fit 80 columns.

    Rates show as ``before→after`` in percent with Δ in percentage points beside
    them, under the short names ISR and CSR (a caption gives the suite's own names);
    the scaffold column is left out when there is one scaffold, and the per-source
    table keeps only the whole-run rows (``report/feedback.md`` has all).
    """
    caption = None
    if (report.isr_name, report.csr_name) != ("ISR", "CSR"):
        caption = f"ISR: {report.isr_name}; CSR: {report.csr_name}"
    main, by_source, by_decider, checks = report.tables
    one_scaffold = len({row[1] for row in main.rows if row[1] != "all"}) == 1
    overall_sources = Table(
        by_source.title, by_source.header, [r for r in by_source.rows if r[0] == "all"]
    )
    out = [
        _compact(
            main,
            "ΔISR and ΔCSR per model × scaffold",
            [0] if one_scaffold else [0, 1],
            2,
            rerun=True,
            flips=True,
            caption=caption,
        ),
        _compact(
            overall_sources, by_source.title, [2], 3, rerun=False, flips=False, caption=caption
        ),
        _compact(by_decider, by_decider.title, [0, 1], 2, rerun=False, flips=True, caption=caption),
    ]
    if report.table5 is not None:
        paper = RichTable(title=report.table5.title, caption=caption)
        keys = report.table5.header.index("instances")
        for n, column in enumerate(report.table5.header):
            paper.add_column(column, justify="left" if n < keys else "right", no_wrap=True)
        for row in report.table5.rows:
            paper.add_row(*row)
        out.insert(0, paper)
    shown = RichTable(title=checks.title)
    for n, column in enumerate(checks.header):
        shown.add_column(column, justify="left" if n < 3 else "right")
    for row in checks.rows:
        shown.add_row(*row)
    out.append(shown)
    return out
