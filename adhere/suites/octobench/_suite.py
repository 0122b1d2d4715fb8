"""OctoBench as a suite: agentic instances with checklists (SUITES.md §1).

Checklist items are decided by deterministic verifiers where a check binds one, and
otherwise by the judge panel (added with judging); until then ``score`` decides
nothing, and reports show the trials as recorded but not yet scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from adhere.errors import SpecError, UnknownConversation
from adhere.spec import BenchmarkSpec, Instance, Trajectory, Verdict
from adhere.suites._registry import WrongItem, suite
from adhere.suites.octobench._load import load_octobench

_OPTIONS = ("workspaces",)


@suite("octobench")
class OctoBenchSuite:
    """Scaffold-aware instruction following with checklists."""

    name = "octobench"

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(_OPTIONS))
        if unknown:
            raise SpecError(
                f"unknown OctoBench options {unknown}; accepted: {list(_OPTIONS)}",
                field="spec.options",
            )
        self.workspaces = options.get("workspaces")

    def load(self, spec: BenchmarkSpec, *, base_dir: Path, file: str = "") -> list[Instance]:
        """Instances from an OctoBench JSONL file (``source.path``)."""
        if spec.source.path is None:
            raise SpecError("OctoBench reads 'path' (a JSONL file)", file=file, field="spec.source")
        path = Path(spec.source.path)
        path = path if path.is_absolute() else base_dir / path
        workspaces = None
        if self.workspaces:
            workspaces = Path(self.workspaces)
            workspaces = workspaces if workspaces.is_absolute() else base_dir / workspaces
            if not workspaces.is_dir():
                raise SpecError(
                    f"directory {workspaces} does not exist",
                    file=file,
                    field="spec.options.workspaces",
                )
        return load_octobench(path, workspaces=workspaces)

    def score(self, instance: Instance, trajectory: Trajectory) -> list[Verdict]:
        """No deterministic verifiers bound yet: nothing decided here."""
        return []

    def oracle_reply(self, instance: Instance, turn: int, wrong: WrongItem) -> str:
        """OctoBench has no single right answer; agent policies drive it instead."""
        raise UnknownConversation(
            "OctoBench instances have no oracle reply; drive them with agent:* policies"
        )

    def breakdowns(self) -> Sequence[str]:
        """Reports break results down by instance category and number of turns."""
        return ("category", "turns")

    def metric_names(self) -> tuple[str, str]:
        """OctoBench's own names."""
        return ("ISR", "CSR")
