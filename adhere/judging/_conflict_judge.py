"""Conflict attribution by a judge panel: each judge says which side a run followed.

:func:`judge_conflict` asks one judge the question of
:mod:`adhere.judging._conflict_prompt` about one trajectory, the way
:func:`~adhere.judging._judge.judge_trial` judges checks: through the injected ``ask``
(the edge's model client, with its rate limits and retries), through the trial's
:class:`~adhere.judging._prefix.PrefixGate`, with the verdict cache, and re-asking
(with a note saying what was wrong) up to ``max_attempts`` times when a reply is not
usable or the call fails.

The outcome is kept as a :class:`~adhere.core.Verdict` so it travels and is cached like
every judge verdict: ``check_id`` is :data:`CONFLICT_CHECK_ID`; ``result`` is ``n/a``
for a usable answer (an attribution is not a check: it never counts in ISR or CSR)
and ``error`` when the judge gave none (never cached); ``details["followed"]`` holds
the answer (``A``, ``B``, ``both``, ``neither``, ``unclear``) and
``details["source"]`` the source of the side followed (``None`` for the other
answers), beside ``judge``, ``model``, ``prompt_version``, ``attempts`` and, for
errors, ``problems``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Mapping, Sequence

from adhere.core import Trajectory, Verdict
from adhere.judging._cache import VerdictCache, trajectory_digest
from adhere.judging._conflict_prompt import (
    CONFLICT_PROMPT_VERSION,
    CONFLICT_SYSTEM,
    ConflictQuestion,
    ConflictReplyError,
    parse_conflict_reply,
    render_conflict_user,
)
from adhere.judging._judge import DEFAULT_MAX_ATTEMPTS
from adhere.judging._judge_call import Ask, JudgeCall, judge_call_id
from adhere.judging._panel import PanelJudge
from adhere.judging._prefix import PrefixGate
from adhere.judging._prompt_transcript import RenderLimits, render_transcript

__all__ = [
    "CONFLICT_CHECK_ID",
    "conflict_cache_key",
    "judge_conflict",
    "run_conflict_panel",
]

CONFLICT_CHECK_ID = "conflict:followed"
"""The ``check_id`` of an attribution verdict (no checklist item can be named so)."""
_MAX_TOKENS = 1024


def conflict_cache_key(
    question: ConflictQuestion,
    digest: str,
    judge_model: str,
    prompt_version: str = CONFLICT_PROMPT_VERSION,
    judge_endpoint: str = "",
) -> str:
    """The cache key of an attribution: the conflict, the trajectory, the judge, the prompt."""
    payload = {
        "conflict": question.as_json(),
        "trajectory": digest,
        "judge_model": judge_model,
        "prompt_version": prompt_version,
        "judge_endpoint": judge_endpoint,
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


async def judge_conflict(
    ask: Ask,
    question: ConflictQuestion,
    trajectory: Trajectory,
    *,
    judge_name: str,
    model: str,
    cache: VerdictCache | None = None,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    limits: RenderLimits | None = None,
    gate: PrefixGate | None = None,
    judge_endpoint: str = "",
) -> Verdict:
    """One judge's attribution of ``trajectory`` (see the module docstring).

    Raises:
        ValueError: ``max_attempts`` below 1.
    """
    if max_attempts < 1:
        raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
    key = ""
    if cache is not None:
        key = conflict_cache_key(
            question, trajectory_digest(trajectory), model, judge_endpoint=judge_endpoint
        )
        hit = cache.get(key)
        if hit is not None:
            restamped = {**hit.details, "judge": judge_name, "cached": True}
            return hit.model_copy(
                update={"decided_by": f"judge:{judge_name}", "details": restamped}
            )
    transcript = render_transcript(trajectory, limits)
    gate = gate if gate is not None else PrefixGate()
    details: dict[str, object] = {
        "judge": judge_name,
        "model": model,
        "prompt_version": CONFLICT_PROMPT_VERSION,
    }
    problems: list[str] = []
    note: str | None = None
    for attempt in range(1, max_attempts + 1):
        user = render_conflict_user(transcript, question, note=note)
        call = JudgeCall(
            id=judge_call_id(
                judge=judge_name,
                model=model,
                prompt_version=CONFLICT_PROMPT_VERSION,
                system=CONFLICT_SYSTEM,
                user=user,
                attempt=attempt,
            ),
            system=CONFLICT_SYSTEM,
            user=user,
            max_tokens=_MAX_TOKENS,
            judge=judge_name,
            model=model,
            attempt=attempt,
        )
        try:
            async with gate.call():
                reply = await ask(call)
            if not isinstance(reply, str):
                raise ConflictReplyError(f"ask returned {type(reply).__name__}, not text")
            answer = parse_conflict_reply(reply)
        except ConflictReplyError as exc:
            problems.append(f"attempt {attempt}: {exc}")
            note = (
                f"This is attempt {attempt + 1} of {max_attempts}. Your previous reply could "
                f"not be used: {exc}. Answer with exactly one JSON object."
            )
            continue
        except Exception as exc:  # noqa: BLE001 - any failure of the edge is one attempt
            text = str(exc).strip()[:300]
            problems.append(f"attempt {attempt}: the call failed: {type(exc).__name__} {text}")
            note = f"This is attempt {attempt + 1} of {max_attempts}; the previous call failed."
            continue
        side = {"A": question.a.source, "B": question.b.source}.get(answer.followed)
        verdict = Verdict(
            check_id=CONFLICT_CHECK_ID,
            result="n/a",
            decided_by=f"judge:{judge_name}",
            reasoning=answer.reasoning,
            details={**details, "attempts": attempt, "followed": answer.followed, "source": side},
        )
        if cache is not None:
            cache.put(key, verdict)
        return verdict
    return Verdict(
        check_id=CONFLICT_CHECK_ID,
        result="error",
        decided_by=f"judge:{judge_name}",
        reasoning=f"no usable judge answer after {max_attempts} attempts: " + "; ".join(problems),
        details={**details, "attempts": max_attempts, "problems": problems},
    )


async def run_conflict_panel(
    judges: Sequence[PanelJudge],
    question: ConflictQuestion,
    trajectory: Trajectory,
    *,
    cache: VerdictCache | None = None,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    limits: RenderLimits | None = None,
) -> Mapping[str, Verdict]:
    """Every judge's attribution, concurrently; judges on one endpoint share a gate."""
    gates: dict[str, PrefixGate] = {}
    for judge in judges:
        gates.setdefault(judge.prefix_group, PrefixGate())
    results = await asyncio.gather(
        *(
            judge_conflict(
                judge.ask,
                question,
                trajectory,
                judge_name=judge.name,
                model=judge.model,
                cache=cache,
                max_attempts=max_attempts,
                limits=limits,
                gate=gates[judge.prefix_group],
                judge_endpoint=judge.served_at,
            )
            for judge in judges
        )
    )
    return dict(zip((j.name for j in judges), results, strict=True))
