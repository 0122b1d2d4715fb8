"""``reply_matches``: a pattern or a phrase is (or is not) in the assistant's replies.

For instructions whose wording can be checked as text: "introduce yourself as Ada",
"never mention the internal code name", "end with a summary line starting
``Summary:``". ``expect: present`` (default) passes when some reply in scope holds
the pattern — with scope ``each`` or ``final_per_turn``, when *every* such reply
does; ``expect: absent`` passes when none does. Code blocks count unless
``exclude_code`` is set.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import field_validator, model_validator

from adhere.judging._verify import Outcome, VerifierParams, VerifyContext, verifier
from adhere.judging.verifiers._replies import Reply, replies, snippet, strip_code

__all__ = ["ReplyMatchesParams"]


class ReplyMatchesParams(VerifierParams):
    """Parameters of ``reply_matches`` (``pattern`` or ``contains`` is required).

    Attributes:
        pattern: A regular expression searched in each reply.
        contains: A phrase looked for in each reply.
        ignore_case: Match without regard to case.
        expect: ``present`` (default) or ``absent``.
        scope: ``all`` replies (default: some reply must match), ``each`` reply,
            the ``final`` reply, or the last reply of each user turn
            (``final_per_turn``; each must match).
        exclude_code: Leave fenced code blocks and inline code out.
    """

    pattern: str | None = None
    contains: str | None = None
    ignore_case: bool = False
    expect: Literal["present", "absent"] = "present"
    scope: Literal["all", "each", "final", "final_per_turn"] = "all"
    exclude_code: bool = False

    @field_validator("pattern")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"invalid regular expression: {exc}") from None
        return value

    @model_validator(mode="after")
    def _something(self) -> ReplyMatchesParams:
        if not self.pattern and not self.contains:
            raise ValueError("give a pattern or a contains phrase")
        return self


@verifier("reply_matches", params=ReplyMatchesParams)
def reply_matches(
    ctx: VerifyContext,
    *,
    pattern: str | None,
    contains: str | None,
    ignore_case: bool,
    expect: Literal["present", "absent"],
    scope: Literal["all", "each", "final", "final_per_turn"],
    exclude_code: bool,
) -> Outcome:
    """The replies in scope hold (or do not hold) the pattern."""
    chosen = replies(ctx.trajectory, scope, turns=ctx.instance.turns)
    if not chosen:
        return Outcome("n/a", "the assistant wrote no reply in scope")
    flags = re.IGNORECASE if ignore_case else 0
    regex = re.compile(pattern if pattern else re.escape(contains or ""), flags)
    shown = f"/{pattern}/" if pattern else repr(contains)
    texts = [Reply(r.index, strip_code(r.text) if exclude_code else r.text) for r in chosen]
    hits = [(reply, found) for reply in texts if (found := regex.search(reply.text))]
    if expect == "absent":
        if hits:
            reply, found = hits[0]
            return Outcome(
                "fail",
                f"message {reply.index} holds {shown}: “{snippet(found.group(0))}”",
                evidence=reply.index,
            )
        return Outcome("pass", f"no reply in scope holds {shown}")
    if scope == "all":
        if not hits:
            return Outcome("fail", f"no assistant reply holds {shown}")
        reply, found = hits[0]
        return Outcome("pass", f"message {reply.index} holds {shown}: “{snippet(found.group(0))}”")
    matched = {reply.index for reply, _ in hits}
    for reply in texts:
        if reply.index not in matched:
            return Outcome(
                "fail",
                f"message {reply.index} does not hold {shown}: “{snippet(reply.text)}”",
                evidence=reply.index,
            )
    return Outcome("pass", f"all {len(texts)} replies in scope hold {shown}")
