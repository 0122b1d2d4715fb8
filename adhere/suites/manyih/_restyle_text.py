"""Token passes of the restyler over ``ast.unparse`` output: spacing, quotes, layout.

The input is canonical (four-space indentation, one statement a line, no comments),
so each pass can edit whitespace and delimiters between tokens without changing
what the code means: spaces are only added or removed next to operators (never
gluing two tokens into a different one), string delimiters are swapped only when the
text needs no new escapes (otherwise the literal is re-escaped), blank lines are only
inserted or removed between statements, and indentation is only re-expressed.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from adhere.suites.manyih._check_layout import blank_lines_per_function
from adhere.suites.manyih._check_lexical import operator_uses, string_delimiter
from adhere.suites.manyih._code import Code

__all__ = [
    "LICENSE_HEADERS",
    "docstring_quotes",
    "insert_blank_lines",
    "license_header",
    "reindent",
    "requote",
    "respace_operators",
    "strip_blank_lines",
]

LICENSE_HEADERS = {
    "mit": ("# SPDX-License-Identifier: MIT", "# Licensed under the MIT License."),
    "apache": (
        "# SPDX-License-Identifier: Apache-2.0",
        "# Licensed under the Apache License, Version 2.0.",
    ),
}


def _edit_rows(rows: list[str], edits: dict[int, list[tuple[int, int, str]]]) -> list[str]:
    for row, changes in edits.items():
        text = rows[row - 1]
        for start, end, new in sorted(changes, reverse=True):
            text = text[:start] + new + text[end:]
        rows[row - 1] = text
    return rows


def respace_operators(source: str, target: Mapping[str, bool | None]) -> str:
    """Spaces around operators: ``target[kind]`` True (spaced), False (tight), None (as is).

    Kinds are those of :func:`operator_uses`: ``arith``, ``compare``, ``assign``.
    """
    code = Code(source)
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for use in operator_uses(code):
        want = target.get(use.kind)
        if want is None:
            continue
        gap = " " if want else ""
        row, col = use.tok.start
        end = use.tok.end[1]
        if use.left is not None:
            edits.setdefault(row, []).append((col - use.left, col, gap))
        if use.right is not None:
            edits.setdefault(row, []).append((end, end + use.right, gap))
    return "\n".join(_edit_rows(code.rows, edits))


def _escaped(value: str, quote: str) -> str:
    out = []
    for char in value:
        if char == "\\":
            out.append("\\\\")
        elif char == quote:
            out.append("\\" + quote)
        elif char == "\n":
            out.append("\\n")
        elif char == "\r":
            out.append("\\r")
        elif char == "\t":
            out.append("\\t")
        elif not char.isprintable():
            out.append(char.encode("unicode_escape").decode("ascii"))
        else:
            out.append(char)
    return "".join(out)


def requote(source: str, quote: str) -> str:
    """Every string literal that is not a docstring delimited by ``quote`` (``'`` or ``"``)."""
    code = Code(source)
    other = '"' if quote == "'" else "'"
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for tok in code.string_tokens:
        if tok.start in code.docstring_starts or tok.start[0] != tok.end[0]:
            continue
        prefix, delim = string_delimiter(tok.string)
        if delim[0] == quote:
            continue
        body = tok.string[len(prefix) + len(delim) : len(tok.string) - len(delim)]
        if quote not in body:
            new = prefix + quote * len(delim) + body + quote * len(delim)
        elif other not in body or "f" in prefix.lower() or "b" in prefix.lower():
            continue  # the other delimiter avoids a backslash (allowed), or re-escaping is unsafe
        else:
            value = ast.literal_eval(tok.string)
            new = quote + _escaped(value, quote) + quote
        edits.setdefault(tok.row, []).append((tok.start[1], tok.end[1], new))
    return "\n".join(_edit_rows(code.rows, edits))


def docstring_quotes(source: str, delimiter: str) -> str:
    """Docstrings delimited by ``delimiter`` (``\"\"\"`` or ``'''``) where that is safe."""
    code = Code(source)
    rows = code.rows
    for tok in sorted(code.string_tokens, key=lambda t: t.start, reverse=True):
        if tok.start not in code.docstring_starts:
            continue
        prefix, delim = string_delimiter(tok.string)
        if delim == delimiter:
            continue
        body = tok.string[len(prefix) + len(delim) : len(tok.string) - len(delim)]
        if delimiter in body or body.endswith((delimiter[0], "\\")):
            continue
        new = prefix + delimiter + body + delimiter
        (r1, c1), (r2, c2) = tok.start, tok.end
        text = "\n".join(rows[r1 - 1 : r2])
        last = len(text) - (len(rows[r2 - 1]) - c2)
        text = text[:c1] + new + text[last:]
        rows[r1 - 1 : r2] = text.split("\n")
    return "\n".join(rows)


def strip_blank_lines(source: str) -> str:
    """Remove every blank line inside function bodies."""
    code = Code(source)
    drop = {row for _name, _row, blanks in blank_lines_per_function(code) for row in blanks}
    return "\n".join(r for i, r in enumerate(code.rows, start=1) if i not in drop)


def insert_blank_lines(source: str, count: dict[str, int], default: int) -> str:
    """Give each function ``count.get(name, default)`` blank lines (none there before).

    The blank lines go before the body's last statement, or after the header when the
    body is a single statement.
    """
    code = Code(source)
    before: dict[int, int] = {}
    for func in code.functions:
        wanted = count.get(func.name, default)
        target = func.body[-1] if len(func.body) >= 2 else func.body[0]
        top = min([target.lineno, *(d.lineno for d in getattr(target, "decorator_list", []))])
        if wanted and top > func.lineno:  # a one-line def has no room for a blank line
            before[top] = before.get(top, 0) + wanted
    out = []
    for number, row in enumerate(code.rows, start=1):
        out += [""] * before.get(number, 0)
        out.append(row)
    return "\n".join(out)


def license_header(source: str, which: str) -> str:
    """``which`` = ``mit`` / ``apache``: the notice as comments at the top."""
    return "\n".join(LICENSE_HEADERS[which]) + "\n\n" + source.lstrip("\n")


def reindent(source: str, unit: str) -> str:
    """Re-express four-space indentation steps with ``unit`` (rows inside strings kept)."""
    code = Code(source)
    rows = code.rows
    for number, row in enumerate(rows, start=1):
        if number in code.inside_string_rows or not row.strip():
            continue
        stripped = row.lstrip(" ")
        spaces = len(row) - len(stripped)
        rows[number - 1] = unit * (spaces // 4) + " " * (spaces % 4) + stripped
    return "\n".join(rows)
