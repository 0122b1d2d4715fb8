"""Terminal output of the runner: a rich progress bar and tables."""

from __future__ import annotations

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

from adhere.metrics import Report
from adhere.spec import Trial, TrialResult


class RichProgress:
    """A progress bar with done/total, ok and failed counts, elapsed time and ETA."""

    def __init__(self, console: Console, description: str = "trials") -> None:
        self.console = console
        self.description = description
        self.ok = 0
        self.failed = 0
        self.skipped = 0
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[green]{task.fields[ok]} ok[/] [red]{task.fields[failed]} failed[/]"),
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
            self.description, total=total, completed=skipped, ok=0, failed=0, skipped=skipped
        )

    def finished(self, trial: Trial, result: TrialResult) -> None:
        """Advance the bar by one trial."""
        if result.status == "ok":
            self.ok += 1
        else:
            self.failed += 1
        if self._task is not None:
            self._progress.update(self._task, advance=1, ok=self.ok, failed=self.failed)


def report_table(report: Report) -> Table:
    """The report's summary table for the terminal."""
    table = Table(title=f"{report.rollout} — {report.suite}")
    for n, column in enumerate(report.summary.header):
        table.add_column(column, justify="left" if n == 0 else "right")
    for row in report.summary.rows:
        table.add_row(*row)
    return table
