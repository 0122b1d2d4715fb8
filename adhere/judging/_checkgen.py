"""Checklist generation: ask a model for atomic checks per reference rollout, then merge.

Pure, like the judge: model calls go through an injected ``ask`` (the judge's
:data:`~adhere.judging._judge_call.Ask` contract, with ``judge = "checkgen"``).

:func:`propose_checks` asks for one rollout's checks
(:mod:`~adhere.judging._checkgen_prompt`) and parses the reply strictly
(:mod:`~adhere.judging._checkgen_reply`). A reply with any problem, or a call that
raises, is one failed attempt; the next attempt carries a note saying what was wrong
(and names the attempt, so it never repeats the request word for word). After
``max_attempts`` failures it raises :class:`~adhere.errors.ModelReplyError` naming
the rollout and what went wrong at each attempt.

:func:`generate_checklist` does that for N rollouts of one instance (concurrently)
and merges the lists: deterministically by default
(:func:`~adhere.judging._checkgen_merge.merge_proposals`), or with one more model call
(``merge="llm"``, :func:`llm_merge`, the paper's way). An LLM merge with no usable
reply after ``max_attempts`` falls back to the deterministic merge and says so in
:attr:`~adhere.judging._checkgen_merge.GeneratedChecklist.merge_note`: a failed merge
never loses checks. Last, the Skill.md rule
(:func:`~adhere.judging._checkgen_skill.apply_skill_rule`) adds the required skill
checks of a Skill instance, whatever the proposals and the merge returned.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from adhere.core import Trajectory
from adhere.errors import ModelReplyError
from adhere.judging._checkgen_merge import (
    DEFAULT_SIMILARITY,
    GeneratedChecklist,
    RolloutProposals,
    merge_proposals,
)
from adhere.judging._checkgen_merge_prompt import (
    MERGE_PROMPT_VERSION,
    MERGE_SYSTEM,
    merge_candidates,
    render_merge_user,
)
from adhere.judging._checkgen_merge_reply import merged_checklist, parse_merge_reply
from adhere.judging._checkgen_prompt import (
    CHECKGEN_PROMPT_VERSION,
    CHECKGEN_SYSTEM,
    CheckgenLimits,
    instruction_blocks,
    render_checkgen_user,
    render_turns,
)
from adhere.judging._checkgen_reply import parse_checkgen_reply
from adhere.judging._checkgen_skill import apply_skill_rule
from adhere.judging._judge_call import Ask, JudgeCall, judge_call_id

__all__ = [
    "CHECKGEN_JUDGE",
    "DEFAULT_CHECKGEN_ATTEMPTS",
    "MERGE_MODES",
    "MergeMode",
    "ReferenceRollout",
    "generate_checklist",
    "llm_merge",
    "propose_checks",
]

CHECKGEN_JUDGE = "checkgen"
"""The ``judge`` name of generation calls (for call ids and records)."""
DEFAULT_CHECKGEN_ATTEMPTS = 3
MergeMode = Literal["deterministic", "llm"]
MERGE_MODES: tuple[MergeMode, ...] = ("deterministic", "llm")


@dataclass(frozen=True)
class ReferenceRollout:
    """A finished rollout of the instance whose instructions the checks come from.

    Attributes:
        label: Names it in errors and in the checklist (``run/model/scaffold/inst/rN``).
        trajectory: Its normalized trajectory.
    """

    label: str
    trajectory: Trajectory


async def propose_checks(
    ask: Ask,
    rollout: ReferenceRollout,
    *,
    model: str,
    max_attempts: int = DEFAULT_CHECKGEN_ATTEMPTS,
    max_tokens: int = 4096,
    limits: CheckgenLimits | None = None,
) -> RolloutProposals:
    """The checks a model proposes for one rollout (see the module docstring).

    Raises:
        ModelReplyError: No usable reply after ``max_attempts`` attempts.
        ValueError: ``max_attempts`` below 1.
    """
    if max_attempts < 1:
        raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
    blocks = instruction_blocks(rollout.trajectory, limits)
    turns = render_turns(rollout.trajectory, limits)
    history: list[str] = []
    note: str | None = None
    for attempt in range(1, max_attempts + 1):
        user = render_checkgen_user(blocks, turns, note=note)
        call = _call(
            CHECKGEN_SYSTEM,
            user,
            version=CHECKGEN_PROMPT_VERSION,
            model=model,
            attempt=attempt,
            max_tokens=max_tokens,
        )
        reply, problem = await _ask_once(ask, call)
        if reply is not None:
            parsed = parse_checkgen_reply(reply)
            if parsed.ok:
                return RolloutProposals(rollout.label, tuple(parsed.checks))
            problem = parsed.summary()
        problem = problem or "no reply"
        history.append(f"attempt {attempt}: {problem}")
        note = _note(attempt + 1, max_attempts, problem)
    raise ModelReplyError(
        f"rollout {rollout.label}: no usable checklist from {model} after {max_attempts} "
        f"attempts: {' | '.join(history)}"
    )


def _call(
    system: str, user: str, *, version: str, model: str, attempt: int, max_tokens: int
) -> JudgeCall:
    return JudgeCall(
        id=judge_call_id(
            judge=CHECKGEN_JUDGE,
            model=model,
            prompt_version=version,
            system=system,
            user=user,
            attempt=attempt,
        ),
        system=system,
        user=user,
        max_tokens=max_tokens,
        judge=CHECKGEN_JUDGE,
        model=model,
        attempt=attempt,
    )


async def _ask_once(ask: Ask, call: JudgeCall) -> tuple[str | None, str | None]:
    """The reply's text, or why there is none (a failed call is a failed attempt)."""
    try:
        reply = await ask(call)
    except Exception as exc:  # noqa: BLE001 - any failure of the edge is one attempt
        text = str(exc).strip()
        return None, f"the call failed: {type(exc).__name__}" + (f": {text[:300]}" if text else "")
    if not isinstance(reply, str):
        return None, f"ask returned {type(reply).__name__}, not text"
    return reply, None


async def llm_merge(
    ask: Ask,
    instance: str,
    proposals: Sequence[RolloutProposals],
    *,
    model: str,
    min_support: int = 1,
    threshold: float = DEFAULT_SIMILARITY,
    max_attempts: int = DEFAULT_CHECKGEN_ATTEMPTS,
    max_tokens: int = 4096,
) -> GeneratedChecklist:
    """One checklist from N rollouts' proposals, merged by a model (one call, re-asks).

    See :mod:`~adhere.judging._checkgen_merge_prompt` and
    :mod:`~adhere.judging._checkgen_merge_reply`; ``threshold`` is only recorded (and
    used by the Skill.md rule's folding).

    Raises:
        ModelReplyError: No usable reply after ``max_attempts`` attempts, naming each
            attempt's problem.
        ValueError: ``max_attempts`` or ``min_support`` below 1.
    """
    if max_attempts < 1 or min_support < 1:
        raise ValueError("max_attempts and min_support must be at least 1")
    candidates = merge_candidates(proposals)
    labels = [p.rollout for p in proposals]
    history: list[str] = []
    note: str | None = None
    for attempt in range(1, max_attempts + 1):
        user = render_merge_user(instance, candidates, len(labels), note=note)
        call = _call(
            MERGE_SYSTEM,
            user,
            version=MERGE_PROMPT_VERSION,
            model=model,
            attempt=attempt,
            max_tokens=max_tokens,
        )
        reply, problem = await _ask_once(ask, call)
        if reply is not None:
            parsed = parse_merge_reply(reply, candidates)
            if parsed.ok:
                return merged_checklist(
                    instance,
                    candidates,
                    parsed.checks,
                    rollouts=labels,
                    proposed=sum(len(p.checks) for p in proposals),
                    min_support=min_support,
                    threshold=threshold,
                )
            problem = parsed.summary()
        problem = problem or "no reply"
        history.append(f"attempt {attempt}: {problem}")
        note = (
            f"This is attempt {attempt + 1} of {max_attempts}. Your previous reply could not "
            f"be used: {problem}. Send the whole merged checklist again as one JSON object "
            '{"checks": [...]}, each entry with "category", "description", "check_type" and '
            '"merges", every key listed at least once.'
        )
    raise ModelReplyError(
        f"instance {instance}: no usable merge from {model} after {max_attempts} attempts: "
        f"{' | '.join(history)}"
    )


def _note(attempt: int, max_attempts: int, problem: str) -> str:
    return (
        f"This is attempt {attempt} of {max_attempts}. Your previous reply could not be "
        f"used: {problem}. Send the whole checklist again as one JSON object "
        '{"checks": [...]}, each entry with "category", "description" and "check_type".'
    )


async def generate_checklist(
    ask: Ask,
    instance: str,
    rollouts: Sequence[ReferenceRollout],
    *,
    model: str,
    threshold: float = DEFAULT_SIMILARITY,
    min_support: int = 1,
    max_attempts: int = DEFAULT_CHECKGEN_ATTEMPTS,
    max_tokens: int = 4096,
    limits: CheckgenLimits | None = None,
    merge: MergeMode = "deterministic",
    expected_skill: str | None = None,
) -> GeneratedChecklist:
    """One merged checklist for ``instance`` from its reference rollouts.

    ``merge`` picks the merge (see the module docstring); ``expected_skill`` marks a
    Skill instance, whose checklist gets the Skill.md rule's checks.

    Raises:
        ModelReplyError: A rollout got no usable reply (the first such rollout is named).
        ValueError: No rollouts, or bad merge parameters.
    """
    if not rollouts:
        raise ValueError(f"instance {instance!r}: no reference rollouts to generate from")
    results = await asyncio.gather(
        *(
            propose_checks(
                ask,
                rollout,
                model=model,
                max_attempts=max_attempts,
                max_tokens=max_tokens,
                limits=limits,
            )
            for rollout in rollouts
        ),
        return_exceptions=True,
    )
    proposals: list[RolloutProposals] = []
    for result in results:
        if isinstance(result, BaseException):
            raise result
        proposals.append(result)
    if merge not in MERGE_MODES:
        raise ValueError(f"merge must be one of {', '.join(MERGE_MODES)}, got {merge!r}")
    checklist: GeneratedChecklist | None = None
    note: str | None = None
    if merge == "llm":
        try:
            checklist = await llm_merge(
                ask,
                instance,
                proposals,
                model=model,
                min_support=min_support,
                threshold=threshold,
                max_attempts=max_attempts,
                max_tokens=max_tokens,
            )
        except ModelReplyError as exc:
            note = f"the LLM merge failed, the deterministic merge was used instead ({exc})"
    if checklist is None:
        checklist = merge_proposals(
            instance, proposals, threshold=threshold, min_support=min_support
        )
        checklist = replace(checklist, merge_note=note)
    return apply_skill_rule(checklist, expected_skill)
