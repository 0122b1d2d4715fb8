"""Scoring helpers of the VeriCode suite: replies per turn, rules per protocol, verdicts."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adhere.core import ChatMessage, Evidence, SandboxRun, Verdict
from adhere.suites.vericode._checks import CUSTOM_CHECKS, CheckResult, extract_code, has_code
from adhere.suites.vericode._paper_rules import PAPER_CUSTOM_CHECKS, paper_extract
from adhere.suites.vericode._task import Task

__all__ = [
    "ENVIRONMENT_LOCK",
    "ENVIRONMENT_PYTHON",
    "SUITE_ENVIRONMENT",
    "Rules",
    "from_evidence",
    "rules_for",
    "sandbox",
    "turn_replies",
]

_KEPT_DIAGNOSTICS = 5
SUITE_ENVIRONMENT = "vericode"
"""The sandbox environment tasks with third-party libraries run in."""
ENVIRONMENT_LOCK = Path(__file__).parent / "env" / "requirements.txt"
"""Its lock (``adhere setup vericode`` installs it; see ``env/requirements.in``)."""
ENVIRONMENT_PYTHON = "3.10"
"""The Python version of BigCodeBench's evaluation environment."""


@dataclass(frozen=True)
class Rules:
    """How replies are read: extraction, the custom checks, and whether code is required.

    ``require_code``: a turn without code fails its code checks without running them
    (adhere); the paper lints and tests whatever extraction gives.
    """

    name: str
    extract: Callable[[str], str]
    custom: Mapping[str, Callable[[str], CheckResult]]
    require_code: bool

    def no_code(self, reply: str | None, turn: int) -> str | None:
        """Why turn ``turn`` has no code to check (``None``: there is code to check)."""
        if reply is None:
            return f"no reply to turn {turn}: no code to check"
        if self.require_code and not has_code(self.extract(reply)):
            return f"the reply to turn {turn} holds no code (its fenced blocks are empty)"
        return None


_RULES = {
    "adhere": Rules("adhere", extract_code, CUSTOM_CHECKS, require_code=True),
    "paper": Rules("paper", paper_extract, PAPER_CUSTOM_CHECKS, require_code=False),
}


def rules_for(name: str) -> Rules:
    """The rules of ``protocol: <name>`` (``adhere`` or ``paper``)."""
    return _RULES[name]


def turn_replies(messages: Sequence[ChatMessage], turns: int) -> list[str | None]:
    """The reply to each user turn: the last non-empty assistant text before the next one."""
    replies: list[str | None] = [None] * turns
    turn = -1
    for message in messages:
        if message.role == "user":
            turn += 1
        elif message.role == "assistant" and 0 <= turn < turns and message.content.strip():
            replies[turn] = message.content
    return replies


def needs_environment(task: Task) -> bool:
    """Whether the task imports a library outside Python's standard library."""
    return any(lib.split(".")[0] not in sys.stdlib_module_names for lib in task.libs)


def sandbox(request_id: str, task: Task, code: str, environment: str) -> SandboxRun:
    """The test run of ``code``; in the suite's environment when ``auto`` and it needs one."""
    tests = task.tests
    wanted = environment == "auto" and needs_environment(task)
    return SandboxRun(
        id=request_id,
        mode=tests.mode,
        code=code,
        tests=tests.code,
        setup=tests.setup,
        cases=list(tests.cases),
        files=dict(tests.files),
        timeout=tests.timeout,
        environment=SUITE_ENVIRONMENT if wanted else "",
    )


def from_evidence(
    check_id: str,
    found: Evidence | None,
    decided_by: str,
    index: int | None,
    details: dict[str, Any],
    no_code: str | None = None,
) -> Verdict:
    """The verdict of a check decided by evidence (no code: fail; missing/error: error)."""
    if no_code is not None:
        return Verdict(check_id=check_id, result="fail", decided_by=decided_by,
                       reasoning=no_code, evidence=index, details=details)  # fmt: skip
    if found is None or found.status == "error":
        reason = "no evidence was gathered" if found is None else found.detail
        return Verdict(check_id=check_id, result="error", decided_by=decided_by,
                       reasoning=reason, evidence=index, details=details)  # fmt: skip
    extra = {}
    diagnostics = found.data.get("diagnostics")
    if diagnostics:
        extra["diagnostics"] = diagnostics[:_KEPT_DIAGNOSTICS]
    return Verdict(
        check_id=check_id,
        result="pass" if found.status == "pass" else "fail",
        decided_by=decided_by,
        reasoning=found.detail,
        evidence=index,
        details={**details, **extra},
    )
