r"""Parsing ``[ANSWER][i] … [\ANSWER]`` tags out of a model reply and classifying each step.

Rules (documented in docs/pacific.md):

* A tag pair is ``[ANSWER][i]`` … ``[\ANSWER]``; the closing tag may also be written
  ``[/ANSWER]``; tag names are matched case-insensitively; ``i`` is a decimal index.
  Strict parsing (``parse: strict``, the paper's protocol) takes the paper's pattern
  literally: ``[ANSWER][i]`` with no space inside, closed by ``[\ANSWER]``, upper case.
* The text between the tags is stripped of surrounding whitespace; one pair of
  matching surrounding quotes (``"``, ``'`` or a backtick) is removed.
* An integer answer must be a plain decimal integer (optional sign); ``12.0``,
  ``1e3`` or ``twelve`` are type mismatches.
* A string answer is taken as written. An integer-looking reply to a step whose
  expected output is a non-numeric string is a type mismatch.

Categories per step: ``correct``, ``wrong`` (right type, wrong value), ``missing``
(no tag for the step), ``duplicate`` (several tags for the step), ``type_mismatch``.
Tags with an index outside the chain are counted as ``extra`` for the sample.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Literal

_TAG = re.compile(r"\[ANSWER\]\s*\[\s*(\d+)\s*\](.*?)\[[\\/]ANSWER\]", re.IGNORECASE | re.DOTALL)
_STRICT_TAG = re.compile(r"\[ANSWER\]\[(\d+)\]((?:(?!\[ANSWER\]).)*?)\[\\ANSWER\]", re.DOTALL)
"""The paper's pattern; an answer never runs over the next opening tag."""
_INT = re.compile(r"^[+-]?\d+$")
_QUOTES = ('"', "'", "`")

Category = Literal["correct", "wrong", "missing", "duplicate", "type_mismatch"]


@dataclass(frozen=True)
class ParsedReply:
    """All answer tags found in a reply, grouped by index."""

    answers: dict[int, list[str]]

    def extra(self, expected_indices: set[int]) -> list[int]:
        """Indices that do not belong to the chain."""
        return sorted(i for i in self.answers if i not in expected_indices)


@dataclass(frozen=True)
class StepOutcome:
    """How one step was answered."""

    category: Category
    got: str | None


def clean_answer(text: str) -> str:
    """Strip whitespace and one pair of surrounding quotes."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in _QUOTES:
        text = text[1:-1]
    return text


def parse_reply(text: str, *, strict: bool = False) -> ParsedReply:
    """Find every answer tag in ``text`` (``strict``: the paper's pattern only)."""
    answers: dict[int, list[str]] = defaultdict(list)
    for match in (_STRICT_TAG if strict else _TAG).finditer(text):
        answers[int(match.group(1))].append(clean_answer(match.group(2)))
    return ParsedReply(answers=dict(answers))


def classify(parsed: ParsedReply, index: int, expected: int | str) -> StepOutcome:
    """Classify the answer to step ``index`` against its expected value."""
    found = parsed.answers.get(index, [])
    if not found:
        return StepOutcome("missing", None)
    if len(found) > 1:
        return StepOutcome("duplicate", " | ".join(found))
    got = found[0]
    if isinstance(expected, int):
        if not _INT.match(got):
            return StepOutcome("type_mismatch", got)
        return StepOutcome("correct" if int(got) == expected else "wrong", got)
    if _INT.match(got) and not _INT.match(expected):
        return StepOutcome("type_mismatch", got)
    return StepOutcome("correct" if got == expected else "wrong", got)
