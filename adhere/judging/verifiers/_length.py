"""``length_limit``: replies stay within a number of words, lines or characters.

``min_words`` turns it around for instructions such as "answer in at least 80 words":
every reply in scope must reach the count.

Counting:

- **words**: runs of letters and digits (``don't``, ``well-known`` and ``v2`` are one
  word each); Han, Hiragana and Katakana characters count one word each, since those
  scripts do not separate words with spaces (Hangul is spaced and counts by word).
  Punctuation, markdown markup and emoji are not words.
- **lines**: non-blank lines.
- **chars**: characters (code points) of the reply with surrounding whitespace
  stripped.

Limits are inclusive (``max_words: 120`` allows 120 words; "fewer than 120" is
``max_words: 119``). Code blocks count unless ``exclude_code`` is set.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import model_validator

from adhere.judging._verify import Outcome, VerifierParams, VerifyContext, verifier
from adhere.judging.verifiers._replies import Reply, replies, strip_code

__all__ = ["LengthLimitParams", "count_words"]

_CJK = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
_CJK_CHAR = re.compile(f"[{_CJK}]")
_WORD = re.compile(rf"(?:(?![{_CJK}_])\w)+(?:['’-](?:(?![{_CJK}_])\w)+)*")


def count_words(text: str) -> int:
    """Words in ``text``: letter/digit runs, plus one per Han or kana character."""
    return len(_CJK_CHAR.findall(text)) + len(_WORD.findall(text))


def _measure(text: str) -> dict[str, int]:
    return {
        "words": count_words(text),
        "lines": sum(1 for line in text.splitlines() if line.strip()),
        "chars": len(text.strip()),
    }


class LengthLimitParams(VerifierParams):
    """Parameters of ``length_limit`` (at least one limit is required).

    Attributes:
        max_words: Most words allowed.
        max_lines: Most non-blank lines allowed.
        max_chars: Most characters allowed.
        min_words: Fewest words required (e.g. "explain in at least 80 words").
        scope: ``each`` reply on its own (default), the ``final`` reply, the last
            reply of each user turn (``final_per_turn``), or ``all`` replies added
            together.
        exclude_code: Leave fenced code blocks and inline code out of the count.
        include_reasoning: Count the visible reasoning too.
    """

    max_words: int | None = None
    max_lines: int | None = None
    max_chars: int | None = None
    min_words: int | None = None
    scope: Literal["each", "final", "final_per_turn", "all"] = "each"
    exclude_code: bool = False
    include_reasoning: bool = False

    @model_validator(mode="after")
    def _some_limit(self) -> LengthLimitParams:
        limits = (self.max_words, self.max_lines, self.max_chars, self.min_words)
        if all(limit is None for limit in limits):
            raise ValueError("give at least one of max_words, max_lines, max_chars, min_words")
        if any(limit is not None and limit < 0 for limit in limits):
            raise ValueError("limits cannot be negative")
        return self


@verifier("length_limit", params=LengthLimitParams)
def length_limit(
    ctx: VerifyContext,
    *,
    max_words: int | None,
    max_lines: int | None,
    max_chars: int | None,
    min_words: int | None,
    scope: Literal["each", "final", "final_per_turn", "all"],
    exclude_code: bool,
    include_reasoning: bool,
) -> Outcome:
    """Replies within the given word, line and character limits."""
    chosen = replies(
        ctx.trajectory, scope, include_reasoning=include_reasoning, turns=ctx.instance.turns
    )
    if not chosen:
        return Outcome("n/a", "the assistant wrote no reply in scope")
    texts = [Reply(r.index, strip_code(r.text) if exclude_code else r.text) for r in chosen]
    if scope == "all":
        texts = [Reply(texts[-1].index, "\n".join(r.text for r in texts))]
    limits = {"words": max_words, "lines": max_lines, "chars": max_chars}
    longest = {unit: 0 for unit in limits}
    for reply in texts:
        counts = _measure(reply.text)
        for unit, limit in limits.items():
            longest[unit] = max(longest[unit], counts[unit])
            if limit is not None and counts[unit] > limit:
                what = (
                    "the replies together have"
                    if scope == "all"
                    else (f"message {reply.index} has")
                )
                return Outcome(
                    "fail",
                    f"{what} {counts[unit]} {unit}, more than the limit of {limit}",
                    evidence=reply.index,
                    details={"counts": counts},
                )
    shortest = min(_measure(reply.text)["words"] for reply in texts)
    if min_words is not None and shortest < min_words:
        short = next(r for r in texts if _measure(r.text)["words"] == shortest)
        what = "the replies together have" if scope == "all" else f"message {short.index} has"
        return Outcome(
            "fail",
            f"{what} {shortest} words, fewer than the minimum of {min_words}",
            evidence=short.index,
            details={"counts": _measure(short.text)},
        )
    bounds = [f"{longest[u]} {u} ≤ {limit}" for u, limit in limits.items() if limit is not None]
    if min_words is not None:
        bounds.append(f"{shortest} words ≥ {min_words}")
    checked = ", ".join(bounds)
    n = len(chosen)
    return Outcome(
        "pass",
        f"{n} repl{'y' if n == 1 else 'ies'} within the limits ({checked})",
        details={"longest": longest},
    )
