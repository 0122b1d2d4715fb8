"""Token checkers: string quotes and operator spacing.

Both read tokens, so text inside strings and comments never counts.

Quotes. A string literal's delimiter is read after its prefix (``r``, ``b``, ``f`` …).
``quotes_single``/``quotes_double`` apply to every literal that is not a docstring
(docstrings have their own style, which is why ``quotes_single`` and
``quotes_docstring_triple_double`` do not conflict); a literal whose text contains the
requested quote character and not the other one may use the other delimiter, so
nobody has to write a backslash (``"it's"`` is fine under ``quotes_single``).
``quotes_docstring_triple_double`` applies to module, class and function docstrings.

Operators. Checked: binary arithmetic and bitwise operators (``+ - * / // % ** @ & |
^ << >>``), comparisons (``== != < > <= >=``), assignment ``=``, augmented assignment
(``+=`` …) and ``:=``. Not operators here: ``->``, ``:``, ``.``, ``,``, keyword
operators (``and``, ``in``, ``is``, ``not`` need spaces anyway), unary ``-``/``+``/``~``
(``x = -1``, ``f(-2)``), ``*``/``**`` unpacking (``f(*args, **kw)``), ``@`` of a
decorator. ``=`` of a keyword argument or a parameter default (``f(key=len)``,
``def f(a=1)``, ``lambda a=1: a``) is not an assignment and is left free, as are
operators inside annotations (``int | None``). A side of an operator next to a line
break is not judged. "Spaced" means at least one space on that side.
"""

from __future__ import annotations

import keyword
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass

from adhere.suites.manyih._code import Code, Outcome, Tok

__all__ = ["OpUse", "check_op_spacing", "check_quotes", "operator_uses", "string_delimiter"]

ARITHMETIC = frozenset({"+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>"})
COMPARISON = frozenset({"==", "!=", "<", ">", "<=", ">="})
AUGMENTED = frozenset(op + "=" for op in ARITHMETIC)
_UNARY_CAPABLE = frozenset({"+", "-", "*", "**", "~", "@"})
_CLOSERS = frozenset({")", "]", "}"})
_FSTRING_START = getattr(tokenize, "FSTRING_START", -1)
_FSTRING_END = getattr(tokenize, "FSTRING_END", -1)


def string_delimiter(text: str) -> tuple[str, str]:
    """(prefix, delimiter) of a string literal's source text: ``('rb', "'''")``."""
    index = 0
    while index < len(text) and text[index] not in "'\"":
        index += 1
    prefix, rest = text[:index], text[index:]
    if rest[:3] in ("'''", '"""'):
        return prefix, rest[:3]
    return prefix, rest[:1]


def check_quotes(code: Code, style_id: str) -> Outcome:
    """quotes_single / quotes_double / quotes_docstring_triple_double."""
    docstrings = code.docstring_starts
    for tok in code.string_tokens:
        prefix, delim = string_delimiter(tok.string)
        if style_id == "quotes_docstring_triple_double":
            if tok.start in docstrings and delim != '"""':
                return Outcome.bad(f"line {tok.row}: docstring delimited by {delim}")
            continue
        if tok.start in docstrings:
            continue
        want, other = ("'", '"') if style_id == "quotes_single" else ('"', "'")
        if delim[0] == want:
            continue
        body = tok.string[len(prefix) + len(delim) : len(tok.string) - len(delim)]
        if tok.type != tokenize.STRING:  # f-string start on 3.12+: body not in this token
            body = ""
        if want in body and other not in body:
            continue  # the other delimiter avoids a backslash
        return Outcome.bad(f"line {tok.row}: string {tok.string[:30]!r} uses {delim}")
    return Outcome.ok()


@dataclass(frozen=True)
class OpUse:
    """One operator occurrence that spacing styles judge."""

    tok: Tok
    kind: str
    """``arith``, ``compare`` or ``assign`` (``=``, augmented, ``:=``)."""
    left: int | None
    """Spaces before it (``None``: a line break)."""
    right: int | None
    """Spaces after it (``None``: a line break)."""


def _inside(spans: list[tuple[tuple[int, int], tuple[int, int]]], tok: Tok) -> bool:
    return any(start <= tok.start and tok.end <= end for start, end in spans)


def operator_uses(code: Code) -> Iterator[OpUse]:
    """The judged operators of the code, in order (see the module docstring)."""
    toks = [t for t in code.tokens if t.type not in (tokenize.NL, tokenize.COMMENT)]
    annotations = code.annotation_spans
    brackets: list[str] = []
    lambdas: list[int] = []  # bracket depth of each open lambda parameter list
    fstring = 0
    prev: Tok | None = None
    for index, tok in enumerate(toks):
        if tok.type == _FSTRING_START:
            fstring += 1
            continue
        if tok.type == _FSTRING_END:
            fstring -= 1
            prev = tok if not fstring else prev
            continue
        if fstring or tok.type in (tokenize.INDENT, tokenize.DEDENT):
            continue
        if tok.type == tokenize.NEWLINE:
            prev = None
            continue
        after = toks[index + 1] if index + 1 < len(toks) else None
        if tok.type == tokenize.NAME and tok.string == "lambda":
            lambdas.append(len(brackets))
        elif tok.type == tokenize.OP:
            text = tok.string
            if text in ("(", "[", "{"):
                brackets.append(text)
            elif text in _CLOSERS and brackets:
                brackets.pop()
            elif text == ":" and lambdas and lambdas[-1] == len(brackets):
                lambdas.pop()
            kind = _kind(text, prev, brackets, lambdas)
            if kind is not None and not _inside(annotations, tok):
                yield OpUse(tok, kind, _gap(prev, tok), _gap(tok, after))
        prev = tok


def _kind(text: str, prev: Tok | None, brackets: list[str], lambdas: list[int]) -> str | None:
    if text == "=":
        in_call = bool(brackets) and brackets[-1] == "("
        in_lambda = bool(lambdas) and lambdas[-1] == len(brackets)
        return None if in_call or in_lambda else "assign"
    if text in AUGMENTED or text == ":=":
        return "assign"
    if text in COMPARISON:
        return "compare"
    if text in ARITHMETIC:
        if text in _UNARY_CAPABLE and _unary_position(prev):
            return None
        return "arith"
    return None


def _unary_position(prev: Tok | None) -> bool:
    """Whether an operator after ``prev`` is unary (or unpacking, or a decorator)."""
    if prev is None:
        return True
    if prev.type == tokenize.OP:
        return prev.string not in _CLOSERS
    if prev.type == tokenize.NAME:
        return keyword.iskeyword(prev.string) and prev.string not in ("True", "False", "None")
    return prev.type not in (tokenize.NUMBER, tokenize.STRING, _FSTRING_END)


def _gap(a: Tok | None, b: Tok | None) -> int | None:
    if a is None or b is None or a.end[0] != b.start[0] or b.type == tokenize.NEWLINE:
        return None
    return b.start[1] - a.end[1]


def check_op_spacing(code: Code, style_id: str) -> Outcome:
    """op_space_around / op_space_none / op_space_minimal / op_space_arithmetic."""
    for use in code.memo("operator_uses", lambda: list(operator_uses(code))):
        want = _wanted(style_id, use.kind)
        if want is None:
            continue
        for side, gap in (("before", use.left), ("after", use.right)):
            if gap is None:
                continue
            if want and gap == 0:
                return Outcome.bad(f"line {use.tok.row}: no space {side} {use.tok.string!r}")
            if not want and gap > 0:
                return Outcome.bad(f"line {use.tok.row}: space {side} {use.tok.string!r}")
    return Outcome.ok()


def _wanted(style_id: str, kind: str) -> bool | None:
    """True: spaces required; False: spaces forbidden; None: free."""
    if style_id == "op_space_around":
        return True
    if style_id == "op_space_none":
        return False
    if style_id == "op_space_minimal":
        return kind == "assign"
    return True if kind != "assign" else None  # op_space_arithmetic
