"""The bodies of the verification and judge actors: thin shells around pure scoring steps.

Both are plain classes (tested without Ray); :mod:`adhere.ray_jobs._pools` turns them
into actors. Neither touches the store: the driver reads trajectories and cached
verdicts and writes results, so workers need nothing but ``adhere`` and the judges'
API keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from adhere.artifacts import JudgeCallRecord
from adhere.core import Check, Instance, ModelAsk, Trajectory, Verdict
from adhere.judging import ConflictQuestion, PanelJudge, PanelResult, run_conflict_panel
from adhere.ray_jobs._limiter import RemoteLimiter
from adhere.scoring import (
    DecidedChecks,
    JudgeAsks,
    decide_checks,
    gather_evidence,
    judge_checks,
    wants_evidence,
)
from adhere.spec import Endpoint, JudgePanel
from adhere.suites import Suite

__all__ = ["JudgeWorker", "Judged", "PrefetchedCache", "Verified", "VerifyWorker"]


class VerifyWorker:
    """Suite scoring and deterministic verifiers (see :func:`decide_checks`).

    Args:
        suites: The rollout's suites by name, as the driver configured them.
        panel: The JudgePanel, which answers a suite's ``ModelAsk`` evidence requests
            (GuideBench's ``parse: llm``); its clients are opened in this process only
            when a trial asks.
        endpoints: Judge name → endpoint, ``scripted`` already resolved to a URL.
        limiters: Judge name → handle of its endpoint's limiter actor.
    """

    def __init__(
        self,
        suites: Mapping[str, Suite],
        panel: JudgePanel | None = None,
        endpoints: Mapping[str, Endpoint] | None = None,
        limiters: Mapping[str, Any] | None = None,
    ) -> None:
        self.suites = dict(suites)
        self.panel = panel
        self.endpoints = dict(endpoints or {})
        self.limiters = dict(limiters or {})
        self._asks: JudgeAsks | None = None
        self._judges: list[PanelJudge] = []

    def _panel(self) -> list[PanelJudge]:
        if self.panel is None:
            return []
        if self._asks is None:
            shared = {
                name: RemoteLimiter(endpoint.limits, self.limiters[name])
                for name, endpoint in self.endpoints.items()
                if name in self.limiters
            }
            self._asks = JudgeAsks(self.endpoints, shared)
            self._judges = self._asks.judges(self.panel)
        return self._judges

    async def verify(
        self,
        instance: Instance,
        trajectory: Trajectory,
        cached: Mapping[str, Verdict] | None = None,
    ) -> Verified:
        """Decide what the suite and the bound verifiers decide of one trial.

        A suite that asks for evidence (sandboxed test runs, Ruff, questions for the
        judge panel) gets it here, in the actor's process, exactly as the in-process
        path gathers it. ``cached``: the panel's earlier replies to this trial's
        questions, which the driver read from the store's cache (a question answered
        there is not asked again); new replies come back for the driver to keep.
        """
        suite = self.suites[instance.suite]
        asks = wants_evidence(suite) and any(
            isinstance(r, ModelAsk)
            for r in suite.evidence(instance, trajectory)  # type: ignore[attr-defined]
        )
        judges = self._panel() if asks else None
        cache = PrefetchedCache(dict(cached or {}))
        evidence = await gather_evidence(suite, instance, trajectory, judges, cache)
        decided = decide_checks(instance, trajectory, suite, evidence)
        if asks:
            decided = replace(decided, calls=tuple(self.take_calls()))
        return Verified(decided, cache.new)

    def take_calls(self) -> list[JudgeCallRecord]:
        """Records of the panel calls made since the last take (telemetry)."""
        if self._asks is None:
            return []
        records, self._asks.records = self._asks.records, []
        return records

    async def aclose(self) -> None:
        """Close the model clients (if any trial asked the panel)."""
        if self._asks is not None:
            await self._asks.aclose()


@dataclass
class PrefetchedCache:
    """A verdict cache over the entries the driver read for one trial.

    Verdicts put here are sent back in :attr:`new`, and the driver writes them to the
    store's cache.
    """

    entries: dict[str, Verdict]
    new: dict[str, Verdict] = field(default_factory=dict)

    def get(self, key: str) -> Verdict | None:
        """The prefetched verdict under ``key``, or ``None``."""
        return self.entries.get(key)

    def put(self, key: str, verdict: Verdict) -> None:
        """Keep a new verdict for the driver to store."""
        self.entries[key] = verdict
        self.new[key] = verdict


@dataclass(frozen=True)
class Verified:
    """What a verification actor sends back for one trial."""

    decided: DecidedChecks
    new_cache_entries: dict[str, Verdict] = field(default_factory=dict)
    """The panel's replies to the suite's questions that were not in the cache."""


@dataclass(frozen=True)
class Judged:
    """What a judge actor sends back for one trial."""

    result: PanelResult
    new_cache_entries: dict[str, Verdict]
    calls: list[JudgeCallRecord] = field(default_factory=list)
    """Records of the judge calls this actor made since its last answer (telemetry)."""
    attributions: dict[str, Verdict] | None = None
    """A conflict trial's attributions, judge name → verdict (``None``: not a conflict)."""


class JudgeWorker:
    """The judge panel with one model client per judge endpoint, opened in this process.

    API keys are read here, from each endpoint's ``apiKey`` source (an environment
    variable or a file on the worker), never passed as arguments. Every HTTP attempt
    first takes a lease from the endpoint's limiter actor.

    Args:
        panel: The JudgePanel (aggregation, prompt version, judges).
        endpoints: Judge name → endpoint, ``scripted`` already resolved to a URL.
        limiters: Judge name → handle of its endpoint's limiter actor.
    """

    def __init__(
        self, panel: JudgePanel, endpoints: Mapping[str, Endpoint], limiters: Mapping[str, Any]
    ) -> None:
        self.panel = panel
        self.endpoints = dict(endpoints)
        self.limiters = dict(limiters)
        self._asks: JudgeAsks | None = None
        self._judges: list[PanelJudge] = []

    def _panel(self) -> list[PanelJudge]:
        if self._asks is None:
            shared = {
                name: RemoteLimiter(endpoint.limits, self.limiters[name])
                for name, endpoint in self.endpoints.items()
            }
            asks = JudgeAsks(self.endpoints, shared)
            self._judges = asks.judges(self.panel)
            self._asks = asks
        return self._judges

    async def judge(
        self,
        checks: list[Check],
        trajectory: Trajectory,
        cached: dict[str, Verdict],
        question: ConflictQuestion | None = None,
    ) -> Judged:
        """Run the panel over one trial's remaining checks (see :func:`judge_checks`).

        With ``question`` (a conflict instance), every judge also says which side the
        run followed (:func:`adhere.judging.run_conflict_panel`).
        """
        cache = PrefetchedCache(dict(cached))
        result = await judge_checks(self._panel(), checks, trajectory, self.panel, cache)
        attributions = None
        if question is not None:
            attributions = dict(
                await run_conflict_panel(self._panel(), question, trajectory, cache=cache)
            )
        records: list[JudgeCallRecord] = []
        if self._asks is not None:
            records, self._asks.records = self._asks.records, []
        return Judged(
            result=result, new_cache_entries=cache.new, calls=records, attributions=attributions
        )

    def calls(self) -> int:
        """Judge calls made so far (as ``ScoreSummary.judge_calls`` counts them)."""
        return self._asks.calls if self._asks is not None else 0

    async def aclose(self) -> None:
        """Close the model clients."""
        if self._asks is not None:
            await self._asks.aclose()
