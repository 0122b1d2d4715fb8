"""Public-compatible style checkers: the verdicts of the public ManyIH checkers, bugs kept.

``checkers: public-compatible`` scores with these instead of adhere's corrected
checkers, so numbers are comparable with the paper's (which came from the public
checkers). This is adhere's own implementation of their observable behaviour, pinned
by a differential test (``scripts/manyih_public_diff.py`` and the golden verdicts in
``tests/unit/manyih/public_golden.json.gz``). Every behaviour that differs from the
corrected checkers is listed, with an example, in docs/manyih.md; the ones the tests
name are marked ``BUG`` below.

The public checkers read the raw text line by line, with regular expressions, with
``tokenize`` or with ``ast``; code that does not parse passes most of them. A checker
that raises (``tokenize`` on inconsistent dedents, ``ast.parse`` on a NUL byte) makes
the public evaluator drop the sample as an error: :func:`public_verdict` gives
``None`` then, and :func:`check_public` an ``error`` outcome that never passes.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from collections.abc import Callable, Iterator
from functools import reduce
from math import gcd

from adhere.suites.manyih._code import Outcome

__all__ = ["PUBLIC_CHECKERS", "check_public", "public_verdict"]

_Rule = Callable[[str], bool]


def _rows(code: str) -> list[str]:
    return code.split("\n")


def _leading(row: str) -> str | None:
    """The leading whitespace of a row that has text after it (``str.lstrip`` sense)."""
    text = row.lstrip()
    if not text or row.startswith(text):
        return None
    return row[: len(row) - len(text)]


# -- indentation: raw rows, docstring and continuation rows included -----------------


def _indent_multiple(unit: int) -> _Rule:
    def rule(code: str) -> bool:
        widths = []
        for lead in filter(None, map(_leading, _rows(code))):
            if "\t" in lead or len(lead) % unit:
                return False
            widths.append(len(lead))
        # indent_2 also wants the gcd of the widths to be 2 (so 4-space code fails)
        return unit != 2 or not widths or reduce(gcd, widths) == 2

    return rule


def _indent_without(char: str) -> _Rule:
    return lambda code: all(char not in lead for lead in filter(None, map(_leading, _rows(code))))


# -- quotes: STRING tokens; any TokenError passes the code ------------------------------


def _strings(code: str) -> list[str] | None:
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except tokenize.TokenError:
        return None  # BUG: an unclosed bracket anywhere passes every quote style
    return [t.string for t in toks if t.type == tokenize.STRING]


def _quotes(bad: str) -> _Rule:
    def rule(code: str) -> bool:
        for literal in _strings(code) or []:
            if literal[:3] in ('"""', "'''"):
                continue  # BUG: any unprefixed triple-quoted literal is free, not only docstrings
            body = literal.lstrip("rRbBfFuU")
            if body[:1] == bad:
                return False
        return True

    return rule


def _docstring_triple_double(code: str) -> bool:
    return not any(s.startswith("'''") for s in _strings(code) or [])


# -- names: Name nodes in store context, plus the plain positional parameters --------


def _tree(code: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():  # an invalid escape warns; as an error it would fail
            warnings.simplefilter("ignore")
            return ast.parse(code)
    except SyntaxError:
        return None  # BUG: code that does not parse passes


def _bound(tree: ast.Module, with_params: bool) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            yield node.id
        elif with_params and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            # BUG: only ``args.args`` — not lambdas, ``*args``, keyword-only or
            # positional-only parameters
            yield from (a.arg for a in node.args.args)


_SNAKE = re.compile(
    r"""^(?: _*[a-z][a-z0-9]*(?:_[a-z0-9]+)*_*   # snake_case, underscores around
          | _+
          | [A-Z][A-Z0-9]*(?:_[A-Z0-9]+)* )$      # BUG?: UPPER_CASE passes as snake
    """,
    re.VERBOSE,
)
_CAMEL = re.compile(r"^(?:_*[a-z][a-zA-Z0-9]*|_+)$")
_CONSONANTS = frozenset("bcdfghjklmnpqrstvwxyz" + "bcdfghjklmnpqrstvwxyz".upper())


def _naming(pattern: re.Pattern[str]) -> _Rule:
    def rule(code: str) -> bool:
        tree = _tree(code)
        if tree is None:
            return True
        for name in _bound(tree, with_params=True):
            dunder = name.startswith("__") and name.endswith("__")
            if not dunder and name != "_" and not pattern.match(name):
                return False
        return True

    return rule


def _consonant(code: str) -> bool:
    tree = _tree(code)
    if tree is None:
        return True
    for name in _bound(tree, with_params=False):  # BUG: parameters are not checked
        if (name.startswith("__") and name.endswith("__")) or name == "_":
            continue
        bare = name.lstrip("_")
        if bare and bare[0] not in _CONSONANTS:
            return False
    return True


def _length(low: int, high: int | None) -> _Rule:
    def rule(code: str) -> bool:
        tree = _tree(code)
        if tree is None:
            return True
        for name in _bound(tree, with_params=True):
            if name.startswith("_"):
                continue
            if len(name) < low or (high is not None and len(name) > high):
                return False
        return True

    return rule


# -- operator spacing: substring search on each raw row up to its first '#' ----------

_ARITH = ("+", "-", "*", "/", "%", "//", "**")
_BINARY = (*_ARITH, "&", "|", "^", "<<", ">>")
_ASSIGN = ("=", *(op + "=" for op in _BINARY))
_COMPARE = ("==", "!=", "<", ">", "<=", ">=")


def _occurrences(row: str, ops: tuple[str, ...]) -> Iterator[tuple[str, bool, bool]]:
    """``(op, space before, space after)`` of every occurrence the public scan judges.

    Every substring match of every listed operator counts (overlaps too), unless the
    three-character window around it — one character either side, stripped — is a
    *different* listed operator. So the ``=`` of ``==``/``<=`` (not listed among the
    spacing operators) is judged as an assignment, and ``+=`` is also judged as ``+``
    and ``=`` wherever the window test lets it through.
    """
    row = row.split("#", 1)[0]  # BUG: a '#' inside a string cuts the row too
    for op in ops:
        start = row.find(op)
        while start != -1:
            window = row[start - 1 : start + len(op) + 1].strip() if start else ""
            if not (start and window in ops and window != op):
                end = start + len(op)
                before = start == 0 or row[start - 1] == " "
                after = end >= len(row) or row[end] == " "
                yield op, before, after
            start = row.find(op, start + 1)


def _spacing(mode: str) -> _Rule:
    ops = (*_ASSIGN, *_BINARY)

    def bad(op: str, before: bool, after: bool) -> bool:
        spaced = mode == "around" or (mode == "minimal" and op in _ASSIGN)
        return not (before and after) if spaced else (before or after)

    return lambda code: not any(bad(*hit) for row in _rows(code) for hit in _occurrences(row, ops))


def _spacing_arithmetic(code: str) -> bool:
    ops = (*_COMPARE, *_ARITH)
    return all(b and a for row in _rows(code) for _, b, a in _occurrences(row, ops))


# -- type hints: plain positional parameters, every def --------------------------------


def _signatures(code: str) -> list[tuple[bool, bool]]:
    tree = _tree(code)
    if tree is None:
        return []
    return [
        # BUG: a def without parameters has no "argument hints", so it fails types_full
        (any(a.annotation is not None for a in n.args.args), n.returns is not None)
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


_TYPES: dict[str, Callable[[bool, bool], bool]] = {
    "types_full": lambda args, ret: args and ret,
    "types_none": lambda args, ret: not args and not ret,
    "types_args_only": lambda args, ret: args and not ret,
    "types_args_required": lambda args, ret: args,
}


def _types(style_id: str) -> _Rule:
    ok = _TYPES[style_id]
    return lambda code: all(ok(a, r) for a, r in _signatures(code))


# -- blank lines, returns --------------------------------------------------------------


def _blank_counts(code: str) -> list[int]:
    tree = _tree(code)
    if tree is None:
        return []
    rows = _rows(code)
    counts = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0].lineno
            last = min(node.body[-1].end_lineno or node.body[-1].lineno, len(rows))
            # rows inside strings and a nested function's rows count for every def
            counts.append(sum(1 for r in rows[first - 1 : last] if not r.strip()))
    return counts


def _blank(ok: Callable[[int], bool]) -> _Rule:
    return lambda code: all(ok(n) for n in _blank_counts(code))


def _defs(code: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    tree = _tree(code)
    if tree is None:
        return []
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _top_returns(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    # BUG: only returns that are statements of the body itself (not inside if/for/…)
    return [s.value for s in fn.body if isinstance(s, ast.Return) and s.value is not None]


def _assigned(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {
        t.id
        for s in fn.body
        if isinstance(s, ast.Assign)
        for t in s.targets
        if isinstance(t, ast.Name)
    }


def _return_variable(code: str) -> bool:
    return all(isinstance(v, ast.Name) for fn in _defs(code) for v in _top_returns(fn))


def _return_direct(code: str) -> bool:
    for fn in _defs(code):
        names = _assigned(fn)
        if any(isinstance(v, ast.Name) and v.id in names for v in _top_returns(fn)):
            return False
    return True


def _return_explicit_none(code: str) -> bool:
    return not any(
        isinstance(n, ast.Return) and n.value is None for fn in _defs(code) for n in ast.walk(fn)
    )


# -- singletons, docstrings: regular expressions over the whole raw text --------------

_S = r"(?:True|False|None)"
_SEARCHES: dict[str, re.Pattern[str]] = {  # the style fails when its pattern is found
    "singleton_is": re.compile(rf"(?:==|!=)\s*{_S}\b|\b{_S}\s*(?:==|!=)"),
    "singleton_eq": re.compile(rf"\bis\s+(?:not\s+)?{_S}\b"),
    "singleton_variable_first": re.compile(rf"\b{_S}\s*(?:is|==|!=)"),
    "singleton_yoda": re.compile(rf"(?:is\s+not|is|==|!=)\s*{_S}\b"),
    "doc_oneline": re.compile(r"(\"\"\"|''')(?:\n[\s\S]*?\1|\s*\S[^\n]*\n[^\n]*\1)"),
}
_DOCSTRING = re.compile(r"\s*[rfbuRFBU]*(?:\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?''')")
_DEF_HEAD = re.compile(r"^\s*def\s+\w+\s*\([^)]*\)\s*(?:->.*?)?\s*:", re.MULTILINE)
_DEF_OR_CLASS_HEAD = re.compile(r"^\s*(?:def|class)\s+\w+[^:]*:", re.MULTILINE)


def _doc_required(code: str) -> bool:
    return all(_DOCSTRING.match(code, m.end()) for m in _DEF_HEAD.finditer(code))


def _doc_none(code: str) -> bool:
    return not any(_DOCSTRING.match(code, m.end()) for m in _DEF_OR_CLASS_HEAD.finditer(code))


def _absent(pattern: re.Pattern[str]) -> _Rule:
    return lambda code: pattern.search(code) is None


# -- license, line length: substrings and raw row lengths ------------------------------


def _longest_at_most(limit: int) -> _Rule:
    return lambda code: all(len(r) <= limit for r in _rows(code))


PUBLIC_CHECKERS: dict[str, _Rule] = {
    "indent_2": _indent_multiple(2),
    "indent_4": _indent_multiple(4),
    "indent_tab": _indent_without(" "),
    "indent_spaces": _indent_without("\t"),
    "quotes_single": _quotes('"'),
    "quotes_double": _quotes("'"),
    "quotes_docstring_triple_double": _docstring_triple_double,
    "naming_snake": _naming(_SNAKE),
    "naming_camel": _naming(_CAMEL),
    "naming_consonant_start": _consonant,
    "op_space_around": _spacing("around"),
    "op_space_none": _spacing("none"),
    "op_space_minimal": _spacing("minimal"),
    "op_space_arithmetic": _spacing_arithmetic,
    **{sid: _types(sid) for sid in _TYPES},
    "var_min3": _length(3, None),
    "var_single": _length(0, 1),
    "var_min5": _length(5, None),
    "var_max2": _length(0, 2),
    "license_mit": lambda c: "MIT License" in c or "MIT license" in c,
    "license_apache": lambda c: "apache" in c.lower(),  # BUG: any mention of "apache"
    "license_none": lambda c: "license" not in c.lower(),
    "doc_required": _doc_required,
    "doc_none": _doc_none,
    "doc_oneline": _absent(_SEARCHES["doc_oneline"]),
    "blank_internal_none": _blank(lambda n: n == 0),
    "blank_internal_one": _blank(lambda n: n == 1),
    "blank_internal_required": _blank(lambda n: n >= 1),
    "return_variable": _return_variable,
    "return_direct": _return_direct,
    "return_explicit_none": _return_explicit_none,
    **{sid: _absent(_SEARCHES[sid]) for sid in _SEARCHES if sid.startswith("singleton")},
    "line_79": _longest_at_most(79),
    "line_120": _longest_at_most(120),
    "line_unlimited": lambda c: True,
}
"""The public verdict of every style id (41), as ``rule(code) -> passed``."""


def public_verdict(code: str, style_id: str) -> bool | None:
    """The public checker's verdict: pass, fail, or ``None`` when it raises.

    Raises:
        KeyError: unknown style id.
    """
    rule = PUBLIC_CHECKERS[style_id]
    try:
        return rule(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def check_public(code: str, style_id: str) -> Outcome:
    """The public verdict as an :class:`Outcome` (a raising checker never passes)."""
    verdict = public_verdict(code, style_id)
    if verdict is None:
        return Outcome.bad("the public checker raises on this code (the sample is an error)")
    if verdict:
        return Outcome.ok()
    return Outcome.bad(f"fails the public {style_id} checker")
