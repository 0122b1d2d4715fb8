"""Strict parsing of a judge's reply, with a reason for everything that is not used.

Accepted shapes: the reply is one JSON object (surrounding whitespace allowed), or the
reply holds exactly one fenced block (```` ```json ```` or a bare ```` ``` ````) whose
content is that object; prose around a fenced block is ignored. The object must be
``{"verdicts": [...]}``; each entry ``{"check_id", "result", "reasoning", "evidence"}``.

What is not used, and why (each becomes a :class:`ReplyProblem`):

* reply-level — ``empty``; ``no_json`` (prose only, or text before a bare object);
  ``truncated`` (the JSON, or its fence, stops before it ends — typically the
  output cap: nothing left where the parser failed, an unterminated string, a literal
  or number cut short); ``not_json`` (invalid JSON, several fenced blocks, text after
  the object, even one character); ``shape`` (not ``{"verdicts": [...]}``). Every
  asked id is then missing.
* per entry — ``unknown_id`` (an id that was not asked: reported and ignored);
  ``duplicate_id`` (an id answered more than once: none of its answers is trusted,
  so it is missing); ``bad_result`` (not ``pass``, ``fail`` or ``n/a``, compared
  case-insensitively); ``na_not_allowed`` (``n/a`` for an item without a
  condition); ``bad_entry`` (not an object, no string ``check_id``, reasoning not a
  string); ``missing`` (asked but not answered).
* ``bad_evidence`` — evidence that is not ``null`` or the number of an existing
  assistant turn. The answer is kept, without evidence.

Ids with a problem other than ``bad_evidence`` / ``unknown_id`` are not answered;
the judge re-asks them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["ItemAnswer", "ParsedReply", "ProblemKind", "ReplyProblem", "parse_reply"]

JudgedResult = Literal["pass", "fail", "n/a"]
ProblemKind = Literal[
    "empty",
    "no_json",
    "truncated",
    "not_json",
    "shape",
    "unknown_id",
    "duplicate_id",
    "bad_result",
    "na_not_allowed",
    "bad_entry",
    "missing",
    "bad_evidence",
]
REPLY_LEVEL: frozenset[ProblemKind] = frozenset(
    {"empty", "no_json", "truncated", "not_json", "shape"}
)
"""Problems that make the whole reply unusable."""

_RESULTS: dict[str, JudgedResult] = {"pass": "pass", "fail": "fail", "n/a": "n/a"}
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class ItemAnswer:
    """A usable answer for one check: result, reasoning, assistant turn relied on."""

    result: JudgedResult
    reasoning: str = ""
    evidence: int | None = None


@dataclass(frozen=True)
class ReplyProblem:
    """Something in a reply that was not used; ``check_id`` is ``None`` for the whole reply."""

    kind: ProblemKind
    message: str
    check_id: str | None = None


@dataclass(frozen=True)
class ParsedReply:
    """The usable answers of a reply, by check id, and what was wrong with the rest."""

    answers: dict[str, ItemAnswer] = field(default_factory=dict)
    problems: list[ReplyProblem] = field(default_factory=list)

    @property
    def truncated(self) -> bool:
        """The reply looked cut off (a smaller batch may fit the output cap)."""
        return any(p.kind == "truncated" for p in self.problems)

    def reasons(self) -> dict[str, str]:
        """Per unanswered-and-asked id, the reason (reply-level problems under ``""``)."""
        out: dict[str, str] = {}
        for problem in self.problems:
            if problem.kind in ("unknown_id", "bad_evidence"):
                continue
            if problem.check_id is None and problem.kind not in REPLY_LEVEL:
                continue
            out.setdefault(problem.check_id or "", problem.message)
        return out


def parse_reply(
    text: str, asked: Mapping[str, bool], *, assistant_turns: int | None = None
) -> ParsedReply:
    """Parse a judge reply against the ids that were asked.

    Args:
        text: The reply text.
        asked: The ids asked in this call, each mapped to whether ``n/a`` is allowed
            (the item has a condition).
        assistant_turns: Number of assistant turns in the trajectory; evidence must be
            below it. ``None`` skips the range check.
    """
    payload, problem = _extract(text)
    if problem is not None:
        return _unusable(problem)
    try:
        data: Any = json.loads(payload)
    except json.JSONDecodeError as exc:
        kind: ProblemKind = "not_json"
        if exc.msg == "Extra data":
            message = "there is text after the JSON object"
        elif _cut_off(payload, exc):
            kind, message = "truncated", "the JSON stops before it is complete (cut off?)"
        else:
            message = f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        return _unusable(ReplyProblem(kind, message))
    if not isinstance(data, dict) or not isinstance(data.get("verdicts"), list):
        return _unusable(
            ReplyProblem("shape", 'the JSON is not an object of the form {"verdicts": [...]}')
        )
    return _entries(data["verdicts"], asked, assistant_turns)


_NUMBER_TAIL = re.compile(r"-|\.|[eE][+-]?")
"""What is left of a number cut short where the parser stops: ``-``, ``1.``, ``1e``, ``1e-``."""


def _cut_off(payload: str, exc: json.JSONDecodeError) -> bool:
    """Whether the JSON stops mid-way (typically at the output cap).

    Nothing is left to read where the parser failed, a string is never closed, or a
    literal or number is cut short (``tr``, ``nul``, ``-``, ``1.``).
    """
    rest = payload[exc.pos :]
    return (
        not rest
        or exc.msg.startswith("Unterminated string")
        or any(word.startswith(rest) for word in ("true", "false", "null"))
        or _NUMBER_TAIL.fullmatch(rest) is not None
    )


def _extract(text: str) -> tuple[str, ReplyProblem | None]:
    stripped = text.strip()
    if not stripped:
        return "", ReplyProblem("empty", "the reply is empty")
    if stripped.startswith(("{", "[")):
        return stripped, None
    fences = _FENCE.findall(text)
    if len(fences) == 1:
        return fences[0].strip(), None
    if len(fences) > 1:
        return "", ReplyProblem(
            "not_json", f"the reply holds {len(fences)} fenced blocks; send exactly one object"
        )
    if "```" in text:
        return "", ReplyProblem("truncated", "a fenced block is opened but never closed")
    if "{" in stripped:
        return "", ReplyProblem(
            "no_json", "the JSON object is preceded by prose; send the object alone"
        )
    return "", ReplyProblem("no_json", "the reply is prose, not a JSON object")


def _unusable(problem: ReplyProblem) -> ParsedReply:
    return ParsedReply(answers={}, problems=[problem])


def _entries(
    entries: list[Any], asked: Mapping[str, bool], assistant_turns: int | None
) -> ParsedReply:
    answers: dict[str, ItemAnswer] = {}
    problems: list[ReplyProblem] = []
    seen: dict[str, int] = {}
    for position, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("check_id"), str):
            problems.append(
                ReplyProblem("bad_entry", f"entry {position} is not an object with a check_id")
            )
            continue
        check_id: str = entry["check_id"]
        seen[check_id] = seen.get(check_id, 0) + 1
        if check_id not in asked:
            problems.append(
                ReplyProblem("unknown_id", f"{check_id!r} was not asked (ignored)", check_id)
            )
            continue
        if seen[check_id] > 1:
            continue
        answer, problem = _entry(entry, check_id, asked[check_id], assistant_turns)
        if problem is not None:
            problems.append(problem)
        if answer is not None:
            answers[check_id] = answer
    for check_id, count in seen.items():
        if count > 1 and check_id in asked:
            answers.pop(check_id, None)
            problems = [p for p in problems if p.check_id != check_id]
            problems.append(
                ReplyProblem(
                    "duplicate_id", f"answered {count} times; give exactly one answer", check_id
                )
            )
    for check_id in asked:
        if check_id not in answers and not any(p.check_id == check_id for p in problems):
            problems.append(ReplyProblem("missing", "not answered", check_id))
    return ParsedReply(answers=answers, problems=problems)


def _entry(
    entry: dict[str, Any], check_id: str, conditional: bool, assistant_turns: int | None
) -> tuple[ItemAnswer | None, ReplyProblem | None]:
    raw_result = entry.get("result")
    result = _RESULTS.get(raw_result.strip().lower()) if isinstance(raw_result, str) else None
    if result is None:
        return None, ReplyProblem(
            "bad_result", f"result {raw_result!r} is not one of pass, fail, n/a", check_id
        )
    if result == "n/a" and not conditional:
        return None, ReplyProblem(
            "na_not_allowed",
            "n/a is only allowed for items with a condition; this one always applies: "
            "answer pass or fail",
            check_id,
        )
    reasoning = entry.get("reasoning", "")
    if reasoning is None:
        reasoning = ""
    if not isinstance(reasoning, str):
        return None, ReplyProblem("bad_entry", "reasoning is not a string", check_id)
    evidence = entry.get("evidence")
    valid = evidence is None or (
        isinstance(evidence, int)
        and not isinstance(evidence, bool)
        and evidence >= 0
        and (assistant_turns is None or evidence < assistant_turns)
    )
    if not valid:
        answer = ItemAnswer(result, reasoning, None)
        return answer, ReplyProblem(
            "bad_evidence",
            f"evidence {evidence!r} is not null or an assistant turn number (dropped)",
            check_id,
        )
    return ItemAnswer(result, reasoning, evidence), None
