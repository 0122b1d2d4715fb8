"""Answering a suite's :class:`~adhere.core.ModelAsk` with the rollout's judge panel.

Every judge gets the question through its ``ask`` (the panel's model client, with its
rate limits, retries and ``judge_calls.jsonl`` record), concurrently; the evidence holds
each judge's reply, and for a judge whose call failed, why. No judge, or no judge that
replied, gives ``error`` evidence: the suite turns it into an ``error`` verdict, never a
pass.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Sequence

from adhere.core import Evidence, ModelAsk
from adhere.judging import JudgeCall, PanelJudge

__all__ = ["ask_panel"]


async def _one(judge: PanelJudge, request: ModelAsk) -> tuple[str, str | None, str]:
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
    return judge.name, reply, ""


async def ask_panel(request: ModelAsk, judges: Sequence[PanelJudge]) -> Evidence:
    """Every judge's reply to ``request`` (see the module docstring)."""
    if not judges:
        return Evidence(
            id=request.id,
            status="error",
            detail="this needs a judge panel (the rollout's judgePanel) to ask",
        )
    results = await asyncio.gather(*(_one(j, request) for j in judges))
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
