"""The six agent CLIs against the real model server, each in an API shape it does not speak.

``adhere run`` starts the real model server (``baseUrl: local-model``) and the recording
proxy, which translates each CLI's calls: Claude Code, Codex and Gemini CLI to OpenAI
Chat upstream; Kilo, Qwen Code and Droid to Anthropic upstream. Replies are capped at
the proxy (``controls.maxOutputTokens``) so a rambling 135M model stays bounded. The
checks are on what was recorded and stored — every call recorded, both sides kept,
the CLI's real system prompt and tools in the trajectory, the model's real text in
it — never on what the model said. A CLI may exit non-zero on such a weak model's
output; a trial is then recorded as failed, with its calls.
"""

import json
from pathlib import Path

import pytest

from adhere.runner import execute, prepare
from adhere.spec import load_run_config

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

INSTANCE = {
    "instance_id": "greet",
    "system_prompt": "Answer in one short sentence.",
    "user_query": ["Say hello."],
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
metadata: {{name: {name}}}
spec:
  benchmark: b
  models:
    - name: tiny
      endpoint:
        api: {api}
        baseUrl: local-model
        model: smollm2
        limits: {{timeoutSeconds: 400}}
        controls: {{maxOutputTokens: 40, temperature: 0}}
  scaffolds:
{scaffolds}
  parallelism: 3
  maxRetries: 0
  storage: file://./runs
"""
UPSTREAM = {"openai": "openai-chat", "anthropic": "anthropic"}
GROUPS = {
    "openai": ["claude-code", "codex", "gemini-cli"],
    "anthropic": ["kilo", "qwen-code", "droid"],
}


def write_rollout(root: Path, api: str) -> Path:
    (root / "ws").mkdir(exist_ok=True)
    (root / "ws" / "README.md").write_text("# a tiny project\n")
    (root / "instances.jsonl").write_text(json.dumps(INSTANCE) + "\n")
    (root / "benchmark.yaml").write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: Benchmark\nmetadata: {name: b}\n"
        "spec: {suite: octobench, source: {path: instances.jsonl}}\n"
    )
    scaffolds = "".join(f"    - {{name: {name}, timeoutSeconds: 600}}\n" for name in GROUPS[api])
    path = root / f"rollout-{api}.yaml"
    path.write_text(ROLLOUT.format(name=f"real-{api}", api=api, scaffolds=scaffolds))
    return path


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_each_cli_runs_against_the_real_model_in_a_shape_it_does_not_speak(
    tmp_path: Path, scaffold_cache, api: str
) -> None:
    prepared = prepare(load_run_config([write_rollout(tmp_path, api)]))
    summary = await execute(prepared)

    assert summary.ran == 3, summary
    store = prepared.store
    for trial in prepared.trials:
        where = trial.scaffold
        result = store.read_result(trial)
        calls = store.read_calls(trial)
        assert result is not None and result.calls == len(calls) > 0, (where, result)
        chats = [c for c in calls if c.get("upstream_call")]
        assert chats, (where, [(c["path"], c["status"], c["error"]) for c in calls])
        answered = [c for c in chats if c["upstream_call"]["status"] == 200]
        assert answered, (where, [c["upstream_call"]["error"] for c in chats])
        for call in chats:
            side = call["upstream_call"]
            assert side["api"] == UPSTREAM[api] and call["api"] != side["api"]
            # The cap reached the model in its own shape.
            sent = side["request"]
            assert sent["max_tokens"] <= 40, (where, sent.get("max_tokens"))
        trajectory = store.read_trajectory(trial)
        assert trajectory is not None, where
        # The CLI's own system prompt (not just the instance's) and its own tools.
        assert trajectory.system.strip() != INSTANCE["system_prompt"], where
        assert len(trajectory.system) > len(INSTANCE["system_prompt"]) + 50, where
        assert len(trajectory.tools) >= 3, (where, [t.name for t in trajectory.tools])
        said = [m.content for m in trajectory.messages if m.role == "assistant" and m.content]
        upstream_text = json.dumps([c["upstream_call"]["response"] for c in answered])
        assert said, (where, result.error)
        assert any(
            text[:20] in upstream_text or json.dumps(text)[1:21] in upstream_text for text in said
        )
