"""A real agent CLI dies with ``adhere run``: SIGKILL and SIGTERM leave no CLI process.

As :mod:`tests.integration.test_kill_resume`, with Claude Code as the agent, in the
agent sandbox (the default): the CLI (a Node process) runs ``spawn.sh`` through its
own Bash tool, which starts a child and a daemon in a session of its own; the runner
is killed while two such commands wait. The sandbox shows an agent only its own
workspace and HOME, so the script lives in the instance's workspace and signals the
test there: instances ``i0`` and ``i1`` finish at once, ``i2`` and ``i3`` leave a
``waiting.*`` file in their workspace and wait for a ``go`` file beside it.
"""

import os
import signal
from pathlib import Path

from tests.e2e.pipeline.test_observed_runs import model, write_rollout, write_suite
from tests.helpers import run_cli, wait_until
from tests.integration.test_kill_resume import agent_processes, start, stop, work

__all__ = ["work"]  # the fixture that kills what a failed test leaves

SPAWN = """\
#!/bin/bash
# One agent command: a background child, a daemon in a session of its own, then
# (in the waiting instances) a mark in the workspace and a wait for ./go.
sleep 1000 &
setsid bash -c 'sleep 1000; true' </dev/null >/dev/null 2>&1 &
if [ "{wait}" = yes ]; then
  touch "waiting.$$"
  until [ -e go ]; do sleep 0.05; done
fi
echo "spawned"
"""


def setup(tmp_path: Path) -> tuple[Path, dict[str, str], Path]:
    (tmp_path / "work").mkdir()
    rows = [
        {
            "instance_id": f"i{n}",
            "user_query": [f"Task {n}: run the script."],
            "workspace": ["ws" if n < 2 else "ws-wait"],
        }
        for n in range(4)
    ]
    write_suite(tmp_path, rows, {"spawn.sh": SPAWN.format(wait="no")})
    (tmp_path / "ws-wait").mkdir()
    (tmp_path / "ws-wait" / "spawn.sh").write_text(SPAWN.format(wait="yes"))
    path = write_rollout(
        tmp_path,
        model("m", "agent:run,command=bash spawn.sh", api="anthropic"),
        "[claude-code]",
        parallelism=2,
    )
    env = {**os.environ, "ADHERE_WORK_DIR": str(tmp_path / "work"), "COLUMNS": "200"}
    return path, env, tmp_path / "runs" / "r" / "trials"


def markers(work: Path) -> dict[str, int]:
    """The ``waiting.*`` files in the trial workspaces → their modification times (ns)."""
    found = {}
    for directory, _, names in os.walk(work):  # (a workspace may vanish meanwhile)
        for name in names:
            if name.startswith("waiting."):
                path = os.path.join(directory, name)
                try:
                    found[path] = os.stat(path).st_mtime_ns
                except OSError:
                    continue
    return found


def new_markers(work: Path, before: dict[str, int]) -> int:
    """Agent commands that started waiting since ``before`` was taken.

    A killed run leaves its workspaces behind, and a later attempt of the same trial
    writes the same path again (the same pid inside its PID namespace).
    """
    return sum(before.get(path) != mtime for path, mtime in markers(work).items())


def test_a_killed_or_stopped_run_leaves_no_cli_process(
    tmp_path: Path, work: Path, scaffold_cache
) -> None:
    path, env, trials = setup(tmp_path)
    for sig in (signal.SIGKILL, signal.SIGTERM):
        before = markers(work)
        proc = start(path, env)
        try:
            wait_until(
                lambda before=before: new_markers(work, before) >= 2,
                f"2 agent commands waiting before {sig.name}",
                timeout=180,
            )
            assert agent_processes(work)  # the CLIs (and what they started) are running
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=60)
        finally:
            stop(proc)
        wait_until(lambda: not agent_processes(work), f"no CLI process after {sig.name}")
        if sig == signal.SIGTERM:
            assert proc.returncode == 143, err
    (tmp_path / "ws-wait" / "go").touch()  # the next copies of the workspace do not wait
    again = run_cli("run", str(path), "--quiet", "--no-report", "--allow-incomplete", env=env)
    assert again.returncode == 0, again.stderr
    assert "2 ran (2 ok, 0 failed), 2 already done" in again.stderr
    assert len([p for p in trials.rglob("result.json") if "attempt-" not in str(p)]) == 4
    assert not agent_processes(work)
