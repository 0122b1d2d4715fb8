"""A real agent CLI dies with ``adhere run``: SIGKILL and SIGTERM leave no CLI process.

As :mod:`tests.integration.test_kill_resume`, with Claude Code as the agent: the CLI
(a Node process) runs ``spawn.sh`` through its own Bash tool, which starts a child
and a daemon in a session of its own; the runner is killed while two such commands
wait.
"""

import signal
from pathlib import Path

from tests.helpers import run_cli, wait_until
from tests.integration.test_kill_resume import agent_processes, setup, start, stop, work

__all__ = ["work"]  # the fixture that kills what a failed test leaves


def test_a_killed_or_stopped_run_leaves_no_cli_process(
    tmp_path: Path, work: Path, scaffold_cache
) -> None:
    path, env, trials = setup(tmp_path, "claude-code", "anthropic")
    waiting = tmp_path / "waiting"
    for n, sig in enumerate((signal.SIGKILL, signal.SIGTERM), start=1):
        proc = start(path, env)
        try:
            wait_until(
                lambda n=n: len(list(waiting.iterdir())) >= 2 * n,
                f"2 agent commands waiting before {sig.name}",
                timeout=120,
            )
            assert agent_processes(work)  # the CLIs (and what they started) are running
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=60)
        finally:
            stop(proc)
        wait_until(lambda: not agent_processes(work), f"no CLI process after {sig.name}")
        if sig == signal.SIGTERM:
            assert proc.returncode == 143, err
    (tmp_path / "go").touch()
    again = run_cli("run", str(path), "--quiet", "--no-report", "--allow-incomplete", env=env)
    assert again.returncode == 0, again.stderr
    assert "2 ran (2 ok, 0 failed), 2 already done" in again.stderr
    assert len([p for p in trials.rglob("result.json") if "attempt-" not in str(p)]) == 4
    assert not agent_processes(work)
