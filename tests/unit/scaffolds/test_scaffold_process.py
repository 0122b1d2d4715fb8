"""Running one invocation: outputs, stdin, exit codes, and killing the whole group on timeout."""

import os
import time

from adhere.scaffolds._process import run_process, tail

ENV = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}


async def test_exit_code_output_and_stdin(tmp_path):
    done = await run_process(
        ["/bin/sh", "-c", "cat; echo oops >&2; exit 3"],
        cwd=tmp_path,
        env=ENV,
        timeout=10,
        log_prefix=tmp_path / "logs" / "t0",
        stdin="hello from stdin",
    )
    assert done.stdout == "hello from stdin"
    assert done.outcome.exit_code == 3
    assert done.outcome.stdout_tail == "hello from stdin"
    assert done.outcome.stderr_tail == "oops\n"
    assert not done.outcome.timed_out
    assert (tmp_path / "logs" / "t0.stdout").read_text() == "hello from stdin"


async def test_runs_in_cwd_with_exactly_the_given_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ADHERE_PARENT_ONLY", "1")
    done = await run_process(
        ["/bin/sh", "-c", "pwd; env | sort"],
        cwd=tmp_path,
        env=ENV,
        timeout=10,
        log_prefix=tmp_path / "log",
    )
    lines = done.stdout.splitlines()
    assert lines[0] == str(tmp_path)
    names = {line.split("=", 1)[0] for line in lines[1:]}
    assert "ADHERE_PARENT_ONLY" not in names
    assert {"PATH", "HOME"} <= names
    assert names <= {"PATH", "HOME", "PWD", "SHLVL", "_", "OLDPWD"}


async def test_timeout_kills_the_whole_process_group(tmp_path):
    pids = tmp_path / "pids"
    script = f"sleep 60 & echo $! > {pids}; echo $$ >> {pids}; sleep 60"
    started = time.monotonic()
    done = await run_process(
        ["/bin/sh", "-c", script], cwd=tmp_path, env=ENV, timeout=1, log_prefix=tmp_path / "log"
    )
    assert time.monotonic() - started < 8
    assert done.outcome.timed_out
    assert done.outcome.exit_code is None
    for pid in map(int, pids.read_text().split()):
        assert gone_soon(pid), pid


async def test_children_left_behind_after_a_normal_exit_are_killed(tmp_path):
    pids = tmp_path / "pids"
    done = await run_process(
        ["/bin/sh", "-c", f"sleep 60 >/dev/null 2>&1 & echo $! > {pids}; exit 0"],
        cwd=tmp_path,
        env=ENV,
        timeout=10,
        log_prefix=tmp_path / "log",
    )
    assert done.outcome.exit_code == 0
    assert gone_soon(int(pids.read_text()))


def test_tail_keeps_the_end():
    assert tail("abc", 5) == "abc"
    assert tail("abcdefgh", 3) == "[…]fgh"


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"  # a zombie is dead, only not yet reaped by its parent


def gone_soon(pid: int, within: float = 5.0) -> bool:
    """Signals land asynchronously: wait a little for the process to die."""
    deadline = time.monotonic() + within
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def test_alive_helper_sees_this_process():
    assert alive(os.getpid())
