"""What the engine reports to while it runs, and what a run did (plain types)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from adhere.core import Trial, TrialResult

__all__ = ["NoProgress", "Progress", "RunSummary"]


class Progress(Protocol):
    """What the engine reports progress to (a rich bar in the CLI, nothing in tests)."""

    def start(self, total: int, skipped: int) -> None:
        """The run begins: ``total`` trials, ``skipped`` of them already done."""

    def finished(self, trial: Trial, result: TrialResult) -> None:
        """One trial finished (ok or error)."""


class NoProgress:
    """A progress sink that shows nothing."""

    def start(self, total: int, skipped: int) -> None:
        """Ignore."""

    def finished(self, trial: Trial, result: TrialResult) -> None:
        """Ignore."""


@dataclass
class RunSummary:
    """What a run did."""

    planned: int = 0
    skipped: int = 0
    ran: int = 0
    ok: int = 0
    failed: int = 0
    """Trials that ended in an error (not counting upstream faults)."""
    faults: int = 0
    """Trials that ended as upstream faults after their retries."""
    retried: int = 0
    """In-run retries of upstream faults."""
    rerun_changed: int = 0
    """Finished trials run again because their config changed (``--rerun-changed``)."""
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)
    scoring: Any = None
    """The :class:`~adhere.scoring._score.ScoreSummary` of the scoring pass."""
    stopped: str | None = None
    """With ``fail_fast``: the trial (``model/scaffold/instance``) whose failure stopped
    the run; ``None`` when it was not stopped."""
    cancelled: int = 0
    """With ``fail_fast``: trials that were in flight when the run stopped (not recorded
    as finished: the next run runs them)."""
