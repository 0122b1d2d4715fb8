"""Suites that need evidence: sandboxed runs and Ruff requests fulfilled by the runner."""

import asyncio

from adhere.core import (
    ChatMessage,
    Check,
    Evidence,
    Instance,
    RuffRun,
    SandboxRun,
    Source,
    Trajectory,
    Verdict,
)
from adhere.scoring._evidence import gather_evidence, set_ruff_executor
from adhere.scoring._score import decide_checks

CODE = "def add(a, b):\n    return a + b\n"


class ToySuite:
    """Asks for the reply's code to be tested in the sandbox and linted."""

    name = "toy"

    def evidence(self, instance, trajectory):
        code = trajectory.messages[-1].content
        return [
            SandboxRun(id="tests", mode="asserts", code=code, tests="assert add(1, 2) == 3"),
            SandboxRun(id="slow", mode="python", code="while True: pass", timeout=1),
            RuffRun(id="lint", code=code, select=["E"]),
        ]

    def score(self, instance, trajectory, evidence=None):
        assert evidence is not None
        return [
            Verdict(
                check_id=check_id,
                result={"pass": "pass", "fail": "fail"}.get(evidence[key].status, "error"),
                decided_by="suite:toy",
                reasoning=evidence[key].detail,
            )
            for check_id, key in (("works", "tests"), ("halts", "slow"), ("clean", "lint"))
        ]


def instance():
    checks = [
        Check(id=i, source=Source.USER_QUERY, description=i) for i in ("works", "halts", "clean")
    ]
    return Instance(id="i", suite="toy", turns=["write add"], checks=checks)


def trajectory(code=CODE):
    return Trajectory(
        messages=[
            ChatMessage(role="user", content="x"),
            ChatMessage(role="assistant", content=code),
        ]
    )


def test_sandbox_and_missing_ruff_executor():
    previous = set_ruff_executor(None)
    try:
        found = asyncio.run(gather_evidence(ToySuite(), instance(), trajectory()))
    finally:
        set_ruff_executor(previous)
    assert found["tests"].status == "pass" and found["tests"].data["isolation"] in (
        "netns",
        "guard",
    )
    assert found["slow"].status == "timeout"
    assert found["lint"].status == "error" and "no Ruff executor" in found["lint"].detail
    decided = decide_checks(instance(), trajectory(), ToySuite(), found)
    results = {k: v.result for k, v in decided.verdicts.items()}
    assert results == {"works": "pass", "halts": "error", "clean": "error"}


def test_failing_code_and_a_registered_ruff_executor():
    seen = []

    async def executor(requests):
        seen.extend(r.id for r in requests)
        return {r.id: Evidence(id=r.id, status="fail", detail="E999") for r in requests}

    previous = set_ruff_executor(executor)
    try:
        bad = "def add(a, b):\n    return a - b\n"
        found = asyncio.run(gather_evidence(ToySuite(), instance(), trajectory(bad)))
    finally:
        set_ruff_executor(previous)
    assert seen == ["lint"] and found["lint"].status == "fail"
    assert found["tests"].status == "fail" and "add(1, 2) == 3" in found["tests"].detail


def test_suites_without_evidence_are_untouched():
    class Plain:
        name = "plain"

        def score(self, instance, trajectory):
            return []

    assert asyncio.run(gather_evidence(Plain(), instance(), trajectory())) is None


def test_the_ray_verification_worker_gathers_the_same_evidence():
    from adhere.ray_jobs._workers import VerifyWorker

    worker = VerifyWorker({"toy": ToySuite()})
    verified = asyncio.run(worker.verify(instance(), trajectory()))
    decided = verified.decided
    assert verified.new_cache_entries == {}  # the toy suite asks the panel nothing
    local = decide_checks(
        instance(),
        trajectory(),
        ToySuite(),
        asyncio.run(gather_evidence(ToySuite(), instance(), trajectory())),
    )
    assert {k: v.result for k, v in decided.verdicts.items()} == {
        k: v.result for k, v in local.verdicts.items()
    }
    assert decided.verdicts["works"].result == "pass"
