"""The rows of each table from a store written by hand: every case a column has."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from adhere import results
from adhere.artifacts import ProxyCall, RolloutStore
from adhere.core import (
    ChatMessage,
    Check,
    CheckKind,
    Instance,
    Source,
    SourceSpan,
    ToolCall,
    Trajectory,
    Trial,
    TrialResult,
    Verdict,
)
from adhere.errors import StoreError
from adhere.store import FileStore

CHECKS = [
    Check(id="c1", source=Source.SYSTEM_PROMPT, description="One."),
    Check(id="c2", source=Source.USER_QUERY, kind=CheckKind.TESTING, description="Two."),
    Check(id="c3", source=Source.AGENTS_MD, description="Three.", condition="If it edits"),
]
INSTANCE = Instance(
    id="i", suite="octobench", turns=["hi"], checks=CHECKS, metadata={"category": "SP"}
)
OK = Trial(rollout="r", model="m", scaffold="chat", instance="i", repeat=0)
FAILED = Trial(rollout="r", model="m", scaffold="chat", instance="i", repeat=1)


def result(trial: Trial, status: str, error: str | None = None) -> TrialResult:
    return TrialResult.model_validate(
        {
            "trial": trial.model_dump(),
            "trial_id": trial.id,
            "status": status,
            "error": error,
            "started_at": "2026-01-01T00:00:00Z",
            "finished_at": "2026-01-01T00:00:02Z",
            "duration_seconds": 2.0,
            "calls": 2,
            "input_tokens": 10,
            "output_tokens": 2,
        }
    )


def call(seq: int, **fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "seq": seq,
        "trial": OK.id,
        "upstream": "m",
        "api": "openai-chat",
        "method": "POST",
        "path": "/v1/chat/completions",
        "query": "",
        "stream": False,
        "request": {"model": "mod-1"},
        "status": 200,
        "response": None,
        "sse_events": 0,
        "error": None,
        "started_at": "2026-01-01T00:00:00Z",
        "duration_seconds": 0.5,
        "ttfb_seconds": 0.1,
        "usage": None,
        "outcome": "ok",
    }
    return ProxyCall.model_validate({**base, **fields}).to_json_dict()


@pytest.fixture
def store(tmp_path: Path) -> RolloutStore:
    store = RolloutStore(FileStore(tmp_path), "r")
    store.write_instances([INSTANCE])
    store.write_verdicts(
        OK,
        [
            Verdict(check_id="c1", result="pass", decided_by="verifier:no_emoji"),
            Verdict(
                check_id="c2",
                result="fail",
                decided_by="panel:majority",
                reasoning="ran none",
                evidence=1,
            ),
        ],
    )
    store.write_judge_verdicts(
        OK,
        {
            "j2": [Verdict(check_id="c2", result="pass", decided_by="judge:j2")],
            "j1": [Verdict(check_id="c2", result="fail", decided_by="judge:j1", evidence=1)],
        },
    )
    store.write_trajectory(
        OK,
        Trajectory(
            system="S",
            messages=[
                ChatMessage(role="user", content="hi"),
                ChatMessage(role="assistant", tool_calls=(ToolCall(id="t1", name="Read"),)),
                ChatMessage(role="tool", content="out", tool_call_id="t1", name="Read"),
            ],
            sources=[
                SourceSpan(source=Source.SYSTEM_PROMPT, message_index=-1, start=0, end=1),
                SourceSpan(source=Source.USER_QUERY, message_index=0, start=0, end=2),
                SourceSpan(source=Source.AGENTS_MD, message_index=0, start=0, end=1),
            ],
        ),
    )
    store.write_calls(
        OK,
        [
            call(
                0,
                upstream_call={"api": "anthropic"},
                response={"usage": {"prompt_tokens_details": {"cached_tokens": 3}}},
                usage={"input_tokens": 10, "output_tokens": 2},
            ),
            call(
                1,
                api="gemini",
                path="/v1beta/models/gem-1:generateContent",
                request={},
                status=None,
                error="upstream unreachable: refused",
                ttfb_seconds=None,
                outcome="unreachable",
            ),
        ],
    )
    store.write_result(result(OK, "ok"))
    store.write_verdicts(
        FAILED, [Verdict(check_id=c.id, result="error", decided_by="runner") for c in CHECKS]
    )
    store.write_result(result(FAILED, "error", "scaffold crashed"))
    return store


def records(df: pd.DataFrame) -> list[dict[str, object]]:
    return [
        {k: (None if pd.isna(v) else v) for k, v in row.items()} for row in df.to_dict("records")
    ]


def test_trials(store: RolloutStore) -> None:
    rows = records(results.trials(store))
    assert [(r["repeat"], r["status"], r["error"]) for r in rows] == [
        (0, "ok", None),
        (1, "error", "scaffold crashed"),
    ]
    counts = ("checks", "passed", "failed", "not_applicable", "errored", "undecided")
    assert [tuple(r[c] for c in counts) for r in rows] == [(3, 1, 1, 0, 0, 1), (3, 0, 0, 0, 3, 0)]
    assert {(r["suite"], r["category"]) for r in rows} == {("octobench", "SP")}


def test_checks(store: RolloutStore) -> None:
    rows = records(results.checks(store))
    ok = [r for r in rows if r["repeat"] == 0]
    cells = ("check_id", "judge", "final", "verdict", "decider", "evidence")
    assert [tuple(r[c] for c in cells) for r in ok] == [
        ("c1", None, True, "pass", "verifier:no_emoji", None),
        ("c2", None, True, "fail", "panel:majority", 1),
        ("c3", None, True, "undecided", None, None),
        ("c2", "j1", False, "fail", "judge:j1", 1),
        ("c2", "j2", False, "pass", "judge:j2", None),
    ]
    assert (ok[1]["source"], ok[1]["check_type"], ok[1]["reasoning"]) == (
        "UserQuery",
        "testing",
        "ran none",
    )
    assert (ok[2]["condition"], ok[0]["condition"], ok[0]["reasoning"]) == (
        "If it edits",
        None,
        None,
    )
    failed = [r for r in rows if r["repeat"] == 1]
    assert [(r["verdict"], r["decider"]) for r in failed] == [("error", "runner")] * 3


def test_calls(store: RolloutStore) -> None:
    rows = records(results.calls(store))
    assert len(rows) == 2 and {r["repeat"] for r in rows} == {0}
    first, second = rows
    assert (first["api"], first["upstream_api"], first["translated"]) == (
        "openai-chat",
        "anthropic",
        True,
    )
    assert (first["input_tokens"], first["output_tokens"], first["cached_input_tokens"]) == (
        10,
        2,
        3,
    )
    assert (first["requested_model"], first["status"], first["error"]) == ("mod-1", 200, None)
    assert (second["requested_model"], second["status"], second["outcome"]) == (
        "gem-1",
        None,
        "unreachable",
    )
    assert second["translated"] is False
    assert (second["input_tokens"], second["ttfb_seconds"]) == (None, None)


def test_messages(store: RolloutStore) -> None:
    rows = records(results.messages(store))
    assert [(r["index"], r["role"], r["sources"], r["text"]) for r in rows] == [
        (-1, "system", "SP", "S"),
        (0, "user", "AgentsMd,UserQuery", "hi"),
        (1, "assistant", None, None),
        (2, "tool", None, "out"),
    ]
    assert json.loads(str(rows[2]["tool_calls"])) == [{"id": "t1", "name": "Read", "arguments": {}}]
    assert (rows[3]["tool_call_id"], rows[3]["name"], rows[1]["tool_calls"]) == ("t1", "Read", None)


def test_a_broken_call_log_names_its_file_and_line(store: RolloutStore) -> None:
    key = store.trial_key(OK, "calls.jsonl")
    store.store.write_bytes(key, store.store.read_bytes(key) + b"{oops\n")
    with pytest.raises(StoreError, match=r"r/trials/m/chat/i/r0/calls.jsonl:3: not JSON"):
        results.calls(store)
