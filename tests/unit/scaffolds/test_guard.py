"""The guard an agent process runs under: nothing it starts outlives it or the runner."""

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from adhere.scaffolds._process import run_process
from tests.helpers import ROOT, wait_until

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux guard")

# A child in the background, and a grandchild that leaves the session (a daemon).
SPAWN = (
    "sleep 1000 & echo $! > {d}/child.pid; "
    "setsid bash -c 'echo $$ > {d}/daemon.pid; sleep 1000; true' </dev/null >/dev/null 2>&1 & "
    "until [ -s {d}/daemon.pid ]; do sleep 0.01; done; "
    "echo $$ > {d}/leader.pid; {tail}"
)


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def pids(folder: Path) -> list[int]:
    return [int(p.read_text()) for p in sorted(folder.glob("*.pid")) if p.read_text().strip()]


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    for pid in pids(tmp_path):  # what a failed test left behind
        if alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def run(command: str, folder: Path, timeout: float = 30.0):
    return asyncio.run(
        run_process(
            ["/bin/bash", "-c", command],
            cwd=folder,
            env={"PATH": "/usr/bin:/bin"},
            timeout=timeout,
            log_prefix=folder / "log",
        )
    )


def test_what_the_program_left_running_is_ended_when_it_exits(folder: Path) -> None:
    done = run(SPAWN.format(d=folder, tail="exit 3"), folder)
    assert done.outcome.exit_code == 3
    assert len(pids(folder)) == 3
    assert not [pid for pid in pids(folder) if alive(pid)]


def test_a_program_killed_by_a_signal_reports_it_as_without_a_guard(folder: Path) -> None:
    done = run("kill -KILL $$", folder)
    assert done.outcome.exit_code == -signal.SIGKILL


def test_a_timeout_ends_the_daemon_too(folder: Path) -> None:
    done = run(SPAWN.format(d=folder, tail="sleep 1000"), folder, timeout=1.0)
    assert done.outcome.timed_out
    assert not [pid for pid in pids(folder) if alive(pid)]


def test_a_missing_program_is_an_os_error(folder: Path) -> None:
    with pytest.raises(FileNotFoundError):
        asyncio.run(
            run_process(
                ["no-such-program-adhere"],
                cwd=folder,
                env={"PATH": "/usr/bin:/bin"},
                timeout=5,
                log_prefix=folder / "log",
            )
        )


def test_a_runner_killed_with_sigkill_takes_its_agents_along(folder: Path) -> None:
    runner = textwrap.dedent(
        f"""
        import asyncio, pathlib
        from adhere.scaffolds._process import run_process
        d = pathlib.Path({str(folder)!r})
        asyncio.run(run_process(["/bin/bash", "-c", {SPAWN.format(d=folder, tail="sleep 1000")!r}],
            cwd=d, env={{"PATH": "/usr/bin:/bin"}}, timeout=600, log_prefix=d / "log"))
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", runner], cwd=ROOT)
    try:
        wait_until(lambda: len(pids(folder)) == 3, "the agent and its children to start")
    finally:
        proc.kill()
        proc.wait()
    started = pids(folder)
    wait_until(
        lambda: not [pid for pid in started if alive(pid)], "the agent processes to end", timeout=20
    )


def test_the_program_gets_default_signal_dispositions(folder: Path) -> None:
    """Python ignores SIGPIPE; the program must not inherit that from the guard."""
    done = run("yes | head -n 1 >/dev/null; echo ${PIPESTATUS[0]}", folder)
    assert done.stdout.strip() == str(128 + signal.SIGPIPE)  # killed by SIGPIPE, as usual
