"""Breaking long lines inside brackets (the oracle's answer to line-length styles).

A row longer than the limit is split at a bracket pair that lies on it — the one with
the longest content whose opening bracket still fits: the opening bracket ends the
first row, each comma-separated item (commas at the pair's own level) gets a row one
indentation unit deeper, and the closing bracket starts the last row, back at the
original indentation. Any break inside brackets is legal Python, so the meaning
cannot change; no comma is added or removed. Rows that stay too long (a long string,
an expression with no brackets) are left as they are and reported by the checker.
"""

from __future__ import annotations

import tokenize

from adhere.suites.manyih._code import Code, Tok, parse_quietly

__all__ = ["wrap_long_lines"]

_OPEN = {"(": ")", "[": "]", "{": "}"}


def _pairs(tokens: list[Tok]) -> list[tuple[int, int]]:
    """(open index, close index) of bracket pairs wholly within ``tokens``."""
    stack: list[int] = []
    out = []
    for index, tok in enumerate(tokens):
        if tok.type != tokenize.OP:
            continue
        if tok.string in _OPEN:
            stack.append(index)
        elif tok.string in _OPEN.values() and stack:
            out.append((stack.pop(), index))
    return out


def _split(row: str, tokens: list[Tok], limit: int, unit: str) -> list[str] | None:
    pairs = [(o, c) for o, c in _pairs(tokens) if c > o + 1 and tokens[o].end[1] <= limit]
    if not pairs:
        return None
    opener, closer = max(pairs, key=lambda p: (tokens[p[1]].start[1] - tokens[p[0]].end[1], -p[0]))
    indent = row[: len(row) - len(row.lstrip(" \t"))]
    inner = indent + unit
    items: list[str] = []
    depth = 0
    start_col = tokens[opener].end[1]
    for tok in tokens[opener + 1 : closer]:
        if tok.type == tokenize.OP and tok.string in _OPEN:
            depth += 1
        elif tok.type == tokenize.OP and tok.string in _OPEN.values():
            depth -= 1
        elif tok.type == tokenize.OP and tok.string == "," and depth == 0:
            items.append(row[start_col : tok.end[1]].strip())
            start_col = tok.end[1]
    last = row[start_col : tokens[closer].start[1]].strip()
    if last:
        items.append(last)
    head = row[: tokens[opener].end[1]].rstrip()
    tail = row[tokens[closer].start[1] :]
    return [head, *(inner + item for item in items), indent + tail]


def wrap_long_lines(source: str, limit: int, unit: str) -> str:
    """Split rows longer than ``limit`` inside brackets where possible."""
    stuck: set[str] = set()
    for _ in range(500):
        code = Code(source)
        if code.error:
            return source
        candidate = None
        for number, row in enumerate(code.rows, start=1):
            if len(row) > limit and number not in code.inside_string_rows and row not in stuck:
                candidate = number
                break
        if candidate is None:
            return source
        row = code.rows[candidate - 1]
        tokens = [
            t
            for t in code.tokens
            if t.start[0] == candidate
            and t.end[0] == candidate
            and t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT)
        ]
        pieces = _split(row, tokens, limit, unit)
        if pieces is None:
            stuck.add(row)
            continue
        rows = code.rows[: candidate - 1] + pieces + code.rows[candidate:]
        attempt = "\n".join(rows)
        try:
            parse_quietly(attempt)
        except SyntaxError:
            stuck.add(row)
            continue
        source = attempt
    return source
