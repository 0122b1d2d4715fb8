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


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("x = 1  # hi\n", "comment on line 1"),
        ("x = (\n", "the code cannot be tokenized: ('EOF in multi-line statement', (2, 0))"),
        ("x = = 1\n", "the code does not parse as Python: invalid syntax (<unknown>, line 1)"),
        (
            "x = 1\x00\n",
            "the code does not parse as Python: source code string cannot contain null bytes",
        ),
        ('def f():\n    """Doc."""\n    return 1\n', "docstring on line 2"),
        (
            "if x:\n    a = 1\n  b = 2\n",  # tokenize itself raises IndentationError
            "the code cannot be tokenized: unindent does not match any outer indentation level "
            "(<tokenize>, line 3)",
        ),
    ],
)
def test_doc_5_fails_comments_docstrings_and_code_it_cannot_read(code, reason):
    result = paper_no_comments(code)
    assert (result.passed, result.reason) == (False, reason)


def test_doc_5_blank_lines_are_no_comments():
    assert paper_no_comments("x = 1\n\ny = 2\n").passed


def test_doc_4_says_why_it_passes_and_fails_on_null_bytes():
    assert paper_bare_code("x = 1\n").reason == "the whole reply parses as Python"
    assert paper_bare_code("").reason == "the reply is empty, which parses (paper protocol)"
    assert not paper_bare_code("x = 1\x00").passed


@pytest.mark.parametrize(
    "reply",
    [
        "```\n```\ntext\n```python\nx = 1\n```",
        "```\n\n```\nsome words here\n```python\nx = 1\n```",
        "```py\n   \n```\n```\nx = 1\n```",
    ],
)
def test_extraction_resumes_after_an_empty_pair(reply):
    """An empty pair is skipped whole: its closing ticks never open the next pair."""
    assert paper_extract(reply) == "x = 1\n"
