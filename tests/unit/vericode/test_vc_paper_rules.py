"""The paper protocol's rules and every difference from adhere's default, one example each.

Each case is a reply on which the two rule sets give different answers; the paper's
answer is what the public evaluator gives (checked by a differential harness, see
docs/vericode.md), adhere's is the documented default.
"""

import pytest

from adhere.suites.vericode._checks import CUSTOM_CHECKS, extract_code
from adhere.suites.vericode._paper_rules import (
    PAPER_CUSTOM_CHECKS,
    paper_bare_code,
    paper_extract,
    paper_no_comments,
    paper_python_json,
)

CODE = "x = 1\n"
JS = '```json\n{"a": 1}\n```'


@pytest.mark.parametrize(
    ("reply", "paper", "adhere"),
    [
        # the tag line with trailing text stays in the paper's code
        ("```python \nx = 1\n```", "python \nx = 1\n", CODE),
        ('```python title="x.py"\nx = 1\n```', 'python title="x.py"\nx = 1\n', CODE),
        ("```{.python}\nx = 1\n```", "{.python}\nx = 1\n", CODE),
        ("``` python\nx = 1\n```", " python\nx = 1\n", CODE),
        # backticks in prose pair up in the paper
        ("Use ```x``` here.\n```python\nx = 1\n```", "x", CODE),
        # a closing run anywhere closes in the paper
        ('```python\ns = "```" + t\n```', 's = "', 's = "```" + t\n'),
    ],
)
def test_extraction_differences(reply, paper, adhere):
    assert paper_extract(reply) == paper
    assert extract_code(reply) == adhere


@pytest.mark.parametrize(
    ("reply", "code"),
    [
        ("```python\nx = 1\n```", CODE),
        ("```python3\nx = 1\n```", CODE),  # word tags ending the line are dropped
        ("```py\nx = 1\n```", CODE),
        ("```\nx = 1\n```", CODE),
        ("text\n```python\n```\n```\n  \n```\n", ""),  # only empty pairs: no code
        ("x = 1\n", CODE),  # no pair: the whole reply
        ("```python\nx = 1\n", "```python\nx = 1\n"),  # unclosed: the whole reply
        ("", ""),
        ("```\n\n```\n```python\ny = 2\n```", "y = 2\n"),  # the first non-empty pair
    ],
)
def test_extraction_agreements(reply, code):
    assert paper_extract(reply) == code == extract_code(reply)


def test_doc_4_passes_an_empty_reply_in_the_paper_only():
    for reply in ("", "  \n"):
        assert paper_bare_code(reply).passed
        assert not CUSTOM_CHECKS["bare_code"](reply).passed
    assert paper_bare_code(CODE).passed and not paper_bare_code("```python\nx\n```").passed
    assert not paper_bare_code("x = '\0'\x00").passed  # null byte: fails, no crash


def test_doc_5_passes_empty_code_in_the_paper_only():
    assert paper_no_comments("").passed
    assert not CUSTOM_CHECKS["no_comments"]("").passed
    assert paper_no_comments("x = 1  # c\n").reason == "comment on line 1"
    assert paper_no_comments('def f():\n    """Doc."""\n').reason == "docstring on line 2"
    assert not paper_no_comments("def (:\n").passed
    assert not paper_no_comments("s = '''open\n").passed  # does not tokenize


@pytest.mark.parametrize(
    ("reply", "paper", "adhere"),
    [
        # an all-whitespace python body passes the paper's pattern
        (f"```python\n\n```\n{JS}", True, False),
    ],
)
def test_doc_6_differences(reply, paper, adhere):
    assert paper_python_json(reply).passed is paper
    assert CUSTOM_CHECKS["python_json"](reply).passed is adhere


@pytest.mark.parametrize(
    ("reply", "passed"),
    [
        (f"```python\nx = 1\n```\n{JS}", True),
        (f"```python3\nx = 1\n```\n{JS}", True),
        (f'```python title="a.py"\nx = 1\n```\n{JS}', True),
        (f"  ```python\nx = 1\n```\n\n{JS}\n", True),
        (f"```py\nx = 1\n```\n{JS}", False),
        (f"```Python\nx = 1\n```\n{JS}", False),
        (f"``` python\nx = 1\n```\n{JS}", False),
        ("```python\nx = 1\n```\n```JSON\n{}\n```", False),
        (f"Here:\n```python\nx = 1\n```\n{JS}", False),
        (f"```python\nx = 1\n```\n{JS}\nDone.", False),
        ("```python\nx = 1\n```\n```json\n{'a': 1}\n```", False),
    ],
)
def test_doc_6_tag_rules_agree(reply, passed):
    assert paper_python_json(reply).passed is passed
    assert CUSTOM_CHECKS["python_json"](reply).passed is passed


def test_paper_checks_cover_the_custom_checks():
    assert set(PAPER_CUSTOM_CHECKS) == set(CUSTOM_CHECKS)
