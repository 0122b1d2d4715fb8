"""Fulfilling the evidence requests of pure suites: sandboxed code runs and Ruff checks.

A suite that needs a process to decide its checks (unit tests of model-written code,
Ruff over extracted code) implements ``evidence(instance, trajectory)`` returning
:data:`adhere.spec.EvidenceRequest` values and accepts ``score(instance, trajectory,
evidence=…)``; :func:`gather_evidence` runs the requests here, at the edge:

- :class:`~adhere.spec.SandboxRun` → :mod:`adhere.sandbox` (a separate, resource-limited,
  network-less process per run; never in this process), at most ``parallelism`` at once
  across every trial being scored;
- :class:`~adhere.spec.RuffRun` → the registered Ruff executor
  (:func:`set_ruff_executor`), which may batch requests from many trials into one
  Ruff process; by default :func:`adhere.scoring._ruff_batcher.batched_ruff`;
- :class:`~adhere.core.ModelAsk` → every judge of the rollout's panel, through the
  panel's own clients, limits and call log (:mod:`adhere.scoring._model_ask`).

A request that cannot be carried out becomes ``error`` evidence naming the reason,
which the suite turns into ``error`` verdicts — never a pass.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence

from adhere.core import (
    Evidence,
    EvidenceRequest,
    Instance,
    ModelAsk,
    RuffRun,
    SandboxRun,
    Trajectory,
)
from adhere.judging import PanelJudge, VerdictCache
from adhere.sandbox import (
    Environment,
    Limits,
    RunResult,
    run_asserts,
    run_io,
    run_python,
    run_unittest,
)
from adhere.sandbox import summarize as summarize_runs
from adhere.scoring._model_ask import ask_panel
from adhere.scoring._ruff_batcher import batched_ruff
from adhere.suites import Suite
from adhere.suites.vericode import ENVIRONMENT_LOCK, ENVIRONMENT_PYTHON, SUITE_ENVIRONMENT

__all__ = [
    "RuffExecutor",
    "gather_evidence",
    "register_environment",
    "sandbox_environments",
    "sandbox_evidence",
    "set_ruff_executor",
    "wants_evidence",
]

RuffExecutor = Callable[[Sequence[RuffRun]], Awaitable[Mapping[str, Evidence]]]
"""Checks Ruff requests (possibly batched with other trials'); evidence by request id."""

_OUTPUT_KEPT = 4000
_ruff_executor: RuffExecutor | None = batched_ruff
_sandbox_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)
"""Sandbox slots per event loop (a semaphore belongs to one loop; a dead loop's goes)."""


def set_ruff_executor(executor: RuffExecutor | None) -> RuffExecutor | None:
    """Register the executor of :class:`RuffRun` requests (``None`` removes it).

    Returns the executor it replaces, so a caller can put it back.
    """
    global _ruff_executor
    previous, _ruff_executor = _ruff_executor, executor
    return previous


def wants_evidence(suite: Suite) -> bool:
    """Whether the suite asks for evidence before it scores."""
    return callable(getattr(suite, "evidence", None))


async def gather_evidence(
    suite: Suite,
    instance: Instance,
    trajectory: Trajectory,
    judges: Sequence[PanelJudge] | None = None,
    cache: VerdictCache | None = None,
) -> dict[str, Evidence] | None:
    """The suite's evidence for one trial (``None`` when the suite asks for none).

    ``judges``: the rollout's panel, which answers :class:`ModelAsk` requests
    (``None`` or empty: those become ``error`` evidence naming the missing panel);
    ``cache`` keeps their replies (:mod:`adhere.scoring._model_ask`).
    """
    if not wants_evidence(suite):
        return None
    requests: Sequence[EvidenceRequest] = suite.evidence(instance, trajectory)  # type: ignore[attr-defined]
    seen: set[str] = set()
    for request in requests:
        if request.id in seen:
            raise ValueError(f"suite {suite.name!r} asked twice for evidence id {request.id!r}")
        seen.add(request.id)
    sandbox = [r for r in requests if isinstance(r, SandboxRun)]
    ruff = [r for r in requests if isinstance(r, RuffRun)]
    found = await asyncio.gather(*(sandbox_evidence(r) for r in sandbox))
    out = {e.id: e for e in found}
    asks = [r for r in requests if isinstance(r, ModelAsk)]
    answered = await asyncio.gather(*(ask_panel(r, judges or (), cache) for r in asks))
    out.update({e.id: e for e in answered})
    if ruff:
        if _ruff_executor is None:
            out.update(
                {
                    r.id: Evidence(id=r.id, status="error", detail="no Ruff executor registered")
                    for r in ruff
                }
            )
        else:
            checked = await _ruff_executor(ruff)
            for request in ruff:
                out[request.id] = checked.get(request.id) or Evidence(
                    id=request.id, status="error", detail="the Ruff executor gave no result"
                )
    return out


_ENVIRONMENTS: dict[str, Environment] = {
    SUITE_ENVIRONMENT: Environment(SUITE_ENVIRONMENT, ENVIRONMENT_LOCK, ENVIRONMENT_PYTHON),
}


def sandbox_environments() -> dict[str, Environment]:
    """The sandbox environments requests may name (``adhere setup <name>`` installs one)."""
    return dict(_ENVIRONMENTS)


def register_environment(env: Environment) -> Environment | None:
    """Add or replace a named environment; returns the one it replaced."""
    previous = _ENVIRONMENTS.get(env.name)
    _ENVIRONMENTS[env.name] = env
    return previous


def _interpreter(request: SandboxRun) -> str | Evidence | None:
    """The interpreter of the request's environment, or error evidence saying why not."""
    if not request.environment:
        return None
    env = _ENVIRONMENTS.get(request.environment)
    if env is None:
        known = ", ".join(sorted(_ENVIRONMENTS)) or "none"
        return Evidence(id=request.id, status="error",
                        detail=f"unknown sandbox environment {request.environment!r} "
                        f"(known: {known})")  # fmt: skip
    found = env.interpreter()
    if found is None:
        return Evidence(
            id=request.id,
            status="error",
            detail=f"the sandbox environment {env.name!r} is not installed: run "
            f"`adhere setup {env.name}` (tests need its libraries)",
        )
    return str(found)


async def sandbox_evidence(request: SandboxRun) -> Evidence:
    """Run one sandbox request (bounded by the process-wide sandbox slots)."""
    python = _interpreter(request)
    if isinstance(python, Evidence):
        return python
    loop = asyncio.get_running_loop()
    slots = _sandbox_slots.get(loop)
    if slots is None:
        slots = _sandbox_slots[loop] = _new_slots()
    limits = Limits(timeout=request.timeout, memory_mb=request.memory_mb)
    async with slots:
        try:
            if request.mode == "asserts":
                result = await run_asserts(
                    request.code,
                    request.tests,
                    setup=request.setup,
                    files=request.files,
                    limits=limits,
                    python=python,
                )
            elif request.mode == "unittest":
                result = await run_unittest(
                    request.code, request.tests, files=request.files, limits=limits, python=python
                )
            elif request.mode == "io":
                if not request.cases:
                    return Evidence(id=request.id, status="error", detail="io run without cases")
                cases = await run_io(
                    request.code, request.cases, files=request.files, limits=limits, python=python
                )
                result = summarize_runs(cases)
            else:
                result = await run_python(
                    request.code, files=request.files, limits=limits, python=python
                )
        except Exception as exc:  # the sandbox could not run at all: say so, never pass
            return Evidence(id=request.id, status="error", detail=f"sandbox: {exc}")
    return _evidence(request.id, result)


def _evidence(request_id: str, result: RunResult) -> Evidence:
    return Evidence(
        id=request_id,
        status=result.status,
        detail=result.detail,
        data={
            "returncode": result.returncode,
            "seconds": round(result.seconds, 3),
            "isolation": result.isolation,
            "stdout": result.stdout[-_OUTPUT_KEPT:],
            "stderr": result.stderr[-_OUTPUT_KEPT:],
        },
    )


def _new_slots() -> asyncio.Semaphore:
    return asyncio.Semaphore(int(os.environ.get("ADHERE_SANDBOX_PARALLELISM", os.cpu_count() or 2)))
