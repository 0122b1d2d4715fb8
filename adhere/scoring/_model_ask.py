"""Answering a suite's :class:`~adhere.core.ModelAsk` with the rollout's judge panel.

Every judge gets the question through its ``ask`` (the panel's model client, with its
rate limits, retries and ``judge_calls.jsonl`` record), concurrently; the evidence holds
each judge's reply, and for a judge whose call failed, why. No judge, or no judge that
replied, gives ``error`` evidence: the suite turns it into an ``error`` verdict, never a
pass.

With a verdict cache (the in-process scoring pass's, or on Ray the entries the driver
read for one trial), a reply is kept under a key of the judge's model, where it is
served, the prompt version and the question's text, so scoring the same replies again
asks nothing (failed calls are never kept).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Sequence

from adhere.core import Evidence, ModelAsk, Verdict
from adhere.judging import JudgeCall, PanelJudge, VerdictCache

__all__ = ["ask_cache_key", "ask_key", "ask_panel"]


def ask_key(judge: PanelJudge, request: ModelAsk) -> str:
    """The cache key of one judge's reply to ``request``."""
    return ask_cache_key(judge.model, judge.served_at, request)


def ask_cache_key(model: str, served_at: str, request: ModelAsk) -> str:
    """The cache key of the reply of ``model``, served at ``served_at``, to ``request``.

    ``served_at`` is :func:`adhere.judging.served_at` of the judge's endpoint; a driver
    that only has the panel's spec computes the keys its workers will look up.
    """
    blob = json.dumps(["model-ask", model, served_at, request.prompt_version,
                       request.system, request.user], ensure_ascii=False)  # fmt: skip
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


async def _one(
    judge: PanelJudge, request: ModelAsk, cache: VerdictCache | None
) -> tuple[str, str | None, str]:
    key = ask_key(judge, request) if cache is not None else ""
    if cache is not None:
        hit = cache.get(key)
        if hit is not None and isinstance(hit.details.get("reply"), str):
            return judge.name, hit.details["reply"], ""
    blob = json.dumps(
        [judge.name, judge.model, request.prompt_version, request.system, request.user],
        ensure_ascii=False,
    )
    call = JudgeCall(
        id="ask-" + hashlib.sha256(blob.encode("utf-8")).hexdigest()[:24],
        system=request.system,
        user=request.user,
        max_tokens=request.max_tokens,
        judge=judge.name,
        model=judge.model,
    )
    try:
        reply = await judge.ask(call)
    except Exception as exc:  # noqa: BLE001 - any failure of the edge is this judge's error
        return judge.name, None, f"{type(exc).__name__}: {str(exc).strip()[:300]}"
    if cache is not None:
        kept = Verdict(check_id=f"ask:{request.id}", result="n/a", decided_by=f"judge:{judge.name}",
                       details={"reply": reply})  # fmt: skip
        cache.put(key, kept)
    return judge.name, reply, ""


async def ask_panel(
    request: ModelAsk, judges: Sequence[PanelJudge], cache: VerdictCache | None = None
) -> Evidence:
    """Every judge's reply to ``request`` (see the module docstring)."""
    if not judges:
        return Evidence(
            id=request.id,
            status="error",
            detail="this needs a judge panel (the rollout's judgePanel) to ask",
        )
    results = await asyncio.gather(*(_one(j, request, cache) for j in judges))
    replies = {name: reply for name, reply, _ in results if reply is not None}
    errors = {name: error for name, reply, error in results if reply is None}
    data = {"replies": replies, "errors": errors}
    if not replies:
        return Evidence(
            id=request.id,
            status="error",
            detail="no judge replied: " + "; ".join(f"{k}: {v}" for k, v in errors.items()),
            data=data,
        )
    return Evidence(
        id=request.id, status="pass", detail=f"{len(replies)} judge(s) replied", data=data
    )
