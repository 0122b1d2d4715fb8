"""The suite registry: ``@suite("name")`` and lookup by name.

Built-in suites register on first lookup (their modules are imported lazily); third
parties add suites through the ``adhere.suites`` entry-point group. The lookup is
:class:`adhere._registry.Registry`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from adhere._registry import Registry
from adhere.core import Evidence, EvidenceRequest, Instance, Trajectory, Verdict
from adhere.spec import BenchmarkSpec

WrongItem = Callable[[str], bool]
"""Given an item key of an instance (e.g. ``step-3``), whether to answer it wrongly."""


class Suite(Protocol):
    """What a suite provides to the pipeline. Implementations are pure."""

    name: str

    def load(self, spec: BenchmarkSpec, *, base_dir: Path, file: str = "") -> list[Instance]:
        """Resolve a Benchmark's source into instances (files relative to ``base_dir``).

        ``file`` names the spec file in error messages.
        """
        ...

    def score(self, instance: Instance, trajectory: Trajectory) -> list[Verdict]:
        """Decide the instance's deterministic checks from a trajectory."""
        ...

    def oracle_reply(self, instance: Instance, turn: int, wrong: WrongItem) -> str:
        """The reply a perfect model gives at user turn ``turn`` (0-based).

        Items for which ``wrong(key)`` is true are answered wrongly on purpose; the
        scripted policy server uses this for its ``oracle`` and ``noisy`` policies.
        """
        ...

    def breakdowns(self) -> Sequence[str]:
        """Instance metadata keys reports break results down by."""
        ...

    def metric_names(self) -> tuple[str, str]:
        """What this suite calls ISR and CSR (e.g. prompt- and instruction-level accuracy)."""
        ...


class EvidenceSuite(Suite, Protocol):
    """A suite whose checks need work outside the pure core (see :mod:`adhere.core._evidence`).

    The runner asks :meth:`evidence` for the requests of one trial, fulfils them at the
    edge (sandboxed code runs, Ruff) and passes the outcomes, by request id, to
    :meth:`score`.
    """

    def evidence(self, instance: Instance, trajectory: Trajectory) -> Sequence[EvidenceRequest]:
        """What to run or lint for this trial (ids unique within the trial)."""
        ...

    def score(
        self,
        instance: Instance,
        trajectory: Trajectory,
        evidence: Mapping[str, Evidence] | None = None,
    ) -> list[Verdict]:
        """Decide the checks; evidence that is missing or ``error`` yields ``error`` verdicts."""
        ...


_SUITES: Registry[Callable[..., Suite]] = Registry(
    "suites",
    "suite",
    field="spec.suite",
    builtin={
        "guidebench": "adhere.suites.guidebench",
        "manyih": "adhere.suites.manyih",
        "octobench": "adhere.suites.octobench",
        "pacific": "adhere.suites.pacific",
        "vericode": "adhere.suites.vericode",
    },
)

S = TypeVar("S")


def suite(name: str) -> Callable[[type[S]], type[S]]:
    """Class decorator registering a suite under ``name``."""
    return _SUITES.decorator(name)


def suite_names() -> list[str]:
    """Names of every known suite (built-in and from entry points)."""
    return _SUITES.names()


def get_suite(name: str, /, **options: Any) -> Suite:
    """Instantiate a suite by name; SpecError listing the known suites otherwise."""
    return _SUITES.get(name)(**options)
