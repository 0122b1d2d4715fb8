"""Evidence a pure suite asks the runner for: code to run in the sandbox, code to lint.

Suites are pure, yet some checks need a process: unit tests of model-written code
(run sandboxed), or Ruff over extracted code. Such a suite *describes* what it needs
as :data:`EvidenceRequest` values (``Suite.evidence``), the runner fulfils them at
the edge (:mod:`adhere.scoring._evidence`: the sandbox, a batched Ruff executor) and
hands the outcomes back by request id (``Suite.score(…, evidence=…)``).

Request ids are the suite's own and unique within one trial (e.g. ``tests`` or
``ruff:style_3``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from adhere.core._types import CoreModel

__all__ = [
    "Evidence",
    "EvidenceRequest",
    "EvidenceStatus",
    "ModelAsk",
    "RuffRun",
    "SandboxRun",
]


class SandboxRun(CoreModel):
    """Run untrusted code in the sandbox (see :mod:`adhere.sandbox`).

    ``mode``: ``asserts`` (``tests`` holds assert statements run after ``code``),
    ``unittest`` (``tests`` is a unittest module importing the code as ``solution``
    — see the sandbox docs), ``io`` (``cases``: stdin → expected stdout), ``python``
    (run ``code`` as a program; exit 0 passes). ``environment`` names a suite's
    sandbox environment (installed by ``adhere setup <name>``) whose interpreter runs the
    code; empty: the evaluator's own interpreter.
    """

    kind: Literal["sandbox"] = "sandbox"
    id: str = Field(min_length=1)
    mode: Literal["asserts", "unittest", "io", "python"]
    code: str
    tests: str = ""
    setup: str = ""
    cases: list[tuple[str, str]] = Field(default_factory=list)
    files: dict[str, str] = Field(default_factory=dict)
    timeout: float = Field(default=10.0, gt=0)
    memory_mb: int = Field(default=1024, gt=0)
    environment: str = ""


class RuffRun(CoreModel):
    """Lint ``code`` with Ruff: the selected rules under ``config`` (``ruff.toml`` keys).

    ``config`` holds settings such as ``{"line-length": 79}`` or
    ``{"lint": {"pylint": {"max-branches": 2}}}``; ``preview`` turns on preview rules.
    """

    kind: Literal["ruff"] = "ruff"
    id: str = Field(min_length=1)
    code: str
    select: list[str] = Field(min_length=1)
    config: dict[str, Any] = Field(default_factory=dict)
    preview: bool = False


class ModelAsk(CoreModel):
    """Ask the rollout's judge panel one question: every judge answers, replies by judge.

    Used where a paper reads model output with an LLM (GuideBench's answer parsing);
    the calls go through the panel's clients, limits and call log. The evidence's
    ``data["replies"]`` maps judge name → reply text, ``data["errors"]`` judge name →
    why it gave none; the status is ``pass`` when at least one judge replied, else
    ``error`` (also when the rollout has no judge panel).
    """

    kind: Literal["model"] = "model"
    id: str = Field(min_length=1)
    user: str
    system: str = ""
    max_tokens: int = Field(default=1024, gt=0)
    prompt_version: str = "1"


EvidenceRequest = SandboxRun | RuffRun | ModelAsk
"""Something a suite needs done outside the pure core."""

EvidenceStatus = Literal["pass", "fail", "timeout", "crash", "error"]


class Evidence(CoreModel):
    """The outcome of one request.

    ``status``: ``pass`` / ``fail`` (tests failed, or Ruff reported diagnostics),
    ``timeout`` and ``crash`` (sandbox), ``error`` (the request could not be carried
    out: no executor, a tool missing). ``detail`` is one line; ``data`` holds the
    rest (Ruff's diagnostics, captured output, timings).
    """

    id: str
    status: EvidenceStatus
    detail: str = ""
    data: dict[str, Any] = Field(default_factory=dict)
