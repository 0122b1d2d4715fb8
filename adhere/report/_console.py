"""Terminal output of the runner: a rich progress bar and tables."""

from __future__ import annotations

import re
from collections.abc import Callable

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from adhere.core import Trial, TrialResult
from adhere.metrics import Table as ReportTable
from adhere.report._cells import ISSUE_COLUMNS, add_counts
from adhere.report._document import Report


class RichProgress:
    """A progress bar with done/total, ok, failed and upstream-fault counts, time and ETA."""

    def __init__(self, console: Console, description: str = "trials") -> None:
        self.console = console
        self.description = description
        self.ok = 0
        self.failed = 0
        self.faults = 0
        self.skipped = 0
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(
                "[green]{task.fields[ok]} ok[/] [red]{task.fields[failed]} failed[/] "
                "[magenta]{task.fields[faults]} upstream faults[/]"
            ),
            TextColumn("[dim]{task.fields[skipped]} already done[/]"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        self._task: TaskID | None = None

    def __enter__(self) -> RichProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def start(self, total: int, skipped: int) -> None:
        """Show the bar with already-finished trials counted."""
        self.skipped = skipped
        self._task = self._progress.add_task(
            self.description,
            total=total,
            completed=skipped,
            ok=0,
            failed=0,
            faults=0,
            skipped=skipped,
        )

    def finished(self, trial: Trial, result: TrialResult) -> None:
        """Advance the bar by one trial."""
        if result.status == "ok":
            self.ok += 1
        elif result.status == "upstream_fault":
            self.faults += 1
        else:
            self.failed += 1
        if self._task is not None:
            self._progress.update(
                self._task, advance=1, ok=self.ok, failed=self.failed, faults=self.faults
            )


def report_table(report: Report) -> Table:
    """The report's summary for a terminal: rates, incompleteness, wrong answers, errors.

    Columns: the rates, then — only when some trial is incomplete — incomplete trials
    and undecided checks (no verdict or errored), then wrong answers, invalid outputs,
    trial errors and upstream faults. The Markdown and HTML reports hold every column
    (intervals, counts, invalid outputs by category); here they are summed or left out
    so the table fits 80 columns.
    """
    header = report.summary.header
    at = header.index
    keys = header[: at("trials") + 1]
    invalid = [at(c) for c in ISSUE_COLUMNS[1:]]
    cells: list[tuple[str, Callable[[list[str]], str]]] = [
        (report.isr_name, lambda row: row[at(report.isr_name)]),
        (report.csr_name, lambda row: row[at(report.csr_name)]),
    ]
    if not report.complete:
        cells += [
            ("incomplete", lambda row: row[at("incomplete")]),
            (
                "undecided checks",
                lambda row: add_counts(row[at("undecided checks")], row[at("errored checks")]),
            ),
        ]
    cells += [
        ("wrong", lambda row: row[at(ISSUE_COLUMNS[0])]),
        ("invalid output", lambda row: add_counts(*(row[i] for i in invalid))),
        ("trial errors", lambda row: row[at("trial errors")]),
        ("upstream faults", lambda row: row[at("upstream faults")]),
    ]
    table = Table(title=f"{report.rollout} — {report.suite}")
    for n, column in enumerate([*keys, *(name for name, _ in cells)]):
        table.add_column(
            re.sub(r"(?<=-)|\s+", "\n", column).strip(),
            justify="left" if n < len(keys) - 1 else "right",
            no_wrap=True,
        )
    for row in report.summary.rows:
        table.add_row(*row[: len(keys)], *(cell(row) for _, cell in cells))
    return table


def panel_tables(report: Report) -> list[Table]:
    """The judge-panel tables as they are."""
    return [_plain(panel) for panel in report.panel]


def paper_console_tables(report: Report) -> list[Table]:
    """The paper's Tables 2 and 3 (Tables 13–15 and Figure 3 are in report.md)."""
    return [_plain(table, labels=1) for table in report.paper[:2]]


def _plain(source: ReportTable, *, labels: int = 2) -> Table:
    """A report table as it is (the first ``labels`` columns left-aligned)."""
    table = Table(title=source.title)
    for n, column in enumerate(source.header):
        table.add_column(column, justify="left" if n < labels else "right")
    for row in source.rows:
        table.add_row(*row)
    return table


def breakdown_tables(report: Report) -> list[Table]:
    """Each breakdown with more than one value, pivoted: one row a value, one column a model.

    Cells show ISR / CSR under the suite's names.
    """
    tables = []
    for breakdown in report.breakdowns:
        header = breakdown.header
        if "1st side followed" in header and "scenario" in header:
            tables += _conflict_pivot(breakdown)
            continue
        if "1st side followed" in header:
            continue  # the per-type totals: report.md and report.html have them
        if "trials" not in header or report.isr_name not in header:
            counts = ("runs", "k", "trials", "items", "calls")
            labels = next((i for i, name in enumerate(header) if name in counts), 1)
            tables.append(_plain(breakdown, labels=labels))
            continue
        key_at = header.index("trials") - 1
        values = sorted({row[key_at] for row in breakdown.rows}, key=_natural)
        isr_at = header.index(report.isr_name)
        if len(values) < 2 or all(row[isr_at] == "–" for row in breakdown.rows):
            continue
        groups = sorted({tuple(row[:key_at]) for row in breakdown.rows})
        if len(groups) > 4:
            continue  # too wide for a terminal: report.md and report.html have it
        cells = {(tuple(r[:key_at]), r[key_at]): r for r in breakdown.rows}
        table = Table(title=f"{breakdown.title}: {report.isr_name} / {report.csr_name}")
        table.add_column(header[key_at])
        for group in groups:
            table.add_column(" / ".join(group), justify="right", no_wrap=True)
        for value in values:
            line = [value]
            for group in groups:
                row = cells.get((group, value))
                isr_at, csr_at = header.index(report.isr_name), header.index(report.csr_name)
                line.append("–" if row is None else f"{row[isr_at]} / {row[csr_at]}")
            table.add_row(*line)
        tables.append(table)
    return tables


def _conflict_pivot(source: ReportTable) -> list[Table]:
    """The side-followed table, one row a scenario, one column a model: 1st / 2nd side (%)."""
    header = source.header
    kind_at = header.index("conflict type")
    first_at, second_at = header.index("1st side followed"), header.index("2nd side followed")
    groups = sorted({tuple(row[:kind_at]) for row in source.rows})
    if len(groups) > 6:
        return []
    table = Table(title="OctoBench-Conflict: % of runs following the 1st / 2nd side")
    table.add_column("scenario (conflict type)")
    for group in groups:
        table.add_column(" / ".join(group), justify="right", no_wrap=True)
    cells = {(tuple(r[:kind_at]), r[kind_at], r[kind_at + 1]): r for r in source.rows}
    for kind, scenario in sorted({(r[kind_at], r[kind_at + 1]) for r in source.rows}):
        line = [f"{scenario} ({kind})"]
        for group in groups:
            row = cells.get((group, kind, scenario))
            line.append(
                "–" if row is None else f"{_share(row[first_at])} / {_share(row[second_at])}"
            )
        table.add_row(*line)
    return [table]


def _share(cell: str) -> str:
    """``SP: 66.7% (2)`` → ``66.7%``."""
    return cell.split(": ", 1)[-1].split(" ", 1)[0]


def _natural(text: str) -> list[object]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]
