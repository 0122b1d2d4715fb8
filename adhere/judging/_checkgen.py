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
and merges the lists (:func:`~adhere.judging._checkgen_merge.merge_proposals`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from adhere.core import Trajectory
from adhere.errors import ModelReplyError
from adhere.judging._checkgen_merge import (
    DEFAULT_SIMILARITY,
    GeneratedChecklist,
    RolloutProposals,
    merge_proposals,
)
from adhere.judging._checkgen_prompt import (
    CHECKGEN_PROMPT_VERSION,
    CHECKGEN_SYSTEM,
    CheckgenLimits,
    instruction_blocks,
    render_checkgen_user,
    render_turns,
)
from adhere.judging._checkgen_reply import parse_checkgen_reply
from adhere.judging._judge_call import Ask, JudgeCall, judge_call_id

__all__ = [
    "CHECKGEN_JUDGE",
    "DEFAULT_CHECKGEN_ATTEMPTS",
    "ReferenceRollout",
    "generate_checklist",
    "propose_checks",
]

CHECKGEN_JUDGE = "checkgen"
"""The ``judge`` name of generation calls (for call ids and records)."""
DEFAULT_CHECKGEN_ATTEMPTS = 3


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
        call = JudgeCall(
            id=judge_call_id(
                judge=CHECKGEN_JUDGE,
                model=model,
                prompt_version=CHECKGEN_PROMPT_VERSION,
                system=CHECKGEN_SYSTEM,
                user=user,
                attempt=attempt,
            ),
            system=CHECKGEN_SYSTEM,
            user=user,
            max_tokens=max_tokens,
            judge=CHECKGEN_JUDGE,
            model=model,
            attempt=attempt,
        )
        try:
            reply = await ask(call)
        except Exception as exc:  # noqa: BLE001 - any failure of the edge is one attempt
            text = str(exc).strip()
            problem = f"the call failed: {type(exc).__name__}" + (f": {text[:300]}" if text else "")
            history.append(f"attempt {attempt}: {problem}")
            note = _note(attempt + 1, max_attempts, problem)
            continue
        if not isinstance(reply, str):
            problem = f"ask returned {type(reply).__name__}, not text"
        else:
            parsed = parse_checkgen_reply(reply)
            if parsed.ok:
                return RolloutProposals(rollout.label, tuple(parsed.checks))
            problem = parsed.summary()
        history.append(f"attempt {attempt}: {problem}")
        note = _note(attempt + 1, max_attempts, problem)
    raise ModelReplyError(
        f"rollout {rollout.label}: no usable checklist from {model} after {max_attempts} "
        f"attempts: {' | '.join(history)}"
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
) -> GeneratedChecklist:
    """One merged checklist for ``instance`` from its reference rollouts.

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
    return merge_proposals(instance, proposals, threshold=threshold, min_support=min_support)
