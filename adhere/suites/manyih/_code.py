"""Code parsed once for every style checker: rows, tokens, syntax tree and landmarks.

Checkers read code through :class:`Code`, so the 12 checks of a sample share one
``tokenize`` pass and one ``ast.parse``. Nothing here executes the code.
"""

from __future__ import annotations

import ast
import io
import keyword
import tokenize
import warnings
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TypeVar

from adhere.suites.manyih._names import variables

__all__ = ["Code", "Outcome", "Tok", "functions", "parse_quietly"]

T = TypeVar("T")
_FSTRING_START = getattr(tokenize, "FSTRING_START", -1)
_FSTRING_END = getattr(tokenize, "FSTRING_END", -1)
_SKIP = {tokenize.ENCODING, tokenize.ENDMARKER}


@dataclass(frozen=True)
class Outcome:
    """Whether a style holds for a piece of code, and why not (first violation)."""

    passed: bool
    reason: str = ""

    @classmethod
    def ok(cls) -> Outcome:
        """A pass."""
        return cls(True)

    @classmethod
    def bad(cls, reason: str) -> Outcome:
        """A failure with its reason."""
        return cls(False, reason)


@dataclass(frozen=True)
class Tok:
    """A token, with the fields checkers use."""

    type: int
    string: str
    start: tuple[int, int]
    end: tuple[int, int]

    @property
    def row(self) -> int:
        """1-based row of the token's start."""
        return self.start[0]


def functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every ``def`` and ``async def`` in source order (nested ones included)."""
    found = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


class Code:
    """A piece of Python source, analysed lazily and at most once per aspect."""

    def __init__(self, source: str) -> None:
        self.source = source.replace("\r\n", "\n").replace("\r", "\n")
        self._memo: dict[str, object] = {}

    def memo(self, key: str, compute: Callable[[], T]) -> T:
        """``compute()``, run once per code and key (checkers share derived data)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]  # type: ignore[return-value]

    @cached_property
    def rows(self) -> list[str]:
        """Physical lines (without newlines); ``rows[0]`` is line 1."""
        return self.source.split("\n")

    @cached_property
    def _parsed(self) -> tuple[ast.Module | None, str]:
        if not self.source.strip():
            return None, "no code"
        try:
            return parse_quietly(self.source), ""
        except SyntaxError as exc:
            return None, f"the code does not parse: {exc.msg} (line {exc.lineno})"
        except ValueError as exc:  # null bytes
            return None, f"the code does not parse: {exc}"

    @property
    def error(self) -> str:
        """Why the code cannot be checked (empty or unparsable); empty when it can."""
        if self._parsed[1]:
            return self._parsed[1]
        return self._tokens[1]

    @property
    def tree(self) -> ast.Module:
        """The syntax tree (only valid when :attr:`error` is empty)."""
        tree = self._parsed[0]
        if tree is None:
            raise ValueError(self.error)
        return tree

    @cached_property
    def _tokens(self) -> tuple[list[Tok], str]:
        try:
            raw = tokenize.generate_tokens(io.StringIO(self.source).readline)
            return [Tok(t.type, t.string, t.start, t.end) for t in raw if t.type not in _SKIP], ""
        except (tokenize.TokenError, SyntaxError) as exc:
            return [], f"the code does not tokenize: {exc}"

    @property
    def tokens(self) -> list[Tok]:
        """Tokens without ENCODING/ENDMARKER."""
        return self._tokens[0]

    @cached_property
    def string_tokens(self) -> list[Tok]:
        """String literals: STRING tokens (and f-string starts on Python ≥ 3.12)."""
        return [t for t in self.tokens if t.type in (tokenize.STRING, _FSTRING_START)]

    @cached_property
    def string_spans(self) -> list[tuple[tuple[int, int], tuple[int, int]]]:
        """(start, end) of every string literal, f-strings whole."""
        spans = []
        opened: list[tuple[int, int]] = []
        for tok in self.tokens:
            if tok.type == tokenize.STRING:
                spans.append((tok.start, tok.end))
            elif tok.type == _FSTRING_START:
                opened.append(tok.start)
            elif tok.type == _FSTRING_END and opened:
                spans.append((opened.pop(), tok.end))
        return spans

    @cached_property
    def inside_string_rows(self) -> frozenset[int]:
        """Rows that continue a multi-line string (after the row where it starts)."""
        rows: set[int] = set()
        for start, end in self.string_spans:
            rows.update(range(start[0] + 1, end[0] + 1))
        return frozenset(rows)

    @cached_property
    def comments(self) -> list[Tok]:
        """Comment tokens."""
        return [t for t in self.tokens if t.type == tokenize.COMMENT]

    @cached_property
    def nodes(self) -> list[ast.AST]:
        """Every node of the tree (``ast.walk`` order), computed once."""
        return list(ast.walk(self.tree))

    @cached_property
    def functions(self) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
        """Every function definition, in source order."""
        found = [n for n in self.nodes if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        return sorted(found, key=lambda n: (n.lineno, n.col_offset))

    @cached_property
    def methods(self) -> frozenset[int]:
        """``id()`` of the functions defined directly in a class body."""
        return frozenset(
            id(item)
            for node in self.nodes
            if isinstance(node, ast.ClassDef)
            for item in node.body
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
        )

    @cached_property
    def variables(self) -> dict[str, tuple[int, int]]:
        """Variable names and their first binding (see :mod:`._names`)."""
        return variables(self.nodes)

    @cached_property
    def docstrings(self) -> list[tuple[ast.AST, ast.Constant]]:
        """(owner, docstring node) for the module, classes and functions that have one."""
        owners: list[ast.AST] = [self.tree]
        owners += [
            n
            for n in self.nodes
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        ]
        out = []
        for owner in owners:
            body = getattr(owner, "body", [])
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                out.append((owner, body[0].value))
        return out

    @cached_property
    def docstring_starts(self) -> frozenset[tuple[int, int]]:
        """Start positions of the string tokens that make up docstrings."""
        starts: set[tuple[int, int]] = set()
        for _owner, node in self.docstrings:
            first = (node.lineno, node.col_offset)
            last = (node.end_lineno or node.lineno, node.end_col_offset or 0)
            for tok in self.string_tokens:
                if first <= tok.start and tok.end <= last:
                    starts.add(tok.start)
        return frozenset(starts)

    def token_at(self, position: tuple[int, int]) -> Tok | None:
        """The token starting exactly at ``position`` (row, col), if any."""
        index = bisect_left(self._starts, position)
        if index < len(self.tokens) and self.tokens[index].start == position:
            return self.tokens[index]
        return None

    @cached_property
    def _starts(self) -> list[tuple[int, int]]:
        return [t.start for t in self.tokens]

    @cached_property
    def annotation_spans(self) -> list[tuple[tuple[int, int], tuple[int, int]]]:
        """Source spans of type annotations (parameters, returns, annotated assignments)."""
        nodes: list[ast.expr] = []
        for node in self.nodes:
            if isinstance(node, ast.arg) and node.annotation is not None:
                nodes.append(node.annotation)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns:
                nodes.append(node.returns)
            elif isinstance(node, ast.AnnAssign):
                nodes.append(node.annotation)
        return sorted(
            ((n.lineno, n.col_offset), (n.end_lineno or n.lineno, n.end_col_offset or 0))
            for n in nodes
        )

    @cached_property
    def newline_rows(self) -> list[int]:
        """Rows of NEWLINE tokens (ends of logical lines), ascending."""
        return [t.row for t in self.tokens if t.type == tokenize.NEWLINE]


def parse_quietly(source: str) -> ast.Module:
    """``ast.parse`` without warnings (invalid escape sequences are the code's business).

    Raises:
        SyntaxError: the source does not parse.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source)


def is_keyword(name: str) -> bool:
    """Whether ``name`` is a hard keyword other than the singletons True/False/None."""
    return keyword.iskeyword(name) and name not in ("True", "False", "None")
