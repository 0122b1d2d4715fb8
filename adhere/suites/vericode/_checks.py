"""Code extraction and the three custom checks (doc_4, doc_5, doc_6). Pure.

Extraction rule: the body of the first complete fenced block that holds more than
whitespace; else, when the reply has no complete fenced block, the whole reply. A
fence is a line of three or more backticks, optionally indented, whose info string
(language tag, then anything: ```` ```python title="x.py" ````) is free; it is closed
by at least as many backticks ending a line (on a line of their own, or after the
last line of code). An unclosed fence is not a block. A reply
whose fenced blocks are all empty has no code (``""``): :func:`has_code` is false, and
the suite fails every code check of it rather than letting empty input pass Ruff.

- ``bare_code`` (doc_4): the whole reply, stripped, is non-empty and parses as Python
  (so prose and fences fail).
- ``no_comments`` (doc_5): the extracted code is not empty, parses, and holds no
  comment token and no docstring (a string expression first in a module, class or
  function body).
- ``python_json`` (doc_6): the reply is exactly two fenced blocks — the first tagged
  ``python`` or ``python3`` and not empty, the second ``json`` (tags as written:
  lower case, first word of the info string; ``py``, ``Python`` and ``{.python}`` fail,
  as in the paper's evaluator) — with nothing but whitespace around them, and the
  JSON block parses.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["CUSTOM_CHECKS", "CheckResult", "Fence", "extract_code", "fences", "has_code"]

_FENCE = re.compile(
    r"^[ \t]*(?P<ticks>`{3,})(?P<pad>[ \t]*)(?P<info>[^`\n]*)\n(?P<body>.*?)(?P=ticks)`*[ \t]*$",
    re.DOTALL | re.MULTILINE,
)


_PYTHON_TAGS = ("python", "python3")


@dataclass(frozen=True)
class Fence:
    """A fenced block: its language tag (lower case, may be empty), body and span.

    The tag is the first word of the fence's info string, so ```` ```python ```` with
    trailing spaces or attributes (``title="x.py"``, ``{.python}``) reads ``python``.
    """

    lang: str
    body: str
    start: int
    end: int
    tag: str = ""
    """The first word of the info string as written, when it follows the backticks
    directly (``""`` otherwise: ```` ``` python ```` has no tag for doc_6)."""


@dataclass(frozen=True)
class CheckResult:
    """The outcome of a custom check, with a one-line reason."""

    passed: bool
    reason: str


def _lang(info: str) -> str:
    words = info.split()
    return words[0].strip("{}").lstrip(".").lower() if words else ""


def fences(reply: str) -> list[Fence]:
    """The complete fenced blocks of a reply, in order."""
    out = []
    for m in _FENCE.finditer(reply):
        info = m.group("info")
        tag = info.split()[0] if info.split() and not m.group("pad") else ""
        out.append(Fence(_lang(info), m.group("body"), m.start(), m.end(), tag))
    return out


def extract_code(reply: str) -> str:
    """The code of a reply (see the module docstring); ``""`` when it has none.

    The first fenced block with more than whitespace in it; ``""`` when every block
    is empty; the whole reply when there is no complete block.
    """
    found = fences(reply)
    if not found:
        return reply
    return next((f.body for f in found if f.body.strip()), "")


def has_code(code: str) -> bool:
    """Whether extracted code is something to check (more than whitespace)."""
    return bool(code.strip())


def _parses(code: str) -> str | None:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError) as exc:
        return f"does not parse as Python: {exc}"
    return None


def bare_code(reply: str) -> CheckResult:
    """doc_4: the whole reply is Python code."""
    if not reply.strip():
        return CheckResult(False, "the reply is empty")
    problem = _parses(reply)
    if problem is not None:
        return CheckResult(False, f"the whole reply {problem}")
    return CheckResult(True, "the whole reply parses as Python")


def no_comments(code: str) -> CheckResult:
    """doc_5: no comments and no docstrings in the extracted code (which must exist)."""
    if not has_code(code):
        return CheckResult(False, "the reply holds no code")
    problem = _parses(code)
    if problem is not None:
        return CheckResult(False, f"the code {problem}")
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError) as exc:
        return CheckResult(False, f"the code cannot be tokenized: {exc}")
    comments = [t for t in tokens if t.type == tokenize.COMMENT]
    if comments:
        return CheckResult(False, f"comment on line {comments[0].start[0]}")
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            first = body[0] if body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                return CheckResult(False, f"docstring on line {first.lineno}")
    return CheckResult(True, "no comments or docstrings")


def python_json(reply: str) -> CheckResult:
    """doc_6: exactly a python block then a json block, nothing else; the JSON parses."""
    found = fences(reply)
    if len(found) != 2:
        return CheckResult(False, f"expected 2 fenced blocks, found {len(found)}")
    code, data = found
    if code.tag not in _PYTHON_TAGS or data.tag != "json":
        return CheckResult(
            False, f"expected a python block then a json block, got {code.tag!r}, {data.tag!r}"
        )
    if not has_code(code.body):
        return CheckResult(False, "the python block is empty")
    outside = reply[: code.start] + reply[code.end : data.start] + reply[data.end :]
    if outside.strip():
        return CheckResult(False, "text outside the two blocks")
    try:
        json.loads(data.body)
    except json.JSONDecodeError as exc:
        return CheckResult(False, f"the JSON block does not parse: {exc}")
    return CheckResult(True, "one python block, then one json block that parses")


CUSTOM_CHECKS: dict[str, Callable[[str], CheckResult]] = {
    "bare_code": bare_code,
    "no_comments": no_comments,
    "python_json": python_json,
}
"""Custom check name → function (applied to the reply or the extracted code)."""
