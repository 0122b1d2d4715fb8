"""The ManyIH IF subset's code checks run in the sandbox; the others go to the panel."""

import asyncio
from pathlib import Path

from adhere.core import ChatMessage, Trajectory
from adhere.scoring._evidence import gather_evidence
from adhere.scoring._score import decide_checks
from adhere.spec import BenchmarkSpec
from adhere.suites.manyih import ManyIHSuite
from tests.helpers import ROOT

FIXTURE = ROOT / "tests" / "unit" / "manyih" / "if_fixture.json"


def reply(text: str) -> Trajectory:
    return Trajectory(
        messages=[
            ChatMessage(role="user", content="q"),
            ChatMessage(role="assistant", content=text),
        ]
    )


def test_code_checks_sandboxed_and_llm_checks_left_to_the_judges() -> None:
    suite = ManyIHSuite(subset="if")
    spec = BenchmarkSpec(suite="manyih", source={"path": str(FIXTURE)}, options={"subset": "if"})
    travel, colours = suite.load(spec, base_dir=Path("."))

    answer = suite.oracle_reply(travel, 0, lambda key: False)
    evidence = asyncio.run(gather_evidence(suite, travel, reply(answer)))
    assert evidence is not None and set(evidence) == {"if:c1", "if:c2"}
    decided = decide_checks(travel, reply(answer), suite, evidence)
    assert {k: v.result for k, v in decided.verdicts.items()} == {"if:c1": "pass", "if:c2": "pass"}
    assert [c.id for c in decided.to_judge] == ["if:c3", "if:c4"]

    wordy = " ".join(["word"] * 60)  # too long, and no closing phrase
    evidence = asyncio.run(gather_evidence(suite, travel, reply(wordy)))
    assert evidence is not None
    decided = decide_checks(travel, reply(wordy), suite, evidence)
    assert {k: v.result for k, v in decided.verdicts.items()} == {"if:c1": "fail", "if:c2": "fail"}

    evidence = asyncio.run(gather_evidence(suite, colours, reply('["red", "green"]')))
    assert evidence is not None
    assert evidence["if:json"].status == "pass"
    assert evidence["if:broken"].status == "crash" and "maybe" in evidence["if:broken"].detail
    verdicts = suite.score(colours, reply('["red", "green"]'), evidence)
    assert {v.check_id: v.result for v in verdicts} == {"if:json": "pass", "if:broken": "error"}
