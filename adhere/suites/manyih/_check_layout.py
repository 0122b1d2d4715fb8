"""Layout checkers: indentation, line length, blank lines in function bodies, license.

Indentation is read from the tokens, not from raw text: the indentation of a block
is the leading whitespace of each logical line that starts in it; continuation lines
inside brackets are alignment, not block indentation (spaces styles: no tab in them;
``indent_tab``: tabs, then optional alignment spaces); lines inside multi-line
strings and comment-only lines are not indentation at all.
"""

from __future__ import annotations

import ast
import re
import tokenize
from bisect import bisect_left

from adhere.suites.manyih._code import Code, Outcome

__all__ = [
    "blank_lines_per_function",
    "check_blank",
    "check_indent",
    "check_license",
    "check_line_length",
    "license_texts",
]

_STARTERS = {tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
_NON_CODE = {tokenize.NL, tokenize.COMMENT, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}


def _logical_starts(code: Code) -> list[tuple[int, int]]:
    """(row, depth) of the first token of every logical line."""
    out = []
    depth = 0
    at_start = True
    for tok in code.tokens:
        if tok.type == tokenize.INDENT:
            depth += 1
            continue
        if tok.type == tokenize.DEDENT:
            depth -= 1
            continue
        if tok.type == tokenize.NEWLINE:
            at_start = True
            continue
        if tok.type in (tokenize.NL, tokenize.COMMENT):
            continue
        if at_start:
            out.append((tok.row, depth))
            at_start = False
    return out


def _leading(row: str) -> str:
    return row[: len(row) - len(row.lstrip(" \t"))]


def check_indent(code: Code, style_id: str) -> Outcome:
    """indent_2 / indent_4 / indent_tab / indent_spaces."""
    unit = {"indent_2": "  ", "indent_4": "    ", "indent_tab": "\t"}.get(style_id)
    starts = _logical_starts(code)
    start_rows = {row for row, _ in starts}
    for row, depth in starts:
        ws = _leading(code.rows[row - 1])
        if unit is not None and ws != unit * depth:
            return Outcome.bad(
                f"line {row}: indentation {ws!r} is not {depth} × {unit!r} (block depth {depth})"
            )
        if unit is None and "\t" in ws:
            return Outcome.bad(f"line {row}: indented with a tab")
    code_rows = {t.row for t in code.tokens if t.type not in _NON_CODE}
    for row in sorted(code_rows - start_rows - code.inside_string_rows):
        ws = _leading(code.rows[row - 1])
        if style_id == "indent_tab":
            if ws.lstrip("\t").strip(" "):
                return Outcome.bad(f"line {row}: continuation line indented with {ws!r}")
        elif "\t" in ws:
            return Outcome.bad(f"line {row}: continuation line contains a tab")
    return Outcome.ok()


def check_line_length(code: Code, style_id: str) -> Outcome:
    """line_79 / line_120 / line_unlimited: characters per physical line."""
    limit = {"line_79": 79, "line_120": 120}.get(style_id)
    if limit is None:
        return Outcome.ok()
    for number, row in enumerate(code.rows, start=1):
        if len(row) > limit:
            return Outcome.bad(f"line {number} has {len(row)} characters (limit {limit})")
    return Outcome.ok()


def _header_end(code: Code, node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Row of the end of a def's header (its NEWLINE), or the body's row for one-liners."""
    first = node.body[0].lineno
    rows = code.newline_rows
    index = bisect_left(rows, node.lineno)
    if index < len(rows) and rows[index] < first:
        return rows[index]
    return first


def blank_lines_per_function(code: Code) -> list[tuple[str, int, list[int]]]:
    """(name, def row, blank rows) for each function, nested functions' rows apart.

    A blank row is empty or whitespace only, lies between the end of the header and
    the body's last row, and is not inside a multi-line string. Rows of a nested
    function (decorators to its last row) belong to that function, not the outer one.
    """
    funcs = code.functions
    spans = {}
    for func in funcs:
        top = min([func.lineno, *(d.lineno for d in func.decorator_list)])
        spans[id(func)] = (top, func.end_lineno or func.lineno)
    out = []
    for func in funcs:
        end = func.end_lineno or func.lineno
        inner = [
            spans[id(other)]
            for other in funcs
            if other is not func
            and func.lineno < other.lineno
            and (other.end_lineno or other.lineno) <= end
        ]
        blanks = [
            row
            for row in range(_header_end(code, func) + 1, end + 1)
            if not code.rows[row - 1].strip()
            and row not in code.inside_string_rows
            and not any(lo <= row <= hi for lo, hi in inner)
        ]
        out.append((func.name, func.lineno, blanks))
    return out


def check_blank(code: Code, style_id: str) -> Outcome:
    """blank_internal_none / blank_internal_one / blank_internal_required."""
    for name, row, blanks in blank_lines_per_function(code):
        count = len(blanks)
        if style_id == "blank_internal_none" and count:
            return Outcome.bad(f"function {name} (line {row}) has a blank line at {blanks[0]}")
        if style_id == "blank_internal_one" and count != 1:
            return Outcome.bad(f"function {name} (line {row}) has {count} blank lines, not 1")
        if style_id == "blank_internal_required" and not count:
            return Outcome.bad(f"function {name} (line {row}) has no blank line")
    return Outcome.ok()


_MIT = re.compile(
    r"\bMIT\s+licen[cs]e\b|licen[cs]ed\s+under\s+(the\s+)?MIT\b|SPDX-License-Identifier:\s*MIT\b"
    r"|permission\s+is\s+hereby\s+granted,\s+free\s+of\s+charge",
    re.IGNORECASE,
)
_APACHE = re.compile(
    r"apache\s+licen[cs]e,?\s+(version\s+)?2(\.0)?\b|apache[\s-]+2\.0\s+licen[cs]e"
    r"|licen[cs]ed\s+under\s+(the\s+)?apache\s+(licen[cs]e\s+)?(version\s+)?2(\.0)?"
    r"|SPDX-License-Identifier:\s*Apache-2\.0\b",
    re.IGNORECASE,
)
_ANY_LICENSE = re.compile(
    r"\blicen[cs]e[ds]?\b|SPDX-License-Identifier|permission\s+is\s+hereby\s+granted",
    re.IGNORECASE,
)


def license_texts(code: Code) -> list[tuple[int, str]]:
    """(row, text) of the places a license notice can live: comments, the module docstring."""
    texts = [(c.row, c.string) for c in code.comments]
    for owner, node in code.docstrings:
        if isinstance(owner, ast.Module):
            texts.append((node.lineno, str(node.value)))
    return texts


def check_license(code: Code, style_id: str) -> Outcome:
    """license_mit / license_apache / license_none, over comments and the module docstring."""
    texts = license_texts(code)
    if style_id == "license_none":
        for row, text in texts:
            found = _ANY_LICENSE.search(text)
            if found:
                return Outcome.bad(f"line {row}: license notice ({found.group(0)!r})")
        return Outcome.ok()
    pattern, name = (_MIT, "MIT") if style_id == "license_mit" else (_APACHE, "Apache 2.0")
    flat = [(row, " ".join(text.split())) for row, text in texts]
    joined = " ".join(text.lstrip("#").strip() for _, text in flat)
    if any(pattern.search(text) for _, text in flat) or pattern.search(joined):
        return Outcome.ok()
    return Outcome.bad(f"no {name} License notice in a comment or the module docstring")
