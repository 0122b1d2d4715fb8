"""Typed records of the store and their exact bytes: verdicts, judge calls, progress.

Records that other tools read line by line or key by key (``judge_calls.jsonl``,
``progress.json``) are typed dictionaries: the JSON object is the record. Readers
validate what they read; writers keep the bytes of earlier versions (sorted keys).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal, NotRequired

from pydantic import TypeAdapter, ValidationError
from typing_extensions import TypedDict

from adhere.core import Verdict

__all__ = [
    "VERDICT_LIST",
    "JudgeCallRecord",
    "Phase",
    "RunProgress",
    "decode_judge_calls",
    "decode_judge_verdicts",
    "decode_progress",
    "encode_judge_calls",
    "encode_judge_verdicts",
    "encode_progress",
    "encode_verdicts",
]

VERDICT_LIST = TypeAdapter(list[Verdict])
"""``verdicts.json``: a list of Verdict."""
_JUDGE_VERDICTS = TypeAdapter(dict[str, list[Verdict]])

Phase = Literal["running", "scoring", "finished", "interrupted"]


class JudgeCallRecord(TypedDict):
    """One judge call, a line of ``judge_calls.jsonl`` (appended by every scoring pass).

    Attributes:
        judge: The judge's name in the JudgePanel.
        model: The judge endpoint's model id.
        started_at: When the call started (UTC, ISO 8601 with milliseconds).
        seconds: How long it took (retries and limiter waits included).
        input_tokens: Prompt tokens (0 when the call failed).
        output_tokens: Completion tokens (0 when the call failed).
        attempts: HTTP attempts the client made (``None`` when the call failed).
        ok: Whether an answer came back.
        error: The exception's type name when it failed (never its message).
        cached_input_tokens: The part of ``input_tokens`` the endpoint served from its
            prompt-prefix cache; only present when the endpoint reported it.
        reasoning_tokens: The part of ``output_tokens`` the judge spent thinking; only
            present when the endpoint reported it (Anthropic never does).
    """

    judge: str
    model: str
    started_at: str
    seconds: float
    input_tokens: int
    output_tokens: int
    attempts: int | None
    ok: bool
    error: str | None
    cached_input_tokens: NotRequired[int]
    reasoning_tokens: NotRequired[int]


class RunProgress(TypedDict, total=False):
    """``progress.json``: the latest run's counts, kept current while it goes.

    Attributes:
        planned: Trials planned.
        running: Trials in flight (0 once the run is past its trials).
        done: Trials finished ``ok`` (skipped ones included).
        failed: Trials that ended in ``error``.
        phase: ``running``, ``scoring``, ``finished``, or ``interrupted`` (the run was
            stopped: Ctrl-C, ``SIGTERM`` or ``SIGHUP``).
        updated_at: When it was written (UTC, ISO 8601 with milliseconds).
        interrupted: (phase ``interrupted``) ids of the trials it cut short.
    """

    planned: int
    running: int
    done: int
    failed: int
    phase: Phase
    updated_at: str
    interrupted: list[str]


_JUDGE_CALL = TypeAdapter(JudgeCallRecord)
_PROGRESS = TypeAdapter(RunProgress)


def encode_verdicts(verdicts: Sequence[Verdict]) -> bytes:
    """The bytes of ``verdicts.json``."""
    return VERDICT_LIST.dump_json(list(verdicts), indent=1)


def encode_judge_verdicts(per_judge: Mapping[str, Sequence[Verdict]]) -> bytes:
    """The bytes of ``judge_verdicts.json``: judge name → that judge's verdicts."""
    data = {name: [v.model_dump(mode="json") for v in found] for name, found in per_judge.items()}
    return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True).encode("utf-8")


def decode_judge_verdicts(raw: bytes) -> dict[str, list[Verdict]]:
    """Parse ``judge_verdicts.json``.

    Raises:
        ValueError: It is not an object of judge name → list of Verdict.
    """
    return _JUDGE_VERDICTS.validate_json(raw)


def encode_judge_calls(records: Iterable[JudgeCallRecord]) -> bytes:
    """Lines to append to ``judge_calls.jsonl`` (empty for no record)."""
    return "".join(json.dumps(r, sort_keys=True) + "\n" for r in records).encode("utf-8")


def decode_judge_calls(raw: bytes) -> list[JudgeCallRecord]:
    """Parse ``judge_calls.jsonl``, skipping lines that are no record.

    A torn last line (an append interrupted half-way) is skipped, not an error.
    """
    out = []
    for line in raw.decode("utf-8").splitlines():
        try:
            out.append(_JUDGE_CALL.validate_json(line))
        except ValidationError:
            continue
    return out


def encode_progress(progress: RunProgress) -> bytes:
    """The bytes of ``progress.json``."""
    return json.dumps(progress, sort_keys=True).encode("utf-8")


def decode_progress(raw: bytes) -> RunProgress:
    """Parse ``progress.json``.

    Raises:
        ValueError: It is not a progress record.
    """
    return _PROGRESS.validate_json(raw)
