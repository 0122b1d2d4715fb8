"""``reply_language``: the assistant replies in the expected language.

The expected language is given (``language``, an ISO 639-1 code; a region such as
``zh-TW`` or ``pt-BR`` is accepted and ignored) or is that of the instance's first
user turn (``same_as_user``). Each reply in scope is run through the detector of
:mod:`adhere.judging.verifiers._langdetect`; replies it cannot place (too short,
mostly code, mixed scripts) are skipped. Any placed reply in another language fails;
if no reply can be placed the verdict is ``n/a``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import field_validator, model_validator

from adhere.judging._verify import Outcome, VerifierParams, VerifyContext, verifier
from adhere.judging.verifiers._langdetect import LANGUAGES, detect_language
from adhere.judging.verifiers._replies import replies, snippet

__all__ = ["ReplyLanguageParams"]

_NAMES = {name.lower(): code for code, name in LANGUAGES.items()}


class ReplyLanguageParams(VerifierParams):
    """Parameters of ``reply_language``.

    Attributes:
        language: The expected language: an ISO 639-1 code (``en``, ``zh``, ``ja`` …)
            or its English name.
        same_as_user: Expect the language of the instance's first user turn instead.
        scope: ``all`` replies (default), only the ``final`` one, or the last reply
            of each user turn (``final_per_turn``).
        include_reasoning: Also hold the visible reasoning to the language.
    """

    language: str | None = None
    same_as_user: bool = False
    scope: Literal["all", "final", "final_per_turn"] = "all"
    include_reasoning: bool = False

    @field_validator("language")
    @classmethod
    def _known(cls, value: str | None) -> str | None:
        if value is None:
            return None
        lowered = value.strip().lower()
        code = _NAMES.get(lowered, lowered.replace("_", "-").split("-")[0])
        if code not in LANGUAGES:
            raise ValueError(
                f"unsupported language {value!r}; supported: {', '.join(sorted(LANGUAGES))}"
            )
        return code

    @model_validator(mode="after")
    def _one_source(self) -> ReplyLanguageParams:
        if (self.language is None) == (not self.same_as_user):
            raise ValueError("give exactly one of 'language' and 'same_as_user: true'")
        return self


@verifier("reply_language", params=ReplyLanguageParams)
def reply_language(
    ctx: VerifyContext,
    *,
    language: str | None,
    same_as_user: bool,
    scope: Literal["all", "final", "final_per_turn"],
    include_reasoning: bool,
) -> Outcome:
    """Every reply the detector can place is in the expected language."""
    expected = language or ""
    if same_as_user:
        found = detect_language(ctx.instance.turns[0])
        if found.language is None:
            return Outcome("n/a", f"cannot tell the language of the user's turn: {found.reason}")
        expected = found.language
    chosen = replies(
        ctx.trajectory, scope, include_reasoning=include_reasoning, turns=ctx.instance.turns
    )
    if not chosen:
        return Outcome("n/a", "the assistant wrote no reply in scope")
    placed = 0
    skipped: list[str] = []
    for reply in chosen:
        found = detect_language(reply.text)
        if found.language is None:
            skipped.append(f"message {reply.index}: {found.reason}")
            continue
        placed += 1
        if found.language != expected:
            return Outcome(
                "fail",
                f"message {reply.index} is in {found.name} ({found.language}), expected "
                f"{LANGUAGES[expected]} ({expected}): “{snippet(reply.text)}”",
                evidence=reply.index,
                details={"detected": found.language, "expected": expected, "why": found.reason},
            )
    if not placed:
        return Outcome(
            "n/a",
            f"no reply has enough natural-language text to tell its language "
            f"({'; '.join(skipped[:3])})",
        )
    note = f"; {len(skipped)} too short or unclear to tell" if skipped else ""
    return Outcome(
        "pass",
        f"{placed} repl{'y' if placed == 1 else 'ies'} in {LANGUAGES[expected]} ({expected}){note}",
        details={"expected": expected},
    )
