"""One judge over one trial: batches, asks, re-asks what was missing, never drops a check.

:func:`judge_trial` returns exactly one verdict per check, in the checks' order:

1. Checks found in the verdict cache come back without a call.
2. The rest are cut into batches (:func:`~adhere.judging._judge_batches.plan_batches`)
   and each batch is asked; batches run concurrently (the edge's ``ask`` enforces
   rate and concurrency limits), through a :class:`~adhere.judging._prefix.PrefixGate`:
   the first call goes alone and the others follow once it was answered, so a
   server's prefix cache holds the transcript they all start with.
3. A reply is parsed strictly (:func:`~adhere.judging._judge_reply.parse_reply`).
   Usable answers are kept; only the ids that are missing or invalid are asked
   again, with a short note saying what was wrong. A reply that looked cut off is
   re-asked in two halves, so it fits the output cap.
4. A call that raises (timeout, HTTP error) counts as an attempt for every id it
   carried; the same question is asked again.
5. After ``max_attempts`` attempts an id still undecided gets an ``error`` verdict
   whose reasoning lists what went wrong at each attempt. An ``error`` is never a
   pass and is never cached.

Verdicts: ``decided_by = "judge:<name>"``; ``evidence`` is the message index of the
assistant turn the judge cited; ``details`` holds ``judge``, ``model``,
``prompt_version``, ``attempts`` (the attempt that decided it), ``batch``, and when
present ``evidence_turn`` (the cited assistant turn number), ``cached`` or
``problems`` (for errors).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from adhere.core import Check, Trajectory, Verdict
from adhere.judging._cache import VerdictCache, cache_key, trajectory_digest
from adhere.judging._judge_batches import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_MAX_OUTPUT_TOKENS,
    Grouping,
    plan_batches,
)
from adhere.judging._judge_call import Ask, JudgeCall, judge_call_id
from adhere.judging._judge_reply import ItemAnswer, parse_reply
from adhere.judging._prefix import PrefixGate
from adhere.judging._prompt import (
    JUDGE_SYSTEM,
    PROMPT_VERSION,
    PROMPT_VERSIONS,
    PromptItem,
    render_user,
)
from adhere.judging._prompt_transcript import RenderLimits, render_transcript

__all__ = ["DEFAULT_MAX_ATTEMPTS", "judge_trial"]

DEFAULT_MAX_ATTEMPTS = 3
_NOTE_LINES = 12


async def judge_trial(
    ask: Ask,
    checks: Sequence[Check],
    trajectory: Trajectory,
    *,
    judge_name: str,
    model: str,
    batch_size: int = DEFAULT_BATCH_SIZE,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
    grouping: Grouping = "checklist",
    cache: VerdictCache | None = None,
    prompt_version: str = PROMPT_VERSION,
    limits: RenderLimits | None = None,
    gate: PrefixGate | None = None,
    judge_endpoint: str = "",
) -> list[Verdict]:
    """Judge ``checks`` on ``trajectory`` with one judge; one verdict per check, in order.

    Args:
        ask: Sends a :class:`JudgeCall` to the judge model, returns the reply text.
        checks: The checks to judge (usually those without a verifier).
        trajectory: The trial's normalized trajectory.
        judge_name: The judge's name in the panel (``decided_by = "judge:<name>"``).
        model: The judge's model (recorded, and part of the cache key).
        batch_size: Most items in one call.
        max_attempts: Attempts per item before it is recorded as ``error``.
        max_output_tokens: Output cap sent with each call; batches are sized to fit it.
        grouping: ``checklist``, ``category`` or ``item`` (see ``plan_batches``).
        cache: Verdict cache to read and fill; ``None`` disables caching.
        prompt_version: Must be a version this code writes (only ``v1`` today).
        limits: How much of tools, files and sub-conversations to show.
        gate: Orders the calls (they share the transcript as prompt prefix); a panel
            passes one gate to all judges of an endpoint. ``None``: a gate of this
            trial's own, first call alone, then the others at once.
        judge_endpoint: Where the judge's model is served (part of the cache key).

    Raises:
        ValueError: Duplicate check ids, an unknown prompt version, or a limit below 1.
    """
    if prompt_version not in PROMPT_VERSIONS:
        known = ", ".join(sorted(PROMPT_VERSIONS))
        raise ValueError(f"unknown judge prompt version {prompt_version!r} (known: {known})")
    if max_attempts < 1:
        raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
    ids = [check.id for check in checks]
    if len(set(ids)) != len(ids):
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        raise ValueError(f"duplicate check ids: {', '.join(duplicates)}")
    if not checks:
        return []
    decided: dict[str, Verdict] = {}
    keys: dict[str, str] = {}
    if cache is not None:
        digest = trajectory_digest(trajectory)
        for check in checks:
            keys[check.id] = cache_key(check, digest, model, prompt_version, judge_endpoint)
            hit = cache.get(keys[check.id])
            if hit is not None:
                decided[check.id] = _restamp(hit, judge_name)
    todo = [PromptItem.from_check(check) for check in checks if check.id not in decided]
    if todo:
        session = _Session(
            ask=ask,
            judge=judge_name,
            model=model,
            prompt_version=prompt_version,
            max_attempts=max_attempts,
            max_output_tokens=max_output_tokens,
            transcript=render_transcript(trajectory, limits),
            turn_messages=[i for i, m in enumerate(trajectory.messages) if m.role == "assistant"],
            gate=gate if gate is not None else PrefixGate(),
        )
        batches = plan_batches(
            todo, grouping=grouping, batch_size=batch_size, max_output_tokens=max_output_tokens
        )
        results = await asyncio.gather(
            *(session.run_batch(index, batch) for index, batch in enumerate(batches))
        )
        for result in results:
            for check_id, verdict in result.items():
                decided[check_id] = verdict
                if cache is not None and verdict.result != "error":
                    cache.put(keys[check_id], verdict)
    return [decided[check.id] for check in checks]


def _restamp(verdict: Verdict, judge_name: str) -> Verdict:
    details = {**verdict.details, "judge": judge_name, "cached": True}
    return verdict.model_copy(update={"decided_by": f"judge:{judge_name}", "details": details})


@dataclass
class _Outcome:
    """What one call gave: usable answers, and per unanswered id the reason."""

    answers: dict[str, ItemAnswer] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    truncated: bool = False
    replied: bool = True
    ignored: list[str] = field(default_factory=list)

    def reason(self, check_id: str) -> str:
        return self.reasons.get(check_id) or self.reasons.get("") or "not answered"


@dataclass
class _Session:
    ask: Ask
    judge: str
    model: str
    prompt_version: str
    max_attempts: int
    max_output_tokens: int
    transcript: str
    turn_messages: list[int]
    gate: PrefixGate

    async def run_batch(self, batch: int, items: list[PromptItem]) -> dict[str, Verdict]:
        decided: dict[str, Verdict] = {}
        history: dict[str, list[str]] = {item.check_id: [] for item in items}
        # Each group: its pending items and the last reply the judge gave them (for the note).
        groups: list[tuple[list[PromptItem], _Outcome | None]] = [(items, None)]
        attempt = 0
        while groups and attempt < self.max_attempts:
            attempt += 1
            outcomes = await asyncio.gather(
                *(
                    self._call(
                        batch, attempt, group, _note(last, group, attempt, self.max_attempts)
                    )
                    for group, last in groups
                )
            )
            next_groups: list[tuple[list[PromptItem], _Outcome | None]] = []
            for (group, last), outcome in zip(groups, outcomes, strict=True):
                pending = []
                for item in group:
                    answer = outcome.answers.get(item.check_id)
                    if answer is None:
                        history[item.check_id].append(
                            f"attempt {attempt}: {outcome.reason(item.check_id)}"
                        )
                        pending.append(item)
                    else:
                        decided[item.check_id] = self._verdict(item, answer, attempt, batch)
                if not pending:
                    continue
                seen = outcome if outcome.replied else last
                if outcome.truncated and len(pending) > 1:
                    half = (len(pending) + 1) // 2
                    next_groups += [(pending[:half], seen), (pending[half:], seen)]
                else:
                    next_groups.append((pending, seen))
            groups = next_groups
        for group, _ in groups:
            for item in group:
                decided[item.check_id] = self._error(item, history[item.check_id], batch)
        return decided

    async def _call(
        self, batch: int, attempt: int, items: list[PromptItem], note: str | None
    ) -> _Outcome:
        user = render_user(self.transcript, items, note=note)
        call = JudgeCall(
            id=judge_call_id(
                judge=self.judge,
                model=self.model,
                prompt_version=self.prompt_version,
                system=JUDGE_SYSTEM,
                user=user,
                attempt=attempt,
            ),
            system=JUDGE_SYSTEM,
            user=user,
            max_tokens=self.max_output_tokens,
            judge=self.judge,
            model=self.model,
            batch=batch,
            attempt=attempt,
        )
        try:
            async with self.gate.call():
                reply = await self.ask(call)
        except Exception as exc:  # noqa: BLE001 - any failure of the edge is one attempt
            return _Outcome(reasons={"": f"the call failed: {_describe(exc)}"}, replied=False)
        if not isinstance(reply, str):
            return _Outcome(
                reasons={"": f"ask returned {type(reply).__name__}, not text"}, replied=False
            )
        parsed = parse_reply(
            reply,
            {item.check_id: item.conditional for item in items},
            assistant_turns=len(self.turn_messages),
        )
        return _Outcome(
            answers=parsed.answers,
            reasons=parsed.reasons(),
            truncated=parsed.truncated,
            ignored=[p.check_id or "" for p in parsed.problems if p.kind == "unknown_id"],
        )

    def _details(self, attempts: int, batch: int) -> dict[str, object]:
        return {
            "judge": self.judge,
            "model": self.model,
            "prompt_version": self.prompt_version,
            "attempts": attempts,
            "batch": batch,
        }

    def _verdict(self, item: PromptItem, answer: ItemAnswer, attempt: int, batch: int) -> Verdict:
        details = self._details(attempt, batch)
        evidence = None
        if answer.evidence is not None:
            details["evidence_turn"] = answer.evidence
            evidence = self.turn_messages[answer.evidence]
        return Verdict(
            check_id=item.check_id,
            result=answer.result,
            decided_by=f"judge:{self.judge}",
            reasoning=answer.reasoning,
            evidence=evidence,
            details=details,
        )

    def _error(self, item: PromptItem, history: list[str], batch: int) -> Verdict:
        details = self._details(self.max_attempts, batch)
        details["problems"] = list(history)
        return Verdict(
            check_id=item.check_id,
            result="error",
            decided_by=f"judge:{self.judge}",
            reasoning=(
                f"no usable judge answer after {self.max_attempts} attempts: " + "; ".join(history)
            ),
            details=details,
        )


def _describe(exc: Exception) -> str:
    text = str(exc).strip()
    name = type(exc).__name__
    return f"{name}: {text[:300]}" if text else name


def _note(
    outcome: _Outcome | None, pending: list[PromptItem], attempt: int, max_attempts: int
) -> str | None:
    """The re-ask note: what was wrong with the last reply for these items (or ``None``).

    It names the attempt, so a re-ask never repeats the previous request word for word
    (a deterministic judge would repeat its answer too).
    """
    if outcome is None:
        return None
    lines = [
        f"This is attempt {attempt} of {max_attempts}. Your previous reply could not be used "
        "for the items below, so they are asked again. What was wrong:"
    ]
    whole = outcome.reasons.get("")
    if whole:
        lines.append(f"- the whole reply: {whole}")
    else:
        specific = [(item.check_id, outcome.reason(item.check_id)) for item in pending]
        for check_id, reason in specific[:_NOTE_LINES]:
            lines.append(f"- {json.dumps(check_id, ensure_ascii=False)}: {reason}")
        if len(specific) > _NOTE_LINES:
            lines.append(f"- … and {len(specific) - _NOTE_LINES} more items")
    if outcome.ignored:
        shown = ", ".join(json.dumps(i, ensure_ascii=False) for i in outcome.ignored[:_NOTE_LINES])
        lines.append(f"- ids that are not in the checklist were ignored: {shown}")
    lines.append("Answer exactly the items of this checklist, as one JSON object.")
    return "\n".join(lines)
