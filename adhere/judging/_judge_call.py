"""The contract between the pure judging code and whoever talks to judge models.

The judging code never opens a connection. It builds :class:`JudgeCall` values and
awaits an injected ``ask(call) -> str``; an edge module implements ``ask`` with a real
model client (rate limits, retries, call records) and returns the reply's text.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

__all__ = ["Ask", "JudgeCall", "judge_call_id"]


@dataclass(frozen=True)
class JudgeCall:
    """One request to a judge model: a system text, one user text and an output cap.

    Attributes:
        id: Stable id: the same judge, model, prompt version, texts and attempt always
            give the same id (a hash), so an edge can name records or deduplicate by it.
        system: System text (the judge's instructions, fixed per prompt version).
        user: User text (transcript, checklist batch, optional re-ask note).
        max_tokens: Output token cap to send with the request.
        judge: Name of the judge in the panel.
        model: Model the judge runs on (as configured; informational).
        batch: Index of the checklist batch within the trial.
        attempt: 1 for the first ask of a batch, 2 for the first re-ask, …
    """

    id: str
    system: str
    user: str
    max_tokens: int
    judge: str = ""
    model: str = ""
    batch: int = 0
    attempt: int = 1


Ask = Callable[[JudgeCall], Awaitable[str]]
"""Sends a :class:`JudgeCall` to the judge model and returns the reply's text.

It may raise any ``Exception`` (timeout, HTTP error, unusable reply after the client's
own retries): the judge counts that as a failed attempt of the whole batch. It must
not swallow cancellation.
"""


def judge_call_id(
    *, judge: str, model: str, prompt_version: str, system: str, user: str, attempt: int
) -> str:
    """The stable id of a call: ``judge-`` and 24 hex digits of a SHA-256."""
    blob = json.dumps(
        [judge, model, prompt_version, system, user, attempt],
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return "judge-" + hashlib.sha256(blob.encode("utf-8")).hexdigest()[:24]
