"""Finding the applicability condition of a checklist item written only in prose.

OctoBench-style checklists state conditions inside the description ("if the assistant
changes a dependency, …", "如果 assistant 引入了依赖，…"). When ``Check.condition`` is
unset, :func:`infer_condition` looks for such a clause so the item can be judged
``n/a`` when its condition never arose.

The heuristic, in order:

1. Find the earliest conditional marker.

   * English: ``if``, ``when``, ``whenever``, ``wherever``, ``in case``,
     ``provided that`` (whole words, any case). ``if`` right after a verb of checking
     (``check if``, ``verify if``, ``see if``, ``determine if``, …) means "whether" and
     is skipped; ``even if`` / ``even when`` state that a rule holds regardless, so
     they are skipped too.
   * Chinese: ``如果``, ``假如``, ``倘若``, ``若`` (not ``若干``, "several"), ``如有``,
     ``如需``, ``如适用``, ``一旦``, ``每当``, and ``当…时`` (``当`` opening a clause
     that closes with ``时`` before any punctuation; words such as ``当前``, ``适当``,
     ``应当`` are not markers). ``即使`` / ``即便`` ("even if") clauses are skipped.
     ``在…时`` ("while doing …") is deliberately not a marker: it mostly scopes an
     action that happens in every session.

   Markers inside quotation marks (a quoted reminder, "…if it is malicious…") are
   not the item's own condition and are skipped. A marker inside brackets counts
   only when the bracket closes the description ("… (if any)."): a bracket in the
   middle qualifies a part of the item ("run lint, unit and (if applicable)
   integration tests"), not the whole item.

2. The condition is the clause from the marker to the next clause boundary (comma,
   semicolon, full stop, colon, closing bracket, ``then``, in either script; in
   Chinese also ``是否`` "whether", and the clause closes after ``时`` "when"), with
   the marker kept so it reads naturally: ``"if the assistant changes a dependency"``.

A false positive only *allows* ``n/a``: the judge still decides whether the condition
arose. A false negative forces pass/fail on an item that may not apply. Both are
rarer than the alternative of no detection at all, and an explicit
``Check.condition`` always wins.
"""

from __future__ import annotations

import re

__all__ = ["effective_condition", "infer_condition"]

_BOUNDARY = re.compile(
    r"[,;!?()\[\]\n，；。：！？（）【】]|[.:](?=\s|$)|\bthen\b|是否", re.IGNORECASE
)
_ENGLISH = re.compile(
    r"\b(?P<marker>if|when|whenever|wherever|in case|provided that)\b", re.IGNORECASE
)
_NOT_A_CONDITION_BEFORE = re.compile(
    r"\b(?:check|checks|checking|checked|verify|verifies|verifying|see|sees|determine|"
    r"determines|ask|asks|asked|confirm|confirms|assess|assesses|evaluate|"
    r"evaluates|examine|examines|judge|judges|decide|decides|wonder|even)\s+$",
    re.IGNORECASE,
)
_CHINESE = re.compile(r"如果|假如|倘若|如有|如需|如适用|一旦|每当|若(?!干)|当")
_WHEN_CLAUSE = re.compile(r"当[^，,；;。：:！？!?（）()\n]{1,60}?时")
_NOT_WHEN_AFTER = frozenset("前然中地天下作成做场日面众选局")
"""Characters that, following 当, make a word rather than "when" (当前, 当然, …)."""
_NOT_WHEN_BEFORE = frozenset("适相应恰妥正即便")
_EVEN = ("即使", "即便")
_QUOTES = {"“": "”", "「": "」", "‘": "’", '"': '"'}
_BRACKETS = {"(": ")", "（": "）", "[": "]", "【": "】"}
_TRAILING = " \t\n.。;；!！"


def infer_condition(description: str) -> str | None:
    """The conditional clause of a description written in prose, or ``None``.

    See the module docstring for the heuristic. Examples:

    >>> infer_condition("If the assistant changes a dependency, it updates uv.lock")
    'If the assistant changes a dependency'
    >>> infer_condition("Check if the assistant runs the tests") is None
    True
    >>> infer_condition("如果 assistant 引入了依赖，检查是否更新了 uv.lock")
    '如果 assistant 引入了依赖'
    """
    masked = _mask(description)
    found = [f for f in (_english(description, masked), _chinese(description, masked)) if f]
    return min(found)[1] if found else None


def effective_condition(condition: str | None, description: str) -> str | None:
    """``condition`` when it is given (and not blank), else the inferred one."""
    if condition is not None and condition.strip():
        return condition.strip()
    return infer_condition(description)


def _mask(text: str) -> list[bool]:
    """Per character, whether a marker may start there (not in quotes or a mid-text bracket)."""
    allowed = [True] * len(text)
    stack: list[tuple[str, int]] = []
    for index, char in enumerate(text):
        if stack and char == stack[-1][0]:
            closer, start = stack.pop()
            quoted = closer in _QUOTES.values() and closer not in _BRACKETS.values()
            if quoted or text[index + 1 :].strip(_TRAILING):
                allowed[start : index + 1] = [False] * (index + 1 - start)
        elif char in _QUOTES or char in _BRACKETS:
            stack.append(((_QUOTES | _BRACKETS)[char], index))
    return allowed


def _clause(text: str, start: int, skip: int) -> str:
    """From ``start`` to the next clause boundary after the marker's ``skip`` characters."""
    boundary = _BOUNDARY.search(text, start + skip)
    end = boundary.start() if boundary else len(text)
    when = text.find("时", start + skip, end)
    if when >= 0:
        end = when + 1
    return text[start:end].strip()


def _english(text: str, allowed: list[bool]) -> tuple[int, str] | None:
    for match in _ENGLISH.finditer(text):
        if not allowed[match.start()] or _NOT_A_CONDITION_BEFORE.search(text[: match.start()]):
            continue
        marker = match.group("marker")
        clause = _clause(text, match.start(), len(marker))
        if len(clause) > len(marker):
            return match.start(), clause
    return None


def _chinese(text: str, allowed: list[bool]) -> tuple[int, str] | None:
    for match in _CHINESE.finditer(text):
        start, marker = match.start(), match.group()
        if not allowed[start] or any(e in text[max(0, start - 2) : start + 2] for e in _EVEN):
            continue
        if marker == "若" and start > 0 and text[start - 1] in "倘如":
            continue
        if marker == "当":
            when = _when_clause(text, start)
            if when is not None:
                return start, when
            continue
        clause = _clause(text, start, len(marker))
        if len(clause) > len(marker) or marker in ("如有", "如需", "如适用"):
            return start, clause
    return None


def _when_clause(text: str, start: int) -> str | None:
    """``当…时`` at ``start``, or ``None`` when 当 is part of another word there."""
    if start > 0 and text[start - 1] in _NOT_WHEN_BEFORE:
        return None
    if text[start + 1 : start + 2] in _NOT_WHEN_AFTER:
        return None
    clause = _WHEN_CLAUSE.match(text, start)
    return clause.group() if clause else None
