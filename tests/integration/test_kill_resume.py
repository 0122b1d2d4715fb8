"""Killing ``adhere run`` mid-trial (SIGKILL, SIGTERM): no agent process left, no attempt lost.

The agent is the reference scaffold driven by the scripted ``agent:run`` policy: its
one tool call runs ``spawn.sh``, which starts a background child and a daemon in a
session of its own (both would outlive a plain process-group kill), records their
pids, and — for every agent command after the first two — waits for the file ``go``.
So each kill lands at a point the test has seen happen (N commands waiting, M trials
finished), never after a sleep. Every process a trial starts has the trial's HOME
(under the test's ``ADHERE_WORK_DIR``) in its environment: that is how the test finds
any survivor, whatever its parent or session.
"""

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.pipeline.test_observed_runs import model, write_rollout, write_suite
from tests.helpers import ROOT, run_cli, wait_until

pytestmark = pytest.mark.timeout(900)  # room for every deadline below on a loaded machine

STOP_SECONDS = 180.0
"""Deadline for a stopped run, and its agents, to end: the run's own grace is far shorter,
but on a loaded machine its Python start and shutdown can take a minute."""

SPAWN = """\
#!/bin/bash
# One agent command: a background child, a daemon in its own session, then (after the
# first two commands of the test) wait for {go}.
echo $$ > {pids}/$$.pid
sleep 1000 &
echo $! > {pids}/$!.pid
setsid bash -c 'echo $$ > {pids}/$$.pid; sleep 1000; true' </dev/null >/dev/null 2>&1 &
slot=1
until mkdir {slots}/$slot 2>/dev/null; do slot=$((slot + 1)); done
if [ "$slot" -gt 2 ]; then
  touch {waiting}/$$
  until [ -e {go} ]; do sleep 0.05; done
fi
echo "spawned in slot $slot"
"""


def agent_processes(work: Path) -> list[int]:
    """Live processes whose environment holds a trial HOME under ``work``."""
    needle = f"HOME={work}/".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
        except OSError:
            continue
        if needle in environ:
            found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def setup(
    tmp_path: Path, scaffold: str = "reference", api: str = "openai"
) -> tuple[Path, dict[str, str], Path]:
    for name in ("pids", "slots", "waiting", "work"):
        (tmp_path / name).mkdir()
    script = tmp_path / "spawn.sh"
    script.write_text(
        SPAWN.format(
            pids=tmp_path / "pids",
            slots=tmp_path / "slots",
            waiting=tmp_path / "waiting",
            go=tmp_path / "go",
        )
    )
    rows = [
        {"instance_id": f"i{n}", "user_query": [f"Task {n}: run the script."]} for n in range(4)
    ]
    write_suite(tmp_path, rows, {"README.md": "# demo\n"})
    path = write_rollout(
        tmp_path,
        model("m", f"agent:run,command=bash {script}", api=api),
        f"[{scaffold}]",
        parallelism=2,
    )
    # The agent commands share directories outside their workspaces with this test, so
    # they run unconfined: what is checked here is the runner's handling of signals and
    # attempts; the same with the agent sandbox on is test_kill_real_cli.py (e2e).
    path.write_text(path.read_text() + '  sandbox: "off"\n')
    env = {**os.environ, "ADHERE_WORK_DIR": str(tmp_path / "work"), "COLUMNS": "200"}
    return path, env, tmp_path / "runs" / "r" / "trials"


def start(path: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "adhere.cli", "run", str(path), "--quiet", "--no-report"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def stop(proc: subprocess.Popen[str]) -> None:
    """Kill a run the test did not end (a failed wait), so nothing outlives the test."""
    if proc.poll() is None:
        proc.kill()
        proc.communicate(timeout=STOP_SECONDS)


def results(trials: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in trials.rglob("result.json") if "attempt-" not in str(p)}


@pytest.fixture
def work(tmp_path: Path) -> Iterator[Path]:
    """The runs' ``ADHERE_WORK_DIR``; survivors of a failed test are killed after it."""
    yield tmp_path / "work"
    for pid in agent_processes(tmp_path / "work"):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_killed_and_stopped_runs_leave_no_agent_and_lose_no_attempt(
    tmp_path: Path, work: Path
) -> None:
    path, env, trials = setup(tmp_path)
    waiting = tmp_path / "waiting"

    def stop_when_waiting(sig: signal.Signals, count: int) -> subprocess.CompletedProcess[str]:
        before = len(list(waiting.iterdir()))
        proc = start(path, env)
        try:
            wait_until(
                lambda: len(list(waiting.iterdir())) >= before + count,
                f"{count} agent command(s) waiting before {sig.name}",
            )
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=STOP_SECONDS)
        finally:
            stop(proc)
        wait_until(
            lambda: not agent_processes(work),
            f"no agent process after {sig.name}",
            timeout=STOP_SECONDS,
        )
        return subprocess.CompletedProcess(proc.args, proc.returncode, "", err)

    # 1. SIGTERM with 2 trials finished and 2 waiting in their agent's command.
    first = stop_when_waiting(signal.SIGTERM, 2)
    assert first.returncode == 143, first.stderr
    assert "SIGTERM" in first.stderr and "resume" in first.stderr
    finished = results(trials)
    assert len(finished) == 2
    progress = json.loads((tmp_path / "runs" / "r" / "progress.json").read_text())
    assert progress["phase"] == "interrupted" and progress["running"] == 0
    assert len(progress["interrupted"]) == 2
    marked = sorted(trials.rglob("interrupted.json"))
    assert len(marked) == 2
    assert all(json.loads(p.read_text())["attempt"] == 1 for p in marked)
    assert all((p.parent / "calls.jsonl").is_file() for p in marked)  # paid-for calls kept

    # 2. SIGKILL with both left trials waiting again (their attempt 2).
    proc = start(path, env)
    try:
        wait_until(lambda: len(list(waiting.iterdir())) >= 4, "2 more agent commands waiting")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=STOP_SECONDS)
    wait_until(
        lambda: not agent_processes(work), "no agent process after SIGKILL", timeout=STOP_SECONDS
    )

    # 3. SIGTERM once more (attempt 2 again: the killed one left nothing to keep).
    third = stop_when_waiting(signal.SIGTERM, 2)
    assert third.returncode == 143, third.stderr

    # 4. Resume with the agents let go: everything finishes, nothing runs twice.
    (tmp_path / "go").touch()
    again = run_cli("run", str(path), "--quiet", "--no-report", "--allow-incomplete", env=env)
    assert again.returncode == 0, again.stderr
    assert "2 ran (2 ok, 0 failed), 2 already done" in again.stderr
    final = results(trials)
    assert len(final) == 4
    for p, content in finished.items():
        assert final[p] == content  # finished trials were not run again
    ids = [json.loads(c)["trial_id"] for c in final.values()]
    assert len(set(ids)) == 4
    resumed = [p for p in final if p not in finished]
    assert [json.loads(final[p])["attempt"] for p in resumed] == [3, 3]
    for result in resumed:
        trial_dir = result.parent
        kept = sorted(d.name for d in trial_dir.iterdir() if d.is_dir())
        assert kept == ["attempt-1", "attempt-2"]
        for attempt in kept:
            assert (trial_dir / attempt / "interrupted.json").is_file()
            assert (trial_dir / attempt / "calls.jsonl").is_file()
    assert not list(trials.rglob(".*.tmp"))
    # Every process any agent command started, in every run, is gone.
    pids = [int(p.stem) for p in (tmp_path / "pids").iterdir()]
    assert len(pids) >= 2 * 10  # 10 agent commands: 4, then 2 in each later run
    survivors = agent_processes(work)
    assert not survivors
    assert not [pid for pid in pids if alive(pid) and pid in survivors]


def test_a_pod_trial_stopped_by_sigterm_keeps_its_attempt(tmp_path: Path, work: Path) -> None:
    """``adhere trial run`` (a trial pod) handles SIGTERM like ``adhere run``."""
    from adhere.runner import prepare
    from adhere.spec import load_run_config

    path, env, trials = setup(tmp_path)
    for slot in ("1", "2"):  # so that this pod's agent command waits
        (tmp_path / "slots" / slot).mkdir()
    prepared = prepare(load_run_config([path]))  # the snapshot the operator writes
    trial = prepared.trials[0]
    args = ["trial", "run", "--rollout-uri", prepared.store.uri, "--trial", trial.id]
    proc = subprocess.Popen(
        [sys.executable, "-m", "adhere.cli", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until(lambda: any((tmp_path / "waiting").iterdir()), "the agent command waiting")
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=STOP_SECONDS)
    finally:
        stop(proc)
    assert proc.returncode == 143, err
    wait_until(
        lambda: not agent_processes(work), "no agent process after SIGTERM", timeout=STOP_SECONDS
    )
    assert prepared.store.read_result(trial) is None
    assert prepared.store.read_interrupted(trial) == 1
    (tmp_path / "go").touch()
    again = run_cli(*args, env=env)
    assert again.returncode == 0, again.stderr
    assert "attempt 2: ok" in again.stderr
    assert prepared.store.archived_attempts(trial) == [1]
    assert prepared.store.store.exists(prepared.store.trial_key(trial, "attempt-1/calls.jsonl"))
