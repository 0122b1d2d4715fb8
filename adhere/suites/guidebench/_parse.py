"""Finding the final answer in a model reply.

Where the answer is looked for, in order; the first place that holds one decides
(a later, weaker place is not tried when an earlier one held an unusable value):

1. ``fenced json``: the last fenced code block (```` ```json ```` or plain ```` ``` ````)
   that parses as a JSON object with an answer key.
2. ``json``: the last JSON object in the text with an answer key.
3. ``marker``: the last line reading ``答案：…``, ``最终答案是…``, ``Answer: …``.
4. ``tail``: the last non-empty line, whole (``A``, ``2（强相关）``, ``497.5``), or a
   label, number or letter it ends with (``所以总共需要支付170元。``).

Answer keys: ``answer``, ``final_answer``, ``答案``, ``最终答案`` and the paper's
``CandidateAnswer``, ``OptimalOption`` (any case). The value
found is normalized by :func:`~adhere.suites.guidebench._normalize.normalize`; a reply
with no usable answer is ``invalid`` (scored as a failure, never dropped).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from adhere.suites.guidebench._normalize import normalize
from adhere.suites.guidebench._task import AnswerKind

ANSWER_KEYS = (
    "answer",
    "final_answer",
    "答案",
    "最终答案",
    "candidateanswer",
    "optimaloption",
)

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)
_MARKER = re.compile(
    r"(?:最终答案|答案|final answer|answer)\s*(?:是|为|:|：)\s*(.+?)\s*$", re.IGNORECASE
)
_END = r"\s*[*`]*\s*[。.!！]?\s*$"
_TAILS: dict[AnswerKind, re.Pattern[str]] = {
    "numeric": re.compile(r"(?<![\d.,])(\d[\d,]*(?:\.\d+)?)\s*(?:元|块)?" + _END),
    "binary": re.compile(r"(?<![\d.])([01])" + _END),
    "relevance": re.compile(
        r"((?<!\d)[012]\s*[(（]\s*(?:强相关|弱相关|不相关)\s*[)）]|强相关|弱相关|不相关)" + _END
    ),
    "option": re.compile(r"(?<![A-Za-z])([A-Z])\s*[)）]?" + _END),
}


@dataclass(frozen=True)
class ParsedAnswer:
    """The answer found in a reply, normalized, with where and how it was found."""

    value: str | None
    """Canonical label, or ``None`` when the reply holds no usable answer."""
    raw: Any
    """The value as extracted (a JSON value or text); ``None`` when nothing was found."""
    via: str
    """Where it was found: ``fenced json``, ``json``, ``marker``, ``tail`` or ``none``."""
    steps: tuple[str, ...] = ()
    """Normalization steps that changed the value (see ``_normalize.STEPS``)."""
    error: str = ""


def parse_answer(reply: str, kind: AnswerKind, options: tuple[str, ...] = ()) -> ParsedAnswer:
    """The final answer of ``reply`` for a task of ``kind`` (``options``: its letters)."""
    for via, raw in _candidates(reply, kind):
        result = normalize(kind, raw, options)
        if via == "tail" and result.value is None:
            continue
        steps = result.steps
        if via in ("marker", "tail"):  # prose has no types: "1" in text is just 1
            steps = tuple(s for s in steps if s != "string→int")
        return ParsedAnswer(result.value, raw, via, steps, result.error)
    return ParsedAnswer(None, None, "none", error="no answer found in the reply")


def _candidates(reply: str, kind: AnswerKind) -> list[tuple[str, Any]]:
    """Places that hold an answer, strongest first (all tails; one of each other kind)."""
    for block in reversed(_FENCE.findall(reply)):
        value = _answer_of(_loads(block.strip()))
        if value is not _MISSING:
            return [("fenced json", value)]
    inline = _last_inline_json(reply)
    if inline is not _MISSING:
        return [("json", inline)]
    lines = [line.strip() for line in reply.splitlines() if line.strip()]
    for line in reversed(lines):
        match = _MARKER.search(line)
        if match:
            return [("marker", match.group(1))]
    if not lines:
        return []
    last = lines[-1]
    tails: list[tuple[str, Any]] = [("tail", last)]
    match = _TAILS[kind].search(last)
    if match:
        tails.append(("tail", match.group(1)))
    return tails


_MISSING: Any = object()


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return _MISSING


def _answer_of(data: Any) -> Any:
    if not isinstance(data, dict):
        return _MISSING
    for key, value in data.items():
        if isinstance(key, str) and key.strip().lower() in ANSWER_KEYS:
            return value
    return _MISSING


def _last_inline_json(text: str) -> Any:
    decoder = json.JSONDecoder()
    position = len(text)
    while True:
        position = text.rfind("{", 0, position)
        if position < 0:
            return _MISSING
        try:
            data, _end = decoder.raw_decode(text, position)
        except ValueError:
            continue
        value = _answer_of(data)
        if value is not _MISSING:
            return value
