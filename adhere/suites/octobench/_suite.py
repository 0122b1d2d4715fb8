"""OctoBench as a suite: agentic instances with checklists (SUITES.md §1).

Checklist items are decided by deterministic verifiers where a check binds one
(inline, or through a bindings file given as the ``bindings`` option), and otherwise
by the rollout's judge panel. Options: ``workspaces`` (a directory with one
workspace per instance id) and ``bindings`` (a verifier bindings YAML file).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from adhere.core import Instance, Trajectory, Verdict
from adhere.errors import SpecError, UnknownConversation
from adhere.judging import load_bindings, validate_checks
from adhere.spec import BenchmarkSpec, data_path
from adhere.suites._registry import WrongItem, suite
from adhere.suites.octobench._load import load_octobench

_OPTIONS = ("workspaces", "bindings")


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
        self.bindings = options.get("bindings")

    def load(self, spec: BenchmarkSpec, *, base_dir: Path, file: str = "") -> list[Instance]:
        """Instances from an OctoBench JSONL file (``source.path``)."""
        if spec.source.path is None:
            raise SpecError("OctoBench reads 'path' (a JSONL file)", file=file, field="spec.source")
        path = Path(spec.source.path)
        path = path if path.is_absolute() else base_dir / path
        workspaces = None
        if self.workspaces is not None:
            field = "spec.options.workspaces"
            workspaces = data_path(self.workspaces, base_dir=base_dir, file=file, field=field)
            if not workspaces.is_dir():
                raise SpecError(
                    f"directory {workspaces} does not exist",
                    file=file,
                    field="spec.options.workspaces",
                )
        instances = load_octobench(path, workspaces=workspaces)
        if self.bindings is not None:
            field = "spec.options.bindings"
            bindings_path = data_path(self.bindings, base_dir=base_dir, file=file, field=field)
            if not bindings_path.is_file():
                raise SpecError(f"file {bindings_path} does not exist", file=file, field=field)
            bindings = load_bindings(bindings_path)
            instances = [bindings.bind_instance(i) for i in instances]
        for instance in instances:
            validate_checks(instance.checks, file=f"{path} ({instance.id})")
        return instances

    def score(self, instance: Instance, trajectory: Trajectory) -> list[Verdict]:
        """Nothing suite-specific: bound verifiers and the judge panel decide the checks."""
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
