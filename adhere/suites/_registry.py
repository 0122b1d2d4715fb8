"""The suite registry: ``@suite("name")`` and lookup by name.

Built-in suites register on first lookup (their modules are imported lazily); third
parties add suites through the ``adhere.suites`` entry-point group.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol, TypeVar

from adhere.core import Evidence, EvidenceRequest, Instance, Trajectory, Verdict
from adhere.errors import SpecError
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


_BUILTIN: Mapping[str, str] = {
    "guidebench": "adhere.suites.guidebench",
    "manyih": "adhere.suites.manyih",
    "octobench": "adhere.suites.octobench",
    "pacific": "adhere.suites.pacific",
    "vericode": "adhere.suites.vericode",
}
_REGISTRY: dict[str, Callable[[], Suite]] = {}

S = TypeVar("S")


def suite(name: str) -> Callable[[type[S]], type[S]]:
    """Class decorator registering a suite under ``name``."""

    def register(cls: type[S]) -> type[S]:
        _REGISTRY[name] = cls  # type: ignore[assignment]
        return cls

    return register


def suite_names() -> list[str]:
    """Names of every known suite (built-in and from entry points)."""
    names = set(_BUILTIN) | set(_REGISTRY)
    names |= {ep.name for ep in entry_points(group="adhere.suites")}
    return sorted(names)


def get_suite(name: str, **options: Any) -> Suite:
    """Instantiate a suite by name; SpecError listing the known suites otherwise."""
    if name not in _REGISTRY and name in _BUILTIN:
        importlib.import_module(_BUILTIN[name])
    if name not in _REGISTRY:
        for ep in entry_points(group="adhere.suites", name=name):
            _REGISTRY[name] = ep.load()
    if name not in _REGISTRY:
        raise SpecError(
            f"unknown suite {name!r}; known suites: {', '.join(suite_names())}",
            field="spec.suite",
        )
    return _REGISTRY[name](**options)
