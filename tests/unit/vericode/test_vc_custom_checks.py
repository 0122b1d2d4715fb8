"""VeriCode's custom checks (doc_4, doc_5, doc_6) and fences: every outcome and its reason."""

import dataclasses

import pytest

from adhere.suites.vericode._checks import (
    CUSTOM_CHECKS,
    CheckResult,
    Fence,
    bare_code,
    fences,
    no_comments,
    python_json,
)

PY = "```python\nx = 1\n```"
JS = '```json\n{"a": 1}\n```'


def test_fences_carry_their_tag_body_and_span() -> None:
    reply = f"Intro\n{PY}\nmid\n  ```{{.JSON}} extra\n[]\n```\n"
    found = fences(reply)
    assert [(f.lang, f.body) for f in found] == [("python", "x = 1\n"), ("json", "[]\n")]
    assert reply[found[0].start : found[0].end] == PY
    assert reply[found[1].start : found[1].end] == "  ```{.JSON} extra\n[]\n```"
    assert fences("```\nx\n```")[0].lang == ""
    with pytest.raises(dataclasses.FrozenInstanceError):
        found[0].lang = "c"  # type: ignore[misc]


def test_bare_code_is_a_whole_reply_that_parses() -> None:
    assert bare_code("x = 1\nprint(x)\n") == CheckResult(True, "the whole reply parses as Python")
    assert bare_code("  \n") == CheckResult(False, "the reply is empty")
    outcome = bare_code(PY)
    assert not outcome.passed and outcome.reason.startswith(
        "the whole reply does not parse as Python: "
    )
    assert not bare_code("x = '\0'\x00").passed  # a null byte: no parse, no crash


def test_no_comments_names_the_first_comment_or_docstring() -> None:
    assert no_comments("x = 1  # set x\ny = 2  # and y\n") == CheckResult(
        False, "comment on line 1"
    )
    assert no_comments('"""Module."""\nx = 1\n') == CheckResult(False, "docstring on line 1")
    in_class = "class A:\n    'Doc.'\n    x = 1\n"
    assert no_comments(in_class) == CheckResult(False, "docstring on line 2")
    in_function = "def f():\n    x = 1\n\nasync def g():\n    '''Doc.'''\n"
    assert no_comments(in_function) == CheckResult(False, "docstring on line 5")
    assert no_comments("x = 'a string'\ny = 1\n") == CheckResult(True, "no comments or docstrings")
    assert no_comments("def f():\n    return 'not a docstring'\n").passed
    assert no_comments("f()\n'later string'\n").passed  # not first in the body
    assert no_comments("x = 1\n").reason == "no comments or docstrings"


def test_no_comments_needs_code_that_parses() -> None:
    assert no_comments(" \n") == CheckResult(False, "the reply holds no code")
    outcome = no_comments("def (:\n")
    assert not outcome.passed and outcome.reason.startswith("the code does not parse as Python: ")


def test_python_json_wants_exactly_a_python_then_a_json_block() -> None:
    assert python_json(f"{PY}\n{JS}\n") == CheckResult(
        True, "one python block, then one json block that parses"
    )
    # tags as the paper's evaluator reads them: python and python3 pass, py does not
    assert python_json(f"```python3\nx = 1\n```\n{JS}").passed
    assert python_json(f"```py\nx = 1\n```\n{JS}").reason == (
        "expected a python block then a json block, got 'py', 'json'"
    )
    assert not python_json(f"```Python\nx = 1\n```\n{JS}").passed
    assert not python_json(f"```{{.python}}\nx = 1\n```\n{JS}").passed
    assert python_json(PY) == CheckResult(False, "expected 2 fenced blocks, found 1")
    assert python_json(f"{PY}\n{JS}\n{JS}").reason == "expected 2 fenced blocks, found 3"
    assert python_json(f"{JS}\n{PY}") == CheckResult(
        False, "expected a python block then a json block, got 'json', 'python'"
    )
    assert python_json(f"{PY}\n{PY}").reason == (
        "expected a python block then a json block, got 'python', 'python'"
    )
    assert python_json(f"```python\n \n```\n{JS}") == CheckResult(
        False, "the python block is empty"
    )
    # the second block must be tagged json, whatever it holds
    bash = python_json(f"{PY}\n```bash\n{{}}\n```")
    assert bash == CheckResult(
        False, "expected a python block then a json block, got 'python', 'bash'"
    )


@pytest.mark.parametrize(
    "reply",
    [f"Here:\n{PY}\n{JS}", f"{PY}\nthen\n{JS}", f"{PY}\n{JS}\nDone."],
)
def test_python_json_refuses_text_around_or_between_the_blocks(reply) -> None:
    assert python_json(reply) == CheckResult(False, "text outside the two blocks")


def test_python_json_wants_json_that_parses() -> None:
    outcome = python_json(f"{PY}\n```json\n{{'a': 1}}\n```")
    assert not outcome.passed and outcome.reason.startswith("the JSON block does not parse: ")


def test_the_checks_by_name() -> None:
    assert CUSTOM_CHECKS == {
        "bare_code": bare_code,
        "no_comments": no_comments,
        "python_json": python_json,
    }
    with pytest.raises(dataclasses.FrozenInstanceError):
        CheckResult(True, "x").passed = False  # type: ignore[misc]
    assert Fence("py", "x", 0, 1).end == 1
