"""The suite's pure parts: instances of both protocols, oracle rendering, scoring from evidence."""

import pytest

from adhere.core import ChatMessage, Evidence, RuffRun, Trajectory
from adhere.errors import SpecError
from adhere.scoring._ruff_batch import check_requests
from adhere.suites import get_suite
from adhere.suites.vericode import (
    CUSTOM_CHECKS,
    INSTRUCTIONS,
    Chosen,
    Selection,
    builtin_tasks,
    by_id,
    extract_code,
    render_reply,
    selection_instances,
    strip_docs,
)

TASKS = {t.id: t for t in builtin_tasks()}
CHOSEN = [
    Chosen(id="doc_6", params={}),
    Chosen(id="style_3", params={"line_length": 90}),
    Chosen(id="doc_5", params={}),
]


def instances(protocols=("single", "multi"), ks=None):
    selection = Selection(task=TASKS["chunk"], instructions=CHOSEN)
    return {i.id: i for i in selection_instances(selection, protocols, ks)}


def test_instances_of_both_protocols():
    found = instances(ks=[0, 3])
    assert sorted(found) == ["chunk.multi", "chunk.single.k0", "chunk.single.k3"]
    single = found["chunk.single.k3"]
    assert [c.id for c in single.checks] == ["tests", "doc_6", "style_3", "doc_5"]
    assert len(single.turns) == 1 and "Follow these instructions:\n1. " in single.turns[0]
    assert "at most 90 characters" in single.turns[0]
    assert found["chunk.single.k0"].turns[0] == TASKS["chunk"].prompt.strip()
    multi = found["chunk.multi"]
    assert len(multi.turns) == 4 and multi.turns[0] == TASKS["chunk"].prompt.strip()
    assert [c.id for c in multi.checks] == [
        "t0.tests",
        "t1.tests", "t1.doc_6",
        "t2.tests", "t2.doc_6", "t2.style_3",
        "t3.tests", "t3.doc_6", "t3.style_3", "t3.doc_5",
    ]  # fmt: skip
    assert single.metadata["protocol"] == "single" and single.metadata["k"] == 3


def test_oracle_renders_the_forms_asked_for():
    task = TASKS["read_config"]
    never = lambda key: False  # noqa: E731
    default = render_reply(task, [], never)
    assert default.startswith("Here is the solution.") and '"""' in extract_code(default)
    bare = render_reply(task, [("doc_4", {})], never)
    assert CUSTOM_CHECKS["bare_code"](bare).passed
    blocks = render_reply(task, [("doc_6", {}), ("doc_5", {})], never)
    assert CUSTOM_CHECKS["python_json"](blocks).passed
    assert CUSTOM_CHECKS["no_comments"](extract_code(blocks)).passed
    assert '"functions": [\n    "ConfigError",\n    "read_config"\n  ]' in blocks
    stripped = strip_docs(task.solution)
    assert "class ConfigError(Exception):\n    pass\n" in stripped
    broken = render_reply(task, [], lambda key: key == "tests")
    assert "checked=True" in broken
    assert render_reply(task.model_copy(update={"solution": None}), [], never).startswith(
        "I cannot"
    )


def test_each_violation_fails_its_instruction_and_only_then():
    task = TASKS["read_config"].model_copy(update={"tags": ["files", "errors", "pandas"]})
    requests = []
    for instruction in INSTRUCTIONS:
        for wrong in (False, True):
            reply = render_reply(task, [(instruction.id, instruction.defaults())],
                                 lambda key, w=wrong, i=instruction.id: w and key == i)  # fmt: skip
            if instruction.custom:
                text = reply if instruction.whole_reply else extract_code(reply)
                assert CUSTOM_CHECKS[instruction.custom](text).passed is not wrong
                continue
            requests.append(
                RuffRun(
                    id=f"{instruction.id}/{wrong}",
                    code=extract_code(reply),
                    select=list(instruction.select),
                    config=instruction.ruff_config(),
                    preview=instruction.preview,
                )
            )
    for evidence in check_requests(requests):
        wrong = evidence.id.endswith("True")
        assert evidence.status == ("fail" if wrong else "pass"), evidence


def _trajectory(instance, replies):
    messages = []
    for turn, reply in zip(instance.turns, replies, strict=False):
        messages += [ChatMessage(role="user", content=turn)]
        if reply is not None:
            messages.append(ChatMessage(role="assistant", content=reply))
    return Trajectory(messages=messages)


def test_scoring_from_evidence():
    suite = get_suite("vericode")
    multi = instances()["chunk.multi"]
    never = lambda key: False  # noqa: E731
    replies = [suite.oracle_reply(multi, turn, never) for turn in range(4)]
    trajectory = _trajectory(multi, replies[:3])  # the last turn went unanswered
    requests = suite.evidence(multi, trajectory)
    ids = [r.id for r in requests]
    assert ids == ["tests@0", "tests@1", "tests@2", "ruff:style_3@2"]  # turn 3 has no code
    evidence = {r.id: Evidence(id=r.id, status="pass") for r in requests}
    evidence["ruff:style_3@2"] = Evidence(id="ruff:style_3@2", status="error", detail="no ruff")
    del evidence["tests@1"]
    verdicts = {v.check_id: v for v in suite.score(multi, trajectory, evidence=evidence)}
    assert verdicts["t0.tests"].result == "pass"
    assert verdicts["t1.tests"].result == "error"  # missing evidence never passes
    assert (
        verdicts["t2.style_3"].result == "error" and verdicts["t2.style_3"].reasoning == "no ruff"
    )
    assert verdicts["t2.doc_6"].result == "pass" and verdicts["t2.doc_6"].evidence == 2
    assert verdicts["t3.doc_6"].result == "fail"  # no reply at turn 3
    assert verdicts["t3.tests"].result == verdicts["t3.style_3"].result == "fail"
    assert verdicts["t3.doc_5"].details["position"] == 3
    assert verdicts["t3.doc_5"].details["instruction_category"] == "doc"


def test_options_are_checked():
    with pytest.raises(SpecError, match="unknown VeriCode options"):
        get_suite("vericode", colour=True)
    with pytest.raises(SpecError, match="single and/or multi"):
        get_suite("vericode", protocols=["both"])
    with pytest.raises(SpecError, match="positive integer"):
        get_suite("vericode", k=0)
    assert by_id("doc_5").custom == "no_comments"
