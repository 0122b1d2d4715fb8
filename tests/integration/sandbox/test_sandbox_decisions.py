"""The pure parts: exported names, limits, status decisions, stdout comparison; one signal run."""

import shutil
import signal
import subprocess
import tempfile

import pytest

import adhere.sandbox
from adhere.sandbox import (
    Limits,
    SandboxError,
    compare_output,
    normalize_output,
    run_python,
    sandbox_info,
)
from adhere.sandbox._classify import classify, parse_records
from adhere.sandbox._plan import resolve_isolation


def test_exported_names():
    assert adhere.sandbox.__all__ == [
        "AssertsJob",
        "EnvError",
        "Environment",
        "ISOLATION_ENV",
        "Isolation",
        "Job",
        "Limits",
        "PythonJob",
        "RunResult",
        "SandboxError",
        "SandboxInfo",
        "Status",
        "UnittestJob",
        "compare_output",
        "env_home",
        "install_environment",
        "normalize_output",
        "run_asserts",
        "run_io",
        "run_job",
        "run_many",
        "run_many_sync",
        "run_python",
        "run_sync",
        "run_unittest",
        "sandbox_info",
        "summarize",
    ]


def test_limits():
    assert Limits(timeout=2.5).cpu_seconds == 3
    assert Limits(timeout=30, cpu=0.2).cpu_seconds == 1
    for bad in ({"memory_mb": 8}, {"processes": 0}, {"isolation": "chroot"}, {"cpu": -1}):
        with pytest.raises(ValueError):
            Limits(**bad)


def test_resolve_isolation(monkeypatch):
    monkeypatch.delenv("ADHERE_SANDBOX_ISOLATION", raising=False)
    assert resolve_isolation(Limits(), netns_available=True) == "netns"
    assert resolve_isolation(Limits(), netns_available=False) == "guard"
    assert resolve_isolation(Limits(isolation="guard"), netns_available=True) == "guard"
    assert resolve_isolation(Limits(network=True), netns_available=True) == "none"
    with pytest.raises(SandboxError, match="netns"):
        resolve_isolation(Limits(isolation="netns"), netns_available=False)
    monkeypatch.setenv("ADHERE_SANDBOX_ISOLATION", "guard")
    assert resolve_isolation(Limits(), netns_available=True) == "guard"


def decide(mode="asserts", *, returncode=0, records=(), timed_out=False, stderr="", seconds=0.1):
    decision = classify(
        mode,
        timed_out=timed_out,
        timeout=5,
        returncode=returncode,
        records=list(records),
        cpu_limit=5,
        stderr=stderr,
        seconds=seconds,
    )
    return decision.status, decision.detail


def test_decisions():
    passed = {"status": "pass", "detail": "3 passed"}
    assert decide(records=[passed]) == ("pass", "3 passed")
    assert decide(timed_out=True, returncode=-9)[0] == "timeout"
    assert decide(returncode=0) == ("crash", "exited with status 0 before the tests ended")
    assert decide("script", returncode=0) == ("pass", "")
    assert decide("script", returncode=2, stderr="x\nusage: bad\n") == (
        "fail",
        "exit status 2: usage: bad",
    )
    assert decide(returncode=1, records=[passed]) == (
        "crash",
        "exit status 1 after the tests passed",
    )
    assert decide(returncode=-signal.SIGXCPU) == ("timeout", "CPU limit of 5 s exceeded (SIGXCPU)")
    assert decide(returncode=-signal.SIGSEGV) == ("crash", "killed by SIGSEGV")
    # the PID-1 init reports the worker's signal and CPU time
    init = [{"signal": int(signal.SIGKILL), "cpu": 6.0}]
    assert decide(returncode=137, records=init)[0] == "timeout"
    init = [{"signal": int(signal.SIGKILL), "cpu": 0.1}]
    assert decide(returncode=137, records=init) == ("crash", "killed by SIGKILL")
    # without an init (guard mode), a SIGKILL after the hard CPU limit's worth of time
    assert decide(returncode=-9, seconds=6.5)[0] == "timeout"
    assert decide(returncode=-9, seconds=1.0) == ("crash", "killed by SIGKILL")
    assert parse_records(b"status\tfail\tx\nnonsense\nsignal\tnine\t1\nexit\t3\t0.5\n") == [
        {"status": "fail", "detail": "x"},
        {"exit": 3, "cpu": 0.5},
    ]


def test_output_comparison():
    assert normalize_output("  a   b \r\n\tc\n\n\n") == ["a b", "c"]
    assert compare_output("1 2\n3\n", "1  2 \n3") is None
    assert compare_output("1\n2\n", "1\n3\n") == "line 2: expected '2', got '3'"
    assert compare_output("1\n2\n", "1\n") == "expected 2 lines, got 1"
    assert compare_output("", "\n\n") is None


@pytest.mark.parametrize("isolation", ["netns", "guard"])
async def test_death_by_signal_is_a_crash(isolation, netns):
    if isolation == "netns" and not netns:
        pytest.skip("unshare --net does not work here")
    code = "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"
    result = await run_python(code, limits=Limits(isolation=isolation))
    assert (result.status, result.detail) == ("crash", "killed by SIGSEGV"), result


def test_probe_agrees_with_the_tools(netns):
    """The netns tests' skip is honest: the probe finds namespaces exactly when they work."""
    bwrap, unshare = shutil.which("bwrap"), shutil.which("unshare")

    def works(argv):
        return subprocess.run(argv, capture_output=True, check=False).returncode == 0

    with tempfile.TemporaryDirectory() as work:
        via_bwrap = bwrap is not None and works(
            [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind",
             work, work, "--unshare-pid", "--unshare-net", "--", "true"]
        )  # fmt: skip
    via_unshare = unshare is not None and works([unshare, "--net", "--", "true"])
    assert netns == (via_bwrap or via_unshare)
    assert (sandbox_info().bwrap is not None) == (bwrap is not None and via_bwrap)
