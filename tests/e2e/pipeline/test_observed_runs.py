"""Rollouts through real agent CLIs, the real recording proxy and scripted policies.

Nothing here is mocked: the CLIs come from npm (pinned, cached), the policy server
and the proxy are real HTTP servers on 127.0.0.1, and the trajectories are built
from what the proxy recorded.
"""

import json
from pathlib import Path

import pytest

from adhere.core import Source, Trajectory
from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from adhere.testing import PolicyServer, PolicyServerConfig

SYSTEM_PROMPT = "You are the demo assistant of the adhere tests. Keep answers short."
CLAUDE_MD = "# Claude rules\n\nAlways answer in English; this rule comes from CLAUDE.md."
AGENTS_MD = "# Agent rules\n\nIndent with tabs; this rule comes from AGENTS.md."
SCAFFOLDS = ["claude-code", "kilo", "droid", "codex", "qwen-code", "gemini-cli"]


def write_suite(root: Path, rows: list[dict], workspace: dict[str, str]) -> None:
    base = root / "ws"
    for rel, text in workspace.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text(text)
    with (root / "instances.jsonl").open("w") as handle:
        for row in rows:
            full = {
                "system_prompt": "",
                "category": "SP",
                "workspace": ["ws"],
                "checklist": {
                    "SP": {
                        "description": "",
                        "checks": [
                            {"check_id": "SP_1", "description": "d", "check_type": "compliance"}
                        ],
                    }
                },
                **row,
            }
            handle.write(json.dumps(full) + "\n")
    (root / "benchmark.yaml").write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: Benchmark\nmetadata: {name: b}\n"
        "spec: {suite: octobench, source: {path: instances.jsonl}}\n"
    )


def write_rollout(
    root: Path,
    models: str,
    scaffolds: str,
    *,
    parallelism: int = 3,
    name: str = "r",
    max_retries: int = 2,
) -> Path:
    path = root / "rollout.yaml"
    path.write_text(
        f"apiVersion: adhere.dev/v1alpha1\nkind: Rollout\nmetadata: {{name: {name}}}\nspec:\n"
        f"  benchmark: b\n  models:\n{models}  scaffolds: {scaffolds}\n"
        f"  parallelism: {parallelism}\n  maxRetries: {max_retries}\n  storage: file://./runs\n"
    )
    return path


def model(
    name: str, model_string: str, *, api: str = "anthropic", base: str = "scripted", extra: str = ""
) -> str:
    endpoint = f'{{api: {api}, baseUrl: "{base}", model: "{model_string}"{extra}}}'
    return f"    - name: {name}\n      endpoint: {endpoint}\n"


async def run(path: Path):
    prepared = prepare(load_run_config([path]))
    summary = await execute(prepared, retry_backoff_seconds=0.01)
    return prepared, summary


def spans_of(traj: Trajectory, source: Source):
    return [s for s in traj.sources if s.source == source]


def tool_round_trip(traj: Trajectory) -> tuple[str, str]:
    """The first tool call and the content of its paired result."""
    for i, message in enumerate(traj.messages):
        for call in message.tool_calls:
            for later in traj.messages[i + 1 :]:
                if later.role == "tool" and later.tool_call_id == call.id:
                    assert later.name == call.name
                    return call.name, later.content
    raise AssertionError("no tool call with a paired result")


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    workspace = {
        "README.md": "# demo project\nsecond line\n",
        "CLAUDE.md": CLAUDE_MD,
        "AGENTS.md": AGENTS_MD,
    }
    write_suite(
        tmp_path,
        [
            {
                "instance_id": "demo",
                "system_prompt": SYSTEM_PROMPT,
                "user_query": ["Show me the first line of README.md."],
            }
        ],
        workspace,
    )
    return tmp_path


async def test_six_cli_scaffolds_recorded_normalized_and_tagged(demo: Path, scaffold_cache) -> None:
    gemini = "{name: gemini-cli, options: {context_file_names: [AGENTS.md]}}"
    scaffolds = f"[claude-code, kilo, droid, codex, qwen-code, {gemini}]"
    prepared, summary = await run(write_rollout(demo, model("m", "agent:read"), scaffolds))
    assert (summary.ok, summary.failed) == (6, 0), summary.errors
    apis = {}
    for trial in prepared.trials:
        traj = prepared.store.read_trajectory(trial)
        assert traj is not None, trial.scaffold
        calls = prepared.store.read_calls(trial)
        assert calls and all(c["trial"] == trial.id for c in calls)
        apis[trial.scaffold] = calls[0]["api"]
        # the instance's system prompt reached the model and is tagged
        sp = [s for s in spans_of(traj, Source.SYSTEM_PROMPT) if s.label == "instance"]
        assert sp, f"{trial.scaffold}: system prompt not found"
        # a project policy file reached the model, found by content
        policy = spans_of(traj, Source.AGENTS_MD)
        assert policy, f"{trial.scaffold}: no CLAUDE.md / AGENTS.md text tagged"
        assert {s.label for s in policy} <= {"CLAUDE.md", "AGENTS.md"}
        # tool schemas, a tool call with its result, the final answer
        assert traj.tools and len(spans_of(traj, Source.TOOL_SCHEMA)) == len(traj.tools)
        name, result = tool_round_trip(traj)
        assert "demo project" in result, (trial.scaffold, name, result[:200])
        final = [m for m in traj.messages if m.role == "assistant"][-1]
        assert final.content.startswith("The first line of") and "# demo project" in final.content
        assert not final.tool_calls
        assert spans_of(traj, Source.USER_QUERY)
    assert apis == {
        "claude-code": "anthropic",
        "kilo": "openai-chat",
        "droid": "openai-chat",
        "codex": "openai-responses",
        "qwen-code": "openai-chat",
        "gemini-cli": "gemini",
    }
    by_scaffold = {t.scaffold: prepared.store.read_trajectory(t) for t in prepared.trials}
    labels = {s: {sp.label for sp in spans_of(t, Source.AGENTS_MD)} for s, t in by_scaffold.items()}
    assert labels["claude-code"] == {"CLAUDE.md"}  # Claude Code never sends AGENTS.md
    assert "AGENTS.md" in labels["kilo"] and "AGENTS.md" in labels["codex"]


async def test_multi_turn_claude_code_is_one_trajectory(tmp_path: Path, scaffold_cache) -> None:
    write_suite(
        tmp_path,
        [
            {
                "instance_id": "two-turns",
                "user_query": [
                    "Show me the first line of README.md.",
                    "Now show me the first line of CLAUDE.md.",
                ],
            }
        ],
        {"README.md": "# demo project\n", "CLAUDE.md": CLAUDE_MD},
    )
    prepared, summary = await run(
        write_rollout(tmp_path, model("m", "agent:read"), "[claude-code]")
    )
    assert summary.ok == 1, summary.errors
    traj = prepared.store.read_trajectory(prepared.trials[0])
    assert traj is not None
    turns = sorted(s.label for s in spans_of(traj, Source.USER_QUERY))
    assert turns == ["turn 1", "turn 2"]
    finals = [m.content for m in traj.messages if m.role == "assistant" and not m.tool_calls]
    assert any("README.md" in f for f in finals) and any("# Claude rules" in f for f in finals)
    assert (
        len(traj.meta["calls"]) >= 4
        and not traj.subagents
        or all("two-turns" not in (s.meta.get("instance") or "") for s in traj.subagents)
    )


async def test_sixteen_concurrent_trials_do_not_cross_talk(tmp_path: Path) -> None:
    rows = [
        {"instance_id": f"note-{i}", "user_query": [f"Show me the first line of notes/n{i}.txt."]}
        for i in range(16)
    ]
    write_suite(tmp_path, rows, {f"notes/n{i}.txt": f"note number {i}\n" for i in range(16)})
    path = write_rollout(
        tmp_path, model("m", "agent:read,delay=0.3"), "[reference]", parallelism=16
    )
    prepared, summary = await run(path)
    assert summary.ok == 16, summary.errors
    assert summary.seconds < 16 * 0.6  # they really overlapped
    for trial in prepared.trials:
        i = trial.instance.split("-")[1]
        traj = prepared.store.read_trajectory(trial)
        calls = prepared.store.read_calls(trial)
        assert [c["seq"] for c in calls] == list(range(len(calls)))
        assert f"notes/n{i}.txt" in traj.messages[0].content
        final = traj.messages[-1].content
        assert f"note number {i}" in final and all(
            f"note number {j}\n" not in final for j in range(16) if str(j) != i
        )


async def test_failed_upstream_calls_are_recorded(tmp_path: Path) -> None:
    write_suite(
        tmp_path,
        [{"instance_id": "x", "user_query": ["Show me the first line of README.md."]}],
        {"README.md": "# demo\n"},
    )
    limits = ", limits: {maxRetries: 3, backoffBaseSeconds: 0.01}"
    down = ", limits: {maxRetries: 1, backoffBaseSeconds: 0.01, timeoutSeconds: 2}"
    models = model("flaky", "agent:read,fail_first=1,fail_status=503", extra=limits)
    models += model("down", "m", base="http://127.0.0.1:9", extra=down)
    prepared, summary = await run(write_rollout(tmp_path, models, "[reference]", max_retries=1))
    assert (summary.ok, summary.failed, summary.faults, summary.retried) == (1, 0, 1, 1)
    flaky, gone = prepared.trials
    assert list(prepared.store.read_result(flaky).outcomes) == ["server_error"]  # recovered
    calls = prepared.store.read_calls(flaky)
    assert calls[0]["status"] == 503 and calls[1]["status"] == 200
    traj = prepared.store.read_trajectory(flaky)
    assert traj.meta["failed_calls"][0]["status"] == 503
    calls = prepared.store.read_calls(gone)
    # every attempt of the scaffold's client is its own record
    assert len(calls) >= 2 and all(
        c["status"] is None and "unreachable" in c["error"] for c in calls
    )
    assert all(c["outcome"] == "unreachable" for c in calls)
    # the model service failed it: an upstream fault, retried once, never scored
    result = prepared.store.read_result(gone)
    assert result.status == "upstream_fault" and result.attempt == 2
    assert prepared.store.read_verdicts(gone) == []


async def test_planted_keys_never_reach_a_stored_file(
    tmp_path: Path, monkeypatch, capfd, scaffold_cache
) -> None:
    upstream_key = "sk-e2eUpstream0123456789abcdefXYZ"
    env_keys = {
        "OPENAI_API_KEY": "sk-e2eEnvOpenAI0123456789abcdefQRS",
        "ANTHROPIC_API_KEY": "sk-ant-e2eEnvAnthropic0123456789LMN",
    }
    for k, v in env_keys.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("ADHERE_E2E_UPSTREAM_KEY", upstream_key)
    # The key is also in a file the agent reads, so it travels in request bodies and replies.
    write_suite(
        tmp_path,
        [{"instance_id": "k", "user_query": ["Show me the first line of README.md."]}],
        {"README.md": f"token {upstream_key}\n", "CLAUDE.md": CLAUDE_MD},
    )
    async with PolicyServer(PolicyServerConfig(require_api_key=upstream_key)) as server:
        models = model(
            "keyed", "agent:read", base=server.url, extra=", apiKey: {env: ADHERE_E2E_UPSTREAM_KEY}"
        )
        prepared, summary = await run(write_rollout(tmp_path, models, "[claude-code, reference]"))
    assert summary.ok == 2, summary.errors  # the proxy sent the real key upstream
    secrets = [upstream_key, *env_keys.values()]
    stored = [p for p in (tmp_path / "runs").rglob("*") if p.is_file()]
    assert any(p.name == "calls.jsonl" for p in stored)
    for p in stored:
        text = p.read_text(errors="replace")
        for secret in secrets:
            assert secret not in text, f"{secret[:12]}… in {p}"
    assert "[redacted]" in "".join(p.read_text() for p in stored if p.name == "calls.jsonl")
    out = capfd.readouterr()
    assert not any(secret in out.out + out.err for secret in secrets)
