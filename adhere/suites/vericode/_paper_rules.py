r"""The paper protocol's extraction and custom checks: SWE-IF's published rules. Pure.

``protocol: paper`` scores VeriCode as the paper's public evaluator (SWE-IF) does,
quirks included; the default rules (:mod:`adhere.suites.vericode._checks`) differ from
these only where docs/vericode.md says why. Written for this project from the
published behaviour; each rule below names its quirk.

- **Extraction** (:func:`paper_extract`): scan the reply for pairs of triple
  backticks anywhere (not only at line starts). The opening triple backtick drops an
  immediately following run of word characters *only when a newline ends it*
  (```` ```python\n ````, ```` ```python3\n ````, ```` ```py\n ````); otherwise the rest of
  the tag line stays in the code (```` ```python title="x.py" ```` keeps
  ``python title="x.py"`` as the first line; ```` ```python  ```` keeps ``python``). The
  body ends at the next triple backtick wherever it stands. The first body with more
  than whitespace is the code; ``""`` when every pair is empty; the whole reply when
  there is no pair.
- **doc_4** (:func:`paper_bare_code`): the whole reply parses (an empty reply parses).
- **doc_5** (:func:`paper_no_comments`): no comment token and no docstring; code that
  does not tokenize or parse fails; empty code passes.
- **doc_6** (:func:`paper_python_json`): the reply, with only whitespace around,
  is a triple backtick and ``python`` (case-sensitive; any following text, ``3`` of
  ``python3`` included, belongs to the body), a body of at least one character,
  triple backticks, whitespace, triple backticks and ``json``, a body, triple
  backticks; the json body (shortest match) must parse. ``py`` fails; ``python3``
  passes; an all-whitespace python body passes.
- **No code**: the paper lints whatever extraction gives, so empty code passes every
  Ruff instruction (Ruff accepts empty input) and reaches the unit tests, which fail.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize

from adhere.suites.vericode._checks import CheckResult

__all__ = [
    "PAPER_CUSTOM_CHECKS",
    "paper_bare_code",
    "paper_extract",
    "paper_no_comments",
    "paper_python_json",
]

_TICKS = "```"
_TAG_LINE = re.compile(r"\w*\n")
_PYTHON_JSON = re.compile(
    r"""^\s* ```python \s* (?P<code>[\s\S]+?) \s* ```
        \s* ```json \s* (?P<data>[\s\S]+?) \s* ``` \s*$""",
    re.VERBOSE,
)


def paper_extract(reply: str) -> str:
    """The code SWE-IF's generator extracts from a reply (see the module docstring)."""
    position = 0
    paired = False
    while True:
        opening = reply.find(_TICKS, position)
        if opening < 0:
            break
        start = opening + len(_TICKS)
        tag = _TAG_LINE.match(reply, start)
        body_start = tag.end() if tag else start
        closing = reply.find(_TICKS, body_start)
        if closing < 0:
            break  # no later pair can close either
        paired = True
        body = reply[body_start:closing]
        if body.strip():
            return body
        position = closing + len(_TICKS)
    return "" if paired else reply


def paper_bare_code(reply: str) -> CheckResult:
    """doc_4 as published: the whole reply parses as Python (empty included)."""
    try:
        ast.parse(reply)
    except (SyntaxError, ValueError) as exc:
        return CheckResult(False, f"the whole reply does not parse as Python: {exc}")
    if not reply.strip():
        return CheckResult(True, "the reply is empty, which parses (paper protocol)")
    return CheckResult(True, "the whole reply parses as Python")


def paper_no_comments(code: str) -> CheckResult:
    """doc_5 as published: no comments (tokens first), then no docstrings."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.COMMENT:
                return CheckResult(False, f"comment on line {token.start[0]}")
    except (tokenize.TokenError, SyntaxError) as exc:
        return CheckResult(False, f"the code cannot be tokenized: {exc}")
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError) as exc:
        return CheckResult(False, f"the code does not parse as Python: {exc}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            if ast.get_docstring(node) is not None:
                line = node.body[0].lineno
                return CheckResult(False, f"docstring on line {line}")
    return CheckResult(True, "no comments or docstrings")


def paper_python_json(reply: str) -> CheckResult:
    """doc_6 as published: one python block then one json block that parses."""
    match = _PYTHON_JSON.search(reply)
    if match is None:
        return CheckResult(
            False, "not exactly a ```python block then a ```json block (paper protocol)"
        )
    try:
        json.loads(match.group("data"))
    except json.JSONDecodeError as exc:
        return CheckResult(False, f"the JSON block does not parse: {exc}")
    return CheckResult(True, "one python block, then one json block that parses")


PAPER_CUSTOM_CHECKS = {
    "bare_code": paper_bare_code,
    "no_comments": paper_no_comments,
    "python_json": paper_python_json,
}
"""Custom check name → the paper protocol's function."""
