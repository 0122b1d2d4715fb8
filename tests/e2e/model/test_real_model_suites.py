"""`adhere run` of a PACIFIC rollout and of the OctoBench sample with the real model.

The model is real and weak, so nothing is asserted about its answers. What is asserted:
every trial finishes with a result; every call the result counts is stored (0 lost);
every call record carries its outcome (ok, a model-side outcome such as ``max_tokens``,
or an upstream fault); trials are ok, errors or upstream faults — never lost; the
report prints.
"""

import json
import shutil
from pathlib import Path

import pytest

from adhere.artifacts import RolloutStore
from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from adhere.store import open_store
from tests.helpers import ROOT, run_cli

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

OUTCOMES = {
    "ok",
    "context_length",
    "refusal",
    "max_tokens",
    "empty",
    "unreachable",
    "timeout",
    "rate_limited",
    "server_error",
    "cut",
    "rejected",
    "client_gone",
    "cancelled",
}


def assert_nothing_lost(store: RolloutStore, trials: list) -> dict[str, int]:
    """Every trial's result and records agree; the count of each status."""
    statuses: dict[str, int] = {}
    for trial in trials:
        result = store.read_result(trial)
        assert result is not None, trial.id
        statuses[result.status] = statuses.get(result.status, 0) + 1
        calls = store.read_calls(trial)
        assert result.calls == len(calls), (trial.id, result.calls, len(calls))
        assert calls or result.status != "ok", trial.id
        for call in calls:
            assert call["outcome"] in OUTCOMES, call["outcome"]
            if call["outcome"] == "ok":
                assert call["error"] is None and call["status"] == 200
    return statuses


def test_the_real_model_example_runs_pacific_with_every_call_recorded(tmp_path: Path) -> None:
    for name in ("benchmark.yaml", "rollout.yaml"):
        text = (ROOT / "examples" / "real-model" / name).read_text()
        (tmp_path / name).write_text(text.replace("file://../../runs", "file://./runs"))
    proc = run_cli("run", str(tmp_path / "rollout.yaml"), timeout=800)
    assert proc.returncode in (0, 1), proc.stderr  # 1: some trials failed, recorded
    assert "instruction-level" in proc.stdout and "report written to" in proc.stderr
    store = RolloutStore(open_store(str(tmp_path / "runs")), "real-model")
    prepared = prepare(load_run_config([tmp_path / "rollout.yaml"]))
    statuses = assert_nothing_lost(store, prepared.trials)
    assert sum(statuses.values()) == len(prepared.trials) == 3
    assert "chat × smollm2-135m: openai-chat (native)" in proc.stderr
    # What a user does next with a real run: the trial viewer's pages, the tables out,
    # the report as JSON — on the model's real, unscripted output.
    run_dir = tmp_path / "runs" / "real-model"
    assert sorted(run_dir.glob("report/trial-*.html")), "no trial pages"
    out = tmp_path / "export"
    exported = run_cli("export", str(run_dir), "--format", "csv", "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    calls = (out / "calls.csv").read_text().splitlines()
    assert len(calls) - 1 == sum(len(store.read_calls(t)) for t in prepared.trials)
    as_json = run_cli("report", str(run_dir), "--format", "json", "--allow-incomplete")
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["kind"] == "report"


async def test_the_octobench_sample_runs_against_the_real_model(tmp_path: Path) -> None:
    sample = ROOT / "examples" / "octobench-sample"
    shutil.copytree(sample, tmp_path / "sample")
    rollout = tmp_path / "sample" / "rollout.yaml"
    text = rollout.read_text()
    head, _, _ = text.partition("  models:")
    rollout.write_text(
        head
        + "  models:\n"
        + "    - name: tiny\n"
        + "      endpoint: {api: anthropic, baseUrl: local-model, model: smollm2, "
        + "stream: true, maxTokens: 48, controls: {maxOutputTokens: 48}}\n"
        + "  scaffolds: [{name: reference, options: {max_steps: 2}}]\n"
        + "  judgePanel: sample-judges\n  repeats: 1\n  parallelism: 4\n"
        + "  storage: file://./runs\n"
    )
    files = [rollout, tmp_path / "sample" / "benchmark.yaml", tmp_path / "sample" / "judges.yaml"]
    prepared = prepare(load_run_config([str(f) for f in files]))
    summary = await execute(prepared)

    assert len(prepared.trials) == 8 and summary.ran == 8, summary
    statuses = assert_nothing_lost(prepared.store, prepared.trials)
    assert sum(statuses.values()) == 8
    assert set(statuses) <= {"ok", "error", "upstream_fault"}
    assert summary.scoring is not None  # the scripted judge panel scored what finished
