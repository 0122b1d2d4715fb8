"""``bash scripts/mutation.sh`` stopped by a signal removes its temporary copy of the
repository and leaves no worker or pytest child behind.

The run is stopped while a pytest child of its worker runs (the first baseline), the
moment a stop costs the most to clean up: Ctrl-C at a terminal (SIGINT to the whole
process group, so the worker gets it too), ``kill`` (SIGTERM to the driver only) and a
closed terminal (SIGHUP to the driver only).
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scripts.mutation.__main__ import ROOT

MODULE = "adhere/suites/manyih/_check_names.py"
DEADLINE = 240.0  # copying the repository and starting pytest on a loaded machine


def _processes_naming(text: str) -> list[str]:
    """``pid: cmdline`` of every process whose command line contains ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if text in cmdline:
            found.append(f"{entry.name}: {cmdline}")
    return found


def _wait_for(what: str, ready, proc: subprocess.Popen[bytes], deadline: float) -> None:
    while not ready():
        if proc.poll() is not None:
            pytest.fail(f"the mutation run exited ({proc.returncode}) before {what}")
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} within {DEADLINE:.0f} s")
        time.sleep(0.2)


def _default_dispositions() -> None:
    """The run starts as from a terminal, whatever this test inherited (a background
    CI job hands its children SIGINT ignored, nohup SIGHUP)."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


@pytest.mark.parametrize(
    ("signum", "whole_group", "times"),
    [
        (signal.SIGINT, True, 1),
        (signal.SIGINT, True, 2),  # an impatient second Ctrl-C, during the clean-up
        (signal.SIGTERM, False, 1),
        (signal.SIGHUP, False, 1),
    ],
    ids=["ctrl-c", "ctrl-c-twice", "kill", "hangup"],
)
def test_a_stopped_run_removes_its_copy_and_its_processes(
    tmp_path: Path, signum: signal.Signals, whole_group: bool, times: int
) -> None:
    env = dict(os.environ, TMPDIR=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "scripts.mutation", MODULE],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=_default_dispositions,
    )
    try:
        deadline = time.monotonic() + DEADLINE
        _wait_for("temporary copy", lambda: any(tmp_path.glob("adhere-mutation-*")), proc, deadline)
        work = next(tmp_path.glob("adhere-mutation-*"))
        # child.out is written by the worker's pytest child as it starts.
        _wait_for("pytest child", (work / "child.out").exists, proc, deadline)
        assert _processes_naming(str(work)), "the worker should be running"
        for _ in range(times):
            if proc.poll() is not None:
                break
            if whole_group:
                assert os.getpgid(proc.pid) == proc.pid  # its own group: nothing else gets it
                os.killpg(proc.pid, signum)
            else:
                proc.send_signal(signum)
            time.sleep(0.05)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    message = err.decode(errors="replace")
    assert proc.returncode == 128 + signum, message
    assert f"stopped by {signum.name}; the temporary copy is removed" in message
    assert list(tmp_path.iterdir()) == [], "the temporary copy is left behind"
    # The worker and its pytest child are gone with the copy (none names its path).
    deadline = time.monotonic() + 10
    while _processes_naming(str(work)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _processes_naming(str(work)) == []
