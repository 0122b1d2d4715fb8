"""The command line: bad input gets one clear line, generation is reproducible, Ctrl-C resumes."""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.helpers import ROOT, bench_yaml, model, rollout_yaml, run_cli, wait_until


def test_malformed_yaml(tmp_path: Path) -> None:
    bad = tmp_path / "rollout.yaml"
    bad.write_text("apiVersion: adhere.dev/v1alpha1\nkind: Rollout\nmetadata: {name: x\n")
    proc = run_cli("run", str(bad))
    assert proc.returncode == 2
    assert f"error: {bad}: malformed YAML at line" in proc.stderr.replace("\n", "")
    assert "Traceback" not in proc.stderr


def test_unknown_suite_names_the_benchmark_file(tmp_path: Path, write_specs) -> None:
    path = write_specs(
        bench_yaml().replace("suite: pacific", "suite: pacifik"), rollout_yaml(model("m", "oracle"))
    )
    proc = run_cli("run", str(path))
    assert proc.returncode == 2
    err = proc.stderr.replace("\n", "")
    assert "benchmark.yaml" in err and "unknown suite 'pacifik'" in err and "pacific" in err


def test_unknown_field_and_missing_benchmark(tmp_path: Path, write_specs) -> None:
    path = write_specs(
        bench_yaml(),
        rollout_yaml(model("m", "oracle")).replace("repeats: 1", "repeats: 1\n  colour: red"),
    )
    proc = run_cli("validate", str(path))
    assert proc.returncode == 2 and "spec.colour: unknown field" in proc.stderr.replace("\n", "")
    path = write_specs(
        bench_yaml(),
        rollout_yaml(model("m", "oracle")).replace("benchmark: bench", "benchmark: nope"),
    )
    proc = run_cli("run", str(path))
    assert proc.returncode == 2
    assert "spec.benchmark: Benchmark 'nope' not found" in proc.stderr.replace("\n", "")


def test_upstream_faults_give_exit_status_1_and_a_report(tmp_path: Path, write_specs) -> None:
    limits = ", limits: {maxRetries: 0, timeoutSeconds: 2}"
    down = model("down", "m", base="http://127.0.0.1:9/v1", extra=limits)
    path = write_specs(bench_yaml(), rollout_yaml(down, max_retries=0))
    proc = run_cli("run", str(path), "--quiet", "--no-preflight")  # the faults are the point
    assert proc.returncode == 1
    stderr = " ".join(proc.stderr.split())
    assert "12 ran (0 ok, 0 failed, 12 upstream faults)" in stderr
    assert "12 trial(s) ended as upstream faults" in stderr
    assert "upstream unreachable" in stderr  # the first failures are listed
    assert "│ down " in proc.stdout  # the report still prints, with the faults counted apart
    assert "12 trial(s) ended as upstream faults" in " ".join(proc.stdout.split())


def test_generate_is_reproducible_by_seed(tmp_path: Path) -> None:
    args = [
        "generate",
        "pacific",
        "--instructions",
        "3,5",
        "--length",
        "3,10",
        "--per-language",
        "2",
    ]
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    for out, seed in ((a, "4"), (b, "4"), (c, "5")):
        proc = run_cli(*args, "--seed", seed, "--mode", "chat", "--kind", "code", "--out", str(out))
        assert proc.returncode == 0, proc.stderr
    assert a.read_bytes() == b.read_bytes() != c.read_bytes()
    assert len(a.read_text().splitlines()) == 2 * 2 * 3 * 2
    proc = run_cli(*args[:2], "--instructions", "x", "--out", str(a))
    assert proc.returncode == 2 and "comma-separated integers" in proc.stderr


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_then_resume(tmp_path: Path, write_specs) -> None:
    """Ctrl-C stops a run between trials; a rerun does only the rest.

    The model answers 4 requests and holds the others until ``go`` exists, so the
    interrupt lands with exactly 4 trials done whatever the machine's speed.
    """
    release = tmp_path / "go"
    path = write_specs(
        bench_yaml(instructions="[3, 5, 8]", per_language=2),
        rollout_yaml(model("slow", f"oracle:hold_after=4,release={release}"), parallelism=2),
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "adhere.cli", "run", str(path), "--no-report"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        # As at a terminal: a run started under nohup or as a background job inherits
        # SIGINT ignored, and then Ctrl-C cannot reach it.
        preexec_fn=_default_sigint,
    )
    trials = tmp_path / "runs" / "r" / "trials"
    wait_until(
        lambda: len(list(trials.rglob("result.json"))) == 4,
        "4 trials to finish before the model holds its answers",
    )
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "resume" in err
    assert len(list(trials.rglob("result.json"))) == 4  # the held trials did not finish
    # The 2 trials in flight are recorded as interrupted, with the call they were in if
    # they had sent it (a trial may be stopped before its first call).
    progress = json.loads((trials.parent / "progress.json").read_text())
    assert progress["phase"] == "interrupted" and len(progress["interrupted"]) == 2
    marked = sorted(p.parent for p in trials.rglob("interrupted.json"))
    assert len(marked) == 2
    for folder in marked:
        made = json.loads((folder / "interrupted.json").read_text())["calls"]
        log = folder / "calls.jsonl"
        calls = [json.loads(line) for line in log.read_text().splitlines()] if made else []
        assert len(calls) == made <= 1 and all(c["error"] for c in calls)  # held, then ended
    release.touch()
    again = run_cli("run", str(path), "--quiet", "--no-report")
    assert again.returncode == 0, again.stderr
    assert "32 ran (32 ok, 0 failed), 4 already done" in again.stderr
    for folder in marked:  # the interrupted attempt is kept; attempt 2 finished
        assert (folder / "attempt-1" / "interrupted.json").is_file()
        assert json.loads((folder / "result.json").read_text())["attempt"] == 2


def test_trajectory_show_prints_tagged_messages(tmp_path: Path, write_specs) -> None:
    path = write_specs(
        bench_yaml(instructions="[3]", lengths="[3]"), rollout_yaml(model("m", "oracle"))
    )
    assert run_cli("run", str(path), "--quiet", "--no-report").returncode == 0
    runs = tmp_path / "runs" / "r"
    proc = run_cli("trajectory", "show", str(runs), "m/chat/pacific-python-n3-l3-prompt-000")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "system prompt" in out and "assistant · turn 1" in out and "[ANSWER][1]" in out
    assert "UserQuery (turn 1)" in out and "SP (instance)" in out
    trial_id = out.split("trial ", 1)[1].split(":", 1)[0]
    raw = run_cli("trajectory", "show", str(runs), trial_id[:8], "--raw")
    assert raw.returncode == 0 and '"messages"' in raw.stdout
    missing = run_cli("trajectory", "show", str(runs), "nope")
    assert missing.returncode == 2
    assert "no finished trial 'nope'" in missing.stderr.replace("\n", " ")


def test_proxy_command_records_calls_to_a_log_dir(tmp_path: Path) -> None:
    import httpx

    from adhere.testing import PolicyServerConfig, ThreadedPolicyServer, load_scripts

    script = tmp_path / "hello.yaml"
    script.write_text("- text: hello there\n")
    server = ThreadedPolicyServer(PolicyServerConfig(scripts=load_scripts([script])))
    upstream = server.start()
    port = _free_port()
    logs = tmp_path / "logs"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "adhere.cli",
            "proxy",
            "--port",
            str(port),
            "--upstream",
            f"up={upstream},key-env=ADHERE_PROXY_TEST_KEY",
            "--log-dir",
            str(logs),
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**__import__("os").environ, "ADHERE_PROXY_TEST_KEY": "sk-proxyTest0123456789ABC"},
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{url}/healthz")
                break
            except httpx.TransportError:
                time.sleep(0.1)
        body = {"model": "script:hello", "messages": [{"role": "user", "content": "hi"}]}
        reply = httpx.post(f"{url}/t/trial-1/up/v1/chat/completions", json=body, timeout=10).json()
        assert reply["choices"][0]["message"]["content"] == "hello there"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        server.stop()
    lines = (logs / "trial-1" / "calls.jsonl").read_text().splitlines()
    assert len(lines) == 1 and "hello there" in lines[0]
    assert "sk-proxyTest0123456789ABC" not in lines[0]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
