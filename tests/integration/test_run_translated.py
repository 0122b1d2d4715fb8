"""`adhere run` against endpoints whose API shape adhere's own clients do not speak.

The in-process scaffolds speak Chat Completions to such an endpoint and the proxy
translates into its shape. The scripted policy server, started here at a plain URL
(not as the `scripted` provider, which would be told every shape is fine), stands in
for an OpenAI Responses and a Gemini endpoint.
"""

from pathlib import Path

from adhere.artifacts import RolloutStore
from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from adhere.store import open_store
from adhere.testing import PolicyServer, PolicyServerConfig, ScriptStep
from tests.helpers import bench_yaml, model, rollout_yaml, run_cli

REPLY = "The answer, translated."


async def test_in_process_scaffolds_run_against_responses_and_gemini_endpoints(
    tmp_path: Path, write_specs
) -> None:
    server = PolicyServer(PolicyServerConfig(scripts={"one": [ScriptStep(text=REPLY)]}))
    await server.start()
    try:
        models = model("resp", "script:one", api="openai-responses", base=server.url + "/v1")
        models += model("gem", "script:one", api="gemini", base=server.url)
        rollout = rollout_yaml(models).replace(
            "  parallelism:", "  scaffolds: [chat, reference]\n  parallelism:"
        )
        path = write_specs(bench_yaml(instructions="[3]", lengths="[3]"), rollout)
        config = load_run_config([str(path)])
        prepared = prepare(config)
        summary = await execute(prepared)
    finally:
        await server.stop()
    assert summary.failed == 0 and summary.ran == len(prepared.trials) > 0, summary.errors
    store = RolloutStore(open_store(str(tmp_path / "runs")), "r")
    shapes = {"resp": "openai-responses", "gem": "gemini"}
    for trial in prepared.trials:
        calls = store.read_calls(trial)
        assert calls, trial.id
        for call in calls:
            assert call["api"] == "openai-chat"  # what the scaffold spoke
            assert call["upstream_call"]["api"] == shapes[trial.model]
            assert call["upstream_call"]["status"] == 200
        trajectory = store.read_trajectory(trial)
        assert trajectory is not None
        assert [m.content for m in trajectory.messages if m.role == "assistant"] == [REPLY]


def test_validate_lists_each_pair_and_the_sweep_example_is_translated() -> None:
    proc = run_cli("validate", "examples/kubernetes/sweep.yaml")
    assert proc.returncode == 2  # its keys come from Secrets, which are not set here
    assert "spec.models[0].endpoint.apiKey" in proc.stderr
    assert "ADHERE_SECRET_MODEL_KEYS_OPENAI, which is not set" in proc.stderr
    assert "--no-secrets" in proc.stderr
    proc = run_cli("validate", "--no-secrets", "examples/kubernetes/sweep.yaml")
    assert proc.returncode == 0, proc.stderr
    assert "claude-code × gpt-4-1: anthropic → openai-chat (translated by the proxy)" in proc.stdout
    assert "claude-code × sonnet-4-5: anthropic (native)" in proc.stdout
