"""Rollouts with ``baseUrl: local-model``: the runner starts the real model server itself.

The ``chat`` and ``reference`` scaffolds drive SmolLM2-135M-Instruct through the
recording proxy in both native shapes (Anthropic streaming, OpenAI not), two user
turns each, replies capped at 32 tokens. Nothing is scripted: the checks are on what
was recorded and stored, never on what the model said.
"""

import json
import logging
import re
from pathlib import Path

from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from tests.e2e.model.test_model_server import gone

TURNS = ["Say hello in five words.", "Now say goodbye."]
INSTANCE = {
    "instance_id": "greet",
    "system_prompt": "You are a friendly assistant. Answer in one short sentence.",
    "user_query": TURNS,
    "category": "SP",
    "workspace": ["ws"],
    "checklist": {
        "SP": {
            "description": "",
            "checks": [{"check_id": "SP_1", "description": "short", "check_type": "compliance"}],
        }
    },
}
ROLLOUT = """\
apiVersion: adhere.dev/v1alpha1
kind: Rollout
metadata: {name: real}
spec:
  benchmark: b
  models:
    - name: tiny-anthropic
      endpoint: {api: anthropic, baseUrl: local-model, model: smollm2, stream: true, maxTokens: 32}
    - name: tiny-openai
      endpoint: {api: openai, baseUrl: local-model, model: smollm2, maxTokens: 32}
  scaffolds: [chat, {name: reference, options: {max_steps: 2}}]
  parallelism: 4
  storage: file://./runs
"""
PATHS = {"anthropic": "/v1/messages", "openai-chat": "/v1/chat/completions"}


def write_rollout(root: Path) -> Path:
    (root / "ws").mkdir()
    (root / "ws" / "README.md").write_text("# a tiny project\n")
    (root / "instances.jsonl").write_text(json.dumps(INSTANCE) + "\n")
    (root / "benchmark.yaml").write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: Benchmark\nmetadata: {name: b}\n"
        "spec: {suite: octobench, source: {path: instances.jsonl}}\n"
    )
    (root / "rollout.yaml").write_text(ROLLOUT)
    return root / "rollout.yaml"


def reply_text(call: dict) -> str:
    """The text of a recorded reply (streams are stored reassembled)."""
    response = call["response"]
    if call["api"] == "anthropic":
        return "".join(b["text"] for b in response["content"] if b["type"] == "text")
    return response["choices"][0]["message"]["content"] or ""


async def test_chat_and_reference_record_every_real_call(tmp_path: Path, caplog) -> None:
    caplog.set_level(logging.INFO, logger="adhere.models._local_model")
    prepared = prepare(load_run_config([write_rollout(tmp_path)]))
    summary = await execute(prepared)

    assert (summary.ok, summary.failed) == (4, 0), summary.errors
    store = prepared.store
    for trial in prepared.trials:
        where = f"{trial.model}/{trial.scaffold}"
        result = store.read_result(trial)
        assert result is not None and result.status == "ok", (where, result)
        calls = store.read_calls(trial)
        lines = (tmp_path / "runs" / "real").glob(f"trials/{where}/greet/r0/calls.jsonl")
        assert [len(p.read_text().splitlines()) for p in lines] == [len(calls)], where
        # chat: one call a turn; reference: at least one a turn (more if it called a tool)
        assert len(calls) == result.calls and len(calls) >= len(TURNS), where
        if trial.scaffold == "chat":
            assert len(calls) == len(TURNS), where
        api = "anthropic" if trial.model == "tiny-anthropic" else "openai-chat"
        for call in calls:
            assert (call["status"], call["error"], call["api"]) == (200, None, api), where
            assert call["path"] == PATHS[api] and call["stream"] == (api == "anthropic")
            assert (call["sse_events"] > 0) == (api == "anthropic")
            assert "SmolLM2-135M-Instruct" in call["response"]["model"]  # the real server
            assert call["usage"]["input_tokens"] > 0
            assert 0 < call["usage"]["output_tokens"] <= 32
        assert result.input_tokens == sum(c["usage"]["input_tokens"] for c in calls)

        trajectory = store.read_trajectory(trial)
        assert trajectory is not None
        said = [m.content for m in trajectory.messages if m.role == "assistant" and m.content]
        replies = [reply_text(c) for c in calls if reply_text(c)]
        assert replies and said == replies, where  # the model's own words, stored
        users = [m.content for m in trajectory.messages if m.role == "user"]
        assert users[-len(TURNS) :] == TURNS, where
        scaffold = store.read_json(trial, "scaffold.json")
        assert scaffold["final_text"] == replies[-1]

    pids = [int(p) for p in re.findall(r"local model server on \S+ \(pid (\d+)", caplog.text)]
    assert len(pids) == 1, caplog.text  # one server for both models
    assert gone(pids[0]), f"the model server (pid {pids[0]}) outlived the run"
