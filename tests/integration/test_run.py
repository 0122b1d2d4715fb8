"""End-to-end runs through the real runner, the real scripted policy server and real HTTP."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from adhere.artifacts import RolloutStore
from adhere.report._results import collect, report_for
from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from adhere.store import open_store
from adhere.suites import get_suite
from adhere.testing import InstanceAnswerKey, PolicyServer, PolicyServerConfig
from tests.helpers import ROOT, bench_yaml, model, rollout_yaml, run_cli, wait_until


def rates_by_model(store: RolloutStore) -> dict[str, tuple[str, str]]:
    report = report_for(store)
    header = report.summary.header
    return {
        row[0]: (row[header.index(report.isr_name)], row[header.index(report.csr_name)])
        for row in report.summary.rows
    }


def test_quickstart_command_prints_report_with_oracle_perfect_and_noisy_below(
    tmp_path: Path,
) -> None:
    for name in ("benchmark.yaml", "rollout.yaml"):
        text = (ROOT / "examples" / "quickstart" / name).read_text()
        (tmp_path / name).write_text(text.replace("file://../../runs", "file://./runs"))
    proc = run_cli("run", str(tmp_path / "rollout.yaml"))
    assert proc.returncode == 0, proc.stderr
    assert "prompt-level accuracy" in proc.stdout
    oracle_line = [line for line in proc.stdout.splitlines() if line.startswith("│ oracle ")][-1]
    assert oracle_line.count("100.0%") == 2
    store = RolloutStore(open_store(str(tmp_path / "runs")), "quickstart")
    rates = rates_by_model(store)
    assert rates["oracle"] == ("100.0%", "100.0%")
    noisy_isr = float(rates["noisy"][0].rstrip("%"))
    assert noisy_isr < 100.0
    report = report_for(store)
    by_difficulty = next(t for t in report.breakdowns if t.title == "By difficulty")
    header = by_difficulty.header
    oracle_cells = [r for r in by_difficulty.rows if r[0] == "oracle"]
    assert len(oracle_cells) == 6 and all(
        r[header.index(report.isr_name)] == "100.0%" for r in oracle_cells
    )
    noisy_cells = [
        float(r[header.index(report.isr_name)].rstrip("%"))
        for r in by_difficulty.rows
        if r[0] == "noisy"
    ]
    assert min(noisy_cells) < 100.0
    out = tmp_path / "runs" / "quickstart" / "report"
    assert (out / "report.md").read_text().count("| oracle |") >= 1
    assert "<svg" in (out / "report.html").read_text() and (out / "plot.svg").is_file()
    # A second run finds everything done and runs nothing.
    again = run_cli("run", str(tmp_path / "rollout.yaml"), "--no-report")
    assert again.returncode == 0, again.stderr
    assert "0 ran (0 ok, 0 failed), 72 already done (same config), 72 planned" in again.stderr


def test_resume_after_kill_loses_nothing_and_runs_nothing_twice(
    tmp_path: Path, write_specs
) -> None:
    """A run killed mid-way keeps its finished trials; the rerun does each other one once.

    The model answers 6 requests and holds the others until ``go`` exists, so the kill
    lands with exactly 6 trials done whatever the machine's speed.
    """
    release = tmp_path / "go"
    models = model("slow", f"oracle:hold_after=6,release={release}")
    path = write_specs(
        bench_yaml(instructions="[3, 5, 8]", lengths="[3, 5]", per_language=2),
        rollout_yaml(models, parallelism=2),
    )
    cmd = [sys.executable, "-m", "adhere.cli", "run", str(path), "--quiet", "--no-report"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    runs = tmp_path / "runs" / "r" / "trials"
    wait_until(
        lambda: len(list(runs.rglob("result.json"))) == 6,
        "6 trials to finish before the model holds its answers",
    )
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished_before = {p: p.read_bytes() for p in runs.rglob("result.json")}
    assert len(finished_before) == 6  # the held trials did not finish
    release.touch()
    again = run_cli("run", str(path), "--quiet", "--no-report")
    assert again.returncode == 0, again.stderr
    assert "6 already done" in again.stderr and "30 ran" in again.stderr
    results = list(runs.rglob("result.json"))
    assert len(results) == 36
    for p, content in finished_before.items():
        assert p.read_bytes() == content  # not run again
    ids = [json.loads(p.read_text())["trial_id"] for p in results]
    assert len(set(ids)) == 36
    assert all(json.loads(p.read_text())["status"] == "ok" for p in results)


async def test_an_unreachable_endpoint_is_an_upstream_fault_retried_and_not_scored(
    tmp_path: Path, write_specs
) -> None:
    limits = ", limits: {maxRetries: 1, backoffBaseSeconds: 0.01, timeoutSeconds: 2}"
    models = model("good", "oracle") + model(
        "down", "m", base="http://127.0.0.1:9/v1", extra=limits
    )
    path = write_specs(bench_yaml(), rollout_yaml(models, max_retries=1))
    prepared = prepare(load_run_config([path]))
    summary = await execute(prepared, retry_backoff_seconds=0.01)
    assert (summary.ok, summary.failed, summary.faults, summary.retried) == (12, 0, 12, 12)
    collected = collect(prepared.store)
    down = [t for t in collected.trials if t.keys["model"] == "down"]
    assert len(down) == 12 and all(t.status == "upstream_fault" for t in down)
    assert all(t.verdicts == [] for t in down)  # never scored: no pass, no failure
    assert all(t.outcomes == {"unreachable": 2} for t in down)  # 1 try + 1 client retry
    result = prepared.store.read_result(next(t for t in prepared.trials if t.model == "down"))
    assert result is not None and result.attempt == 2
    assert result.error is not None and result.error.startswith("upstream fault: ")
    assert "upstream unreachable" in result.error
    rates = rates_by_model(prepared.store)
    assert rates["good"] == ("100.0%", "100.0%") and rates["down"] == ("–", "–")
    report = report_for(prepared.store)
    header = report.summary.header
    row = next(r for r in report.summary.rows if r[0] == "down")
    assert row[header.index("upstream faults")] == "12"
    assert row[header.index("trial errors")] == "0" and row[header.index("wrong")] == "0"
    assert any("12 trial(s) ended as upstream faults" in note for note in report.notes)
    outcomes = next(t for t in report.breakdowns if t.title.startswith("Model-side outcomes"))
    by_model = {r[0]: dict(zip(outcomes.header, r, strict=True)) for r in outcomes.rows}
    assert by_model["down"]["calls failed upstream"] == "24"
    assert by_model["down"]["upstream-fault trials"] == "12"
    assert by_model["good"]["calls failed upstream"] == "0"
    # The in-run retry kept the first attempt aside; the next run tries again.
    assert len(list((tmp_path / "runs").rglob("attempt-1/result.json"))) == 12
    summary = await execute(prepare(load_run_config([path])), retry_backoff_seconds=0.01)
    assert (summary.skipped, summary.ran, summary.faults) == (12, 12, 12)
    assert len(list((tmp_path / "runs").rglob("attempt-3/result.json"))) == 12


async def test_garbage_and_wrong_answers_are_counted_apart(tmp_path: Path, write_specs) -> None:
    models = model("garbled", "noisy:rate=0.3,seed=3,garble=0.5", api="anthropic")
    path = write_specs(bench_yaml(per_language=3), rollout_yaml(models))
    prepared = prepare(load_run_config([path]))
    summary = await execute(prepared)
    assert summary.ok == 36
    report = report_for(prepared.store)
    row = report.summary.rows[0]
    header = report.summary.header
    assert int(row[header.index("missing")]) > 0 and int(row[header.index("wrong")]) > 0
    assert row[header.index("trial errors")] == "0"


async def test_chat_mode_streaming_through_both_apis(tmp_path: Path, write_specs) -> None:
    models = model("oa", "oracle", extra=", stream: true") + model(
        "an", "oracle", api="anthropic", extra=", stream: true"
    )
    path = write_specs(bench_yaml(mode="chat"), rollout_yaml(models))
    prepared = prepare(load_run_config([path]))
    assert (await execute(prepared)).ok == 24
    assert rates_by_model(prepared.store) == {
        "an": ("100.0%", "100.0%"),
        "oa": ("100.0%", "100.0%"),
    }
    trial = prepared.trials[0]
    calls = prepared.store.read_calls(trial)
    assert len(calls) == len(prepared.instances[0].turns) and all(c["stream"] for c in calls)


async def test_api_key_is_used_but_never_written(
    tmp_path: Path, write_specs, monkeypatch, capfd
) -> None:
    secret = "sk-test-0123456789-very-secret"
    monkeypatch.setenv("ADHERE_TEST_KEY", secret)
    prepared_probe = prepare(
        load_run_config([write_specs(bench_yaml(), rollout_yaml(model("x", "oracle")))])
    )
    key = InstanceAnswerKey(prepared_probe.instances, get_suite)
    async with PolicyServer(PolicyServerConfig(answer_key=key, require_api_key=secret)) as server:
        url = server.url
        models = model(
            "keyed", "oracle", base=f"{url}/v1", extra=", apiKey: {env: ADHERE_TEST_KEY}"
        )
        models += model("nokey", "oracle", base=f"{url}/v1")
        path = write_specs(bench_yaml(), rollout_yaml(models, name="keys"))
        prepared = prepare(load_run_config([path]))
        summary = await execute(prepared)
    assert (summary.ok, summary.failed) == (12, 12)
    rates = rates_by_model(prepared.store)
    assert rates["keyed"] == ("100.0%", "100.0%")
    collected = collect(prepared.store)
    assert all(
        "401" in t.verdicts[0].reasoning for t in collected.trials if t.keys["model"] == "nokey"
    )
    for file in (tmp_path / "runs").rglob("*"):
        if file.is_file():
            assert secret not in file.read_text(errors="replace"), file
    captured = capfd.readouterr()
    assert secret not in captured.out + captured.err
    assert os.environ["ADHERE_TEST_KEY"] == secret


async def test_replay_reproduces_a_recorded_run(tmp_path: Path, write_specs) -> None:
    path = write_specs(
        bench_yaml(per_language=2),
        rollout_yaml(model("noisy", "noisy:rate=0.3,seed=5"), name="rec"),
    )
    recorded = prepare(load_run_config([path]))
    await execute(recorded)
    replay = model(
        "again", "replay:run=./runs/rec,model=noisy", api="anthropic", extra=", stream: true"
    )
    path = write_specs(bench_yaml(per_language=2), rollout_yaml(replay, name="rep"))
    replayed = prepare(load_run_config([path]))
    summary = await execute(replayed)
    assert summary.ok == len(replayed.trials) == 24
    assert rates_by_model(replayed.store)["again"] == rates_by_model(recorded.store)["noisy"]
    for a, b in zip(recorded.trials, replayed.trials, strict=True):
        ta, tb = recorded.store.read_trajectory(a), replayed.store.read_trajectory(b)
        assert ta is not None and tb is not None
        assert [m.content for m in ta.messages] == [m.content for m in tb.messages]


async def test_replay_of_an_unknown_conversation_fails_the_trial_clearly(
    tmp_path: Path, write_specs
) -> None:
    path = write_specs(bench_yaml(seed=1), rollout_yaml(model("m", "oracle"), name="rec"))
    await execute(prepare(load_run_config([path])))
    path = write_specs(
        bench_yaml(seed=2), rollout_yaml(model("again", "replay:run=./runs/rec"), name="rep")
    )
    replayed = prepare(load_run_config([path]))
    summary = await execute(replayed)
    assert summary.failed == 12
    assert "no recorded reply" in summary.errors[0]


def test_serve_policy_command_is_a_test_double_serving_the_benchmark(tmp_path: Path) -> None:
    help_text = run_cli("serve-policy", "--help").stdout
    assert "TEST DOUBLE" in help_text
    import httpx

    bench = ROOT / "examples" / "quickstart" / "benchmark.yaml"
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "adhere.cli",
            "serve-policy",
            "--port",
            str(port),
            "--benchmark",
            str(bench),
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        suite = get_suite("pacific")
        config = load_run_config([ROOT / "examples" / "quickstart" / "rollout.yaml"])
        instance = suite.load(config.benchmark.spec, base_dir=bench.parent)[0]
        body = {
            "model": "oracle",
            "messages": [
                {"role": "system", "content": instance.system_prompt},
                {"role": "user", "content": instance.turns[0]},
            ],
        }
        reply = httpx.post(f"{url}/v1/chat/completions", json=body).json()
        text = reply["choices"][0]["message"]["content"]
        from adhere.core import ChatMessage, Trajectory

        trajectory = Trajectory(
            messages=[
                ChatMessage(role="user", content=instance.turns[0]),
                ChatMessage(role="assistant", content=text),
            ]
        )
        assert all(v.result == "pass" for v in suite.score(instance, trajectory))
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_repeats_give_an_avg_at_k_table(tmp_path: Path, write_specs) -> None:
    models = model("oracle", "oracle") + model("noisy", "noisy:rate=0.3,seed=2")
    path = write_specs(bench_yaml(), rollout_yaml(models, repeats=3))
    prepared = prepare(load_run_config([path]))
    assert (await execute(prepared)).ok == 2 * 12 * 3
    report = report_for(prepared.store)
    table = next(t for t in report.breakdowns if t.title.startswith("avg@k over 3 repeats"))
    rows = {r[0]: r for r in table.rows}
    assert rows["oracle"][1] == "3" and rows["oracle"][2] == "100.0% ± 0.0 [100.0–100.0%]"
    # the scripted noisy model answers the same way every repeat, so its spread is 0
    # and its range one point
    noisy = rows["noisy"][2]
    mean = noisy.split("%")[0]
    assert noisy == f"{mean}% ± 0.0 [{mean}–{mean}%]" and mean != "100.0"
    # Every rate of the summary carries its 95% interval, clustered by instance.
    header = report.summary.header
    summary = {r[0]: r for r in report.summary.rows}
    low, high = summary["noisy"][header.index("ISR 95% CI")].rstrip("%").split("–")
    isr = float(summary["noisy"][header.index(report.isr_name)].rstrip("%"))
    assert float(low) < isr < float(high)
