"""Code extraction: empty fenced blocks are skipped, fence tags may carry attributes,
and a turn without code fails its code checks (empty input would pass Ruff)."""

import pytest

from adhere.core import ChatMessage, Evidence, RuffRun, Trajectory
from adhere.scoring._ruff_batch import check_requests
from adhere.suites import get_suite
from adhere.suites.vericode import (
    CUSTOM_CHECKS,
    Chosen,
    Selection,
    builtin_tasks,
    by_id,
    extract_code,
    fences,
    has_code,
    selection_instances,
)


def test_an_empty_first_block_is_skipped():
    reply = "First the imports:\n```python\n```\nThen the code:\n```python\nx = 1\n```\n"
    assert extract_code(reply) == "x = 1\n"
    # whitespace only is empty too
    assert extract_code("```\n  \n\t\n```\n```py\ny = 2\n```") == "y = 2\n"


def test_a_reply_of_empty_blocks_has_no_code():
    for reply in ("```python\n```", "```python\n\n```\n\n```\n   \n```\n", "Sorry.\n```\n```"):
        assert extract_code(reply) == ""
        assert not has_code(extract_code(reply))
    assert has_code(extract_code("x = 1\n"))  # no fence: the whole reply is the code


@pytest.mark.parametrize(
    "opening",
    ["```python  ", '```python title="x.py"', "```py", "``` python", "```{.python}", "  ```python"],
)
def test_fence_tags_with_spaces_or_attributes(opening):
    reply = f"Here it is.\n{opening}\nx = 1\n```\nDone."
    assert extract_code(reply) == "x = 1\n"
    [block] = fences(reply)
    assert block.lang in ("python", "py")


def test_fence_edges():
    # closed right after the last line of code
    assert extract_code("```python\nx = 1```\n") == "x = 1"
    # a longer fence holds a shorter one
    assert extract_code("````markdown\n```python\nx = 1\n```\n````") == "```python\nx = 1\n```\n"
    # backticks inside a line of code do not close the block
    assert extract_code('```python\ns = "```" + t\n```') == 's = "```" + t\n'
    # an unclosed fence is not a block: the whole reply is the code
    assert extract_code("```python\nx = 1\n") == "```python\nx = 1\n"


def test_doc_6_reads_tags_with_attributes_and_wants_code():
    tagged = '```python title="solution.py"\nx = 1\n```\n```json  \n{"a": 1}\n```\n'
    assert CUSTOM_CHECKS["python_json"](tagged).passed
    empty = '```python\n```\n```json\n{"a": 1}\n```\n'
    outcome = CUSTOM_CHECKS["python_json"](empty)
    assert not outcome.passed and "empty" in outcome.reason


def test_doc_5_fails_when_there_is_no_code():
    outcome = CUSTOM_CHECKS["no_comments"](extract_code("```python\n```"))
    assert not outcome.passed and outcome.reason == "the reply holds no code"


def test_empty_code_would_pass_ruff():
    """Why the suite must not send empty code to Ruff: every rule passes it."""
    requests = [
        RuffRun(id=i, code="", select=list(by_id(i).select), config=by_id(i).ruff_config())
        for i in ("style_1", "logic_1", "doc_1")
    ]
    assert [e.status for e in check_requests(requests)] == ["pass", "pass", "pass"]


CHOSEN = [Chosen(id="style_1", params={}), Chosen(id="logic_1", params={}),
          Chosen(id="doc_5", params={})]  # fmt: skip


def _instance(protocol):
    task = next(t for t in builtin_tasks() if t.id == "chunk")
    [instance] = selection_instances(Selection(task=task, instructions=CHOSEN), [protocol], [3])
    return instance


def _trajectory(instance, replies):
    messages = []
    for turn, reply in zip(instance.turns, replies, strict=False):
        messages.append(ChatMessage(role="user", content=turn))
        if reply is not None:
            messages.append(ChatMessage(role="assistant", content=reply))
    return Trajectory(messages=messages)


def test_a_reply_without_code_fails_every_code_check():
    suite = get_suite("vericode")
    instance = _instance("single")
    trajectory = _trajectory(instance, ["Here you go:\n```python\n```\n"])
    assert suite.evidence(instance, trajectory) == []  # nothing to run
    # even evidence that says pass (as Ruff says of empty input) does not make a pass
    passing = {i: Evidence(id=i, status="pass") for i in ("tests@0", "ruff:style_1@0",
                                                           "ruff:logic_1@0")}  # fmt: skip
    verdicts = {v.check_id: v for v in suite.score(instance, trajectory, evidence=passing)}
    assert {c: v.result for c, v in verdicts.items()} == {
        "tests": "fail",
        "style_1": "fail",
        "logic_1": "fail",
        "doc_5": "fail",
    }
    assert "holds no code" in verdicts["style_1"].reasoning
    assert verdicts["style_1"].decided_by == "vericode.ruff"


def test_an_unanswered_turn_fails_its_code_checks():
    suite = get_suite("vericode")
    instance = _instance("multi")
    good = "```python\ndef chunk(items, size):\n    return [items]\n```\n"
    trajectory = _trajectory(instance, [good, good, None, None])
    ids = [r.id for r in suite.evidence(instance, trajectory)]
    assert ids == ["tests@0", "tests@1", "ruff:style_1@1"]
    passing = {i: Evidence(id=i, status="pass") for i in ids + ["tests@2", "ruff:style_1@2"]}
    verdicts = {v.check_id: v for v in suite.score(instance, trajectory, evidence=passing)}
    assert verdicts["t1.style_1"].result == "pass"
    for check_id in ("t2.tests", "t2.style_1", "t2.logic_1", "t3.tests", "t3.doc_5"):
        assert verdicts[check_id].result == "fail", check_id
    assert verdicts["t2.style_1"].reasoning == "no reply to turn 2: no code to check"
