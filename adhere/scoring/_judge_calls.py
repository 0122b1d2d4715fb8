"""The record of one judge call, as the scorers append it to ``judge_calls.jsonl``."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from adhere.artifacts import JudgeCallRecord, RolloutStore, append_judge_calls
from adhere.judging import JudgeCall
from adhere.models import ChatResponse

__all__ = ["judge_call_log", "judge_call_record"]


def judge_call_log(store: RolloutStore) -> Callable[[JudgeCallRecord], None]:
    """Append one record to the rollout's ``judge_calls.jsonl`` (as each call ends)."""

    def log(record: JudgeCallRecord) -> None:
        append_judge_calls(store, [record])

    return log


def judge_call_record(
    call: JudgeCall,
    judge: str,
    seconds: float,
    response: ChatResponse | None = None,
    error: BaseException | None = None,
) -> JudgeCallRecord:
    """The record of one judge call: who, how long, tokens, and whether it failed.

    ``cached_input_tokens`` is added when the endpoint reported its prefix-cache hits,
    ``reasoning_tokens`` when it reported its thinking tokens.
    """
    record: JudgeCallRecord = {
        "judge": judge,
        "model": call.model,
        "started_at": (datetime.now(UTC) - timedelta(seconds=seconds)).isoformat(
            timespec="milliseconds"
        ),
        "seconds": round(seconds, 6),
        "input_tokens": response.usage.input_tokens if response is not None else 0,
        "output_tokens": response.usage.output_tokens if response is not None else 0,
        "attempts": response.attempts if response is not None else None,
        "ok": error is None,
        "error": type(error).__name__ if error is not None else None,
    }
    if response is not None and response.usage.cached_input_tokens is not None:
        record["cached_input_tokens"] = response.usage.cached_input_tokens
    if response is not None and response.usage.reasoning_tokens is not None:
        record["reasoning_tokens"] = response.usage.reasoning_tokens
    return record
