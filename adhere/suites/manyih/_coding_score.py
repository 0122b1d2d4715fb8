"""Scoring a coding-subset reply: its unit tests (run in the sandbox) and its styles.

:func:`coding_evidence` asks for one sandboxed run of the reply's code against the
sample's tests; :func:`coding_score` turns that run into the tests verdict and checks
every winning style, naming the conflicting losing styles a failed one followed
instead. The protocol chooses the extraction (adhere's or the public one) and the
checkers (adhere's or the public-compatible ones). The IF subset is scored by
:mod:`._ifsubset`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from adhere.core import Evidence, EvidenceRequest, Instance, SandboxRun, Trajectory, Verdict
from adhere.suites.manyih._checkers import check_style
from adhere.suites.manyih._code import Code, Outcome
from adhere.suites.manyih._extract import extract_code
from adhere.suites.manyih._instances import TESTS_CHECK, VERIFIER, answer_key, style_check
from adhere.suites.manyih._protocol import Protocol, extract_public
from adhere.suites.manyih._public import check_public
from adhere.suites.manyih._styles import STYLES, conflicts

__all__ = ["coding_evidence", "coding_score"]


def coding_evidence(
    instance: Instance, trajectory: Trajectory, protocol: Protocol
) -> list[EvidenceRequest]:
    """The unit tests of the reply's code, to run in the sandbox (none without code)."""
    key = answer_key(instance)
    code = _extract(_reply(trajectory)[0], protocol)
    if not code.strip():
        return []
    return [
        SandboxRun(
            id=TESTS_CHECK,
            mode="asserts",
            code=code,
            tests=key.tests,
            setup=key.setup,
            timeout=key.timeout,
        )
    ]


def coding_score(
    instance: Instance,
    trajectory: Trajectory,
    evidence: Mapping[str, Evidence] | None,
    protocol: Protocol,
) -> list[Verdict]:
    """The tests verdict (from the sandbox's evidence) and one per winning style."""
    key = answer_key(instance)
    reply, used = _reply(trajectory)
    code = _extract(reply, protocol)
    verdicts = [_tests_verdict(code, used, evidence)]
    check = _checker(code, protocol)
    losers = [s for s in key.styles if s not in key.winners]
    for sid in key.winners:
        result = check(sid)
        followed: list[str] = []
        if not result.passed and code.strip():
            followed = [s for s in losers if conflicts(sid, s) and check(s).passed]
        verdicts.append(
            Verdict(
                check_id=style_check(sid),
                result="pass" if result.passed else "fail",
                decided_by=VERIFIER,
                reasoning=result.reason,
                evidence=used,
                details={
                    "style": sid,
                    "group": STYLES[sid].group,
                    "followed_instead": followed,
                },
            )  # fmt: skip
        )
    return verdicts


def _reply(trajectory: Trajectory) -> tuple[str, int | None]:
    replies = [m.content for m in trajectory.assistant_turns()]
    used = max((i for i, r in enumerate(replies) if r.strip()), default=None)
    return (replies[used] if used is not None else ""), used


def _extract(reply: str, protocol: Protocol) -> str:
    return extract_public(reply) if protocol.extract == "public" else extract_code(reply)


def _checker(code: str, protocol: Protocol) -> Callable[[str], Outcome]:
    """Style id → outcome, by the chosen checkers (no code fails every style)."""
    if not code.strip():
        return lambda sid: Outcome.bad("no code in the reply")
    if protocol.checkers == "public-compatible":
        return lambda sid: check_public(code, sid)
    parsed = Code(code)
    return lambda sid: check_style(parsed, sid)


def _tests_verdict(code: str, used: int | None, evidence: Mapping[str, Evidence] | None) -> Verdict:
    if not code.strip():
        return Verdict(check_id=TESTS_CHECK, result="fail", decided_by=VERIFIER,
                       reasoning="no code in the reply", evidence=used,
                       details={"status": "no code"})  # fmt: skip
    found = (evidence or {}).get(TESTS_CHECK)
    if found is None:
        return Verdict(check_id=TESTS_CHECK, result="error", decided_by=VERIFIER,
                       reasoning="no sandbox evidence for the unit tests", evidence=used,
                       details={"status": "error"})  # fmt: skip
    result = "pass" if found.status == "pass" else "error" if found.status == "error" else "fail"
    return Verdict(
        check_id=TESTS_CHECK,
        result=result,
        decided_by=VERIFIER,
        reasoning=found.detail,
        evidence=used,
        details={"status": found.status, "seconds": found.data.get("seconds"),
                 "isolation": found.data.get("isolation")},
    )  # fmt: skip
