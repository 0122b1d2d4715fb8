"""The sandbox's policy decisions, without starting a process: isolation, command line,
uid, resource limits, environment, file paths, output caps and summaries."""

import asyncio
import dataclasses
import resource
import signal

import pytest

from adhere.sandbox import Limits, RunResult, SandboxError, summarize
from adhere.sandbox._classify import classify
from adhere.sandbox._plan import BOOTSTRAP, Host, bwrap_prefix, plan_run, resolve_isolation
from adhere.sandbox._plan import environment as _environment
from adhere.sandbox._plan import rlimits as _rlimits
from adhere.sandbox._plan import safe_path as _safe_path
from adhere.sandbox._process import _Capped

MIB = 1024 * 1024


class Asked:
    """A ``can_run_as`` probe that answers ``works`` and remembers who asked."""

    def __init__(self, works: bool) -> None:
        self.works = works
        self.asked: list[tuple[str, int, bool]] = []

    def __call__(self, python: str, uid: int, wrapped: bool) -> bool:
        self.asked.append((python, uid, wrapped))
        return self.works


UNSHARE = Host(unshare="/usr/bin/unshare", unshare_net=True, unshare_pid=True)
BWRAP = dataclasses.replace(UNSHARE, bwrap="/usr/bin/bwrap", bwrap_net=True)
HARNESS = ["/py/bin/python", "-s", "-c", BOOTSTRAP, "7", "9"]


def plan(limits=None, *, host=UNSHARE, root=False, works=True, paths=()):
    probe = Asked(works)
    planned = plan_run(
        "/py/bin/python",
        limits or Limits(),
        (7, 9),
        host=host,
        workdir="/tmp/adhere-sandbox-x",
        is_root=root,
        can_run_as=probe,
        interpreter_paths=paths,
    )
    return planned, probe


def test_without_bwrap_a_namespace_run_is_wrapped_in_unshare_with_a_fresh_proc() -> None:
    planned, _ = plan()
    assert (planned.isolation, planned.namespaces) == ("netns", True)
    assert planned.argv == [
        "/usr/bin/unshare", "--net", "--pid", "--fork", "--kill-child", "--mount-proc", "--",
        *HARNESS,
    ]  # fmt: skip
    planned, _ = plan(host=Host(unshare="/usr/bin/unshare", unshare_net=True))
    assert planned.argv == ["/usr/bin/unshare", "--net", "--", *HARNESS]
    assert not planned.namespaces


def test_with_bwrap_netns_and_guard_runs_get_namespaces_guard_keeps_the_network() -> None:
    netns, _ = plan(host=BWRAP)
    guard, _ = plan(Limits(isolation="guard"), host=BWRAP)
    assert netns.argv[0] == guard.argv[0] == "/usr/bin/bwrap"
    assert netns.argv[-len(HARNESS) - 1 :] == ["--", *HARNESS]
    assert "--unshare-net" in netns.argv and "--unshare-net" not in guard.argv
    for planned in (netns, guard):
        assert planned.namespaces
        for option in ("--unshare-pid", "--as-pid-1", "--die-with-parent"):
            assert option in planned.argv
        text = " ".join(planned.argv)
        assert "--ro-bind / /" in text and "--proc /proc" in text and "--dev /dev" in text
        assert "--tmpfs /tmp" in text and "--tmpfs /dev/shm" in text
        assert "--bind /tmp/adhere-sandbox-x /tmp/adhere-sandbox-x" in text
    network, _ = plan(Limits(network=True), host=BWRAP)
    assert (network.isolation, network.argv, network.namespaces) == ("none", HARNESS, False)


def test_without_namespaces_or_with_the_network_allowed_the_harness_runs_directly() -> None:
    planned, _ = plan(host=Host())
    assert (planned.isolation, planned.argv) == ("guard", HARNESS)
    planned, _ = plan(Limits(network=True))
    assert (planned.isolation, planned.argv) == ("none", HARNESS)
    planned, _ = plan(Limits(isolation="guard"))
    assert (planned.isolation, planned.argv) == ("guard", HARNESS)


def test_root_drops_to_the_unprivileged_uid_only_when_the_interpreter_works_for_it() -> None:
    planned, probe = plan(root=True)
    assert planned.uid == 65534 and probe.asked == [("/py/bin/python", 65534, False)]
    planned, probe = plan(root=True, host=BWRAP)
    assert planned.uid == 65534 and probe.asked == [("/py/bin/python", 65534, True)]
    assert planned.argv[planned.argv.index("--cap-drop") :][:6] == [
        "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"
    ]  # fmt: skip
    planned, probe = plan(root=True, works=False, host=BWRAP)
    assert planned.uid is None and probe.asked == [("/py/bin/python", 65534, True)]
    assert "CAP_SETUID" not in planned.argv and "--cap-drop" in planned.argv  # root, no caps
    planned, probe = plan(Limits(unprivileged_uid=None), root=True)
    assert planned.uid is None and probe.asked == []
    planned, probe = plan(root=False)
    assert planned.uid is None and probe.asked == []  # not root: nothing to drop, no probe


def test_homes_are_hidden_and_the_interpreters_directories_bound_back(tmp_path) -> None:
    home = tmp_path / "home"
    (home / "me" / ".pyenv" / "3.11" / "lib").mkdir(parents=True)
    argv = bwrap_prefix(
        "/usr/bin/bwrap",
        "/tmp/run",
        net=True,
        is_root=False,
        drop=False,
        interpreter_paths=[f"{home}/me/.pyenv/3.11", f"{home}/me/.pyenv/3.11/lib", "/usr/lib"],
        hidden=[str(home), str(tmp_path / "absent")],
    )
    text = " ".join(argv)
    assert f"--tmpfs {home}" in text and "absent" not in text
    assert text.count("--ro-bind") == 2  # the root, and the interpreter's prefix once
    assert f"--ro-bind {home}/me/.pyenv/3.11 {home}/me/.pyenv/3.11" in text
    for parent in (f"{home}/me", f"{home}/me/.pyenv"):
        assert f"--perms 0755 --dir {parent} " in text  # traversable by the dropped uid
    assert "--cap-drop" not in argv  # not root: bubblewrap keeps no capabilities anyway


def test_the_isolation_override_applies_to_auto_only(monkeypatch) -> None:
    monkeypatch.setenv("ADHERE_SANDBOX_ISOLATION", "netns")
    with pytest.raises(SandboxError, match="'netns' was required, but neither"):
        resolve_isolation(Limits(), netns_available=False)
    assert resolve_isolation(Limits(isolation="guard"), netns_available=True) == "guard"
    monkeypatch.setenv("ADHERE_SANDBOX_ISOLATION", " auto ")
    assert resolve_isolation(Limits(), netns_available=False) == "guard"
    monkeypatch.setenv("ADHERE_SANDBOX_ISOLATION", "chroot")
    with pytest.raises(SandboxError, match="must be auto, netns or guard, got 'chroot'"):
        resolve_isolation(Limits(), netns_available=True)
    # An allowed network needs no isolation, whatever the environment says.
    assert resolve_isolation(Limits(network=True), netns_available=True) == "none"


def test_resource_limits_follow_the_limits() -> None:
    limits = Limits(timeout=2.5, memory_mb=256, file_size_mb=8, processes=16)
    assert _rlimits(limits, apply_nproc=False) == [
        (resource.RLIMIT_AS, 256 * MIB, 256 * MIB),
        (resource.RLIMIT_CPU, 3, 4),  # soft: SIGXCPU; hard one second later: SIGKILL
        (resource.RLIMIT_CORE, 0, 0),
        (resource.RLIMIT_FSIZE, 8 * MIB, 8 * MIB),
    ]
    assert _rlimits(limits, apply_nproc=True)[-1] == (resource.RLIMIT_NPROC, 16, 16)


def test_the_environment_is_minimal_and_rooted_in_the_sandbox(tmp_path) -> None:
    env = _environment(tmp_path, "/opt/py/bin/python3")
    assert env["PATH"] == "/opt/py/bin:/usr/local/bin:/usr/bin:/bin"
    assert env["HOME"] == env["TMPDIR"] == str(tmp_path)
    assert env["PYTHONHASHSEED"] == "0" and env["PYTHONDONTWRITEBYTECODE"] == "1"
    assert env["LANG"] == "C.UTF-8" and env["OMP_NUM_THREADS"] == "1"
    assert _environment(tmp_path, "python3")["PATH"] == "/usr/local/bin:/usr/bin:/bin"
    assert not any("KEY" in name or "TOKEN" in name for name in env)


@pytest.mark.parametrize("path", ["", "/etc/passwd", "../up", "a/../../up", "..", ".", "a/.."])
def test_files_outside_the_sandbox_directory_are_refused(path) -> None:
    with pytest.raises(ValueError, match="must be a relative path inside the directory"):
        _safe_path(path)


def test_file_paths_inside_are_normalized() -> None:
    assert _safe_path("pkg/./mod.py") == "pkg/mod.py"
    assert _safe_path("pkg\\sub\\mod.py") == "pkg/sub/mod.py"
    assert _safe_path("a/b/../c.txt") == "a/c.txt"


async def test_output_beyond_the_cap_is_dropped_and_counted() -> None:
    stream = asyncio.StreamReader()
    stream.feed_data(b"abcdef")
    stream.feed_data(b"ghij")
    stream.feed_eof()
    capped = _Capped(4)
    await capped.read(stream)
    assert capped.text() == "abcd\n[adhere sandbox: output truncated, 6 more bytes]\n"
    whole = _Capped(100)
    stream = asyncio.StreamReader()
    stream.feed_data("héllo".encode())
    stream.feed_eof()
    await whole.read(stream)
    assert whole.text() == "héllo"
    await whole.read(None)  # no stream: nothing read
    assert whole.total == len("héllo".encode())


def decide(mode="asserts", *, returncode=0, records=(), seconds=0.1):
    decision = classify(
        mode, timed_out=False, timeout=5, returncode=returncode, records=list(records),
        cpu_limit=5, seconds=seconds,
    )  # fmt: skip
    return decision.status, decision.detail


def test_a_file_too_large_is_a_crash_naming_the_limit() -> None:
    assert decide(returncode=-signal.SIGXFSZ) == (
        "crash",
        "killed by SIGXFSZ (file size limit exceeded)",
    )


def test_the_wall_clock_limit_is_named_in_a_timeout() -> None:
    decision = classify(
        "script", timed_out=True, timeout=2.5, returncode=None, records=[], cpu_limit=3
    )
    assert (decision.status, decision.detail) == (
        "timeout",
        "wall-clock limit of 2.5 s exceeded; process group killed",
    )


def test_the_cpu_hard_limit_reported_by_the_init_is_a_timeout() -> None:
    init = [{"signal": int(signal.SIGKILL), "cpu": 5.0}]  # exactly the soft limit's worth
    assert decide(returncode=137, records=init) == (
        "timeout",
        "CPU hard limit of 6 s exceeded (SIGKILL)",
    )
    guessed = decide(returncode=-9, seconds=6.0)  # no init: 6 s is the hard limit's worth
    assert guessed == ("timeout", "killed by SIGKILL after 6.0 s, most likely the CPU hard limit")


def test_a_script_that_printed_pass_but_exited_nonzero_failed() -> None:
    passed = [{"status": "pass", "detail": ""}]
    assert decide("script", returncode=3, records=passed) == (
        "fail",
        "exit status 3 after the program ended",
    )
    failed = [{"status": "fail", "detail": "AssertionError"}]
    assert decide("script", returncode=0, records=failed) == ("pass", "")
    assert decide("asserts", returncode=1, records=failed) == ("fail", "AssertionError")


def test_an_unknown_harness_outcome_is_a_crash_and_the_last_outcome_counts() -> None:
    assert decide(records=[{"status": "weird", "detail": ""}]) == (
        "crash",
        "harness: unknown outcome 'weird'",
    )
    records = [{"status": "fail", "detail": "first"}, {"status": "pass", "detail": "2 passed"}]
    assert decide(records=records) == ("pass", "2 passed")
    assert decide("unittest", returncode=4, records=[]) == ("crash", "exit status 4")


def result(status: str, seconds: float, detail: str = "") -> RunResult:
    return RunResult(status=status, stdout="", stderr="", returncode=0, seconds=seconds,
                     detail=detail, isolation="guard")  # fmt: skip


def test_several_cases_sum_up_as_the_first_failure_or_one_pass() -> None:
    cases = [result("pass", 0.5), result("fail", 0.25, "line 1"), result("crash", 1)]
    assert summarize(cases) == cases[1]
    passed = summarize([result("pass", 0.5), result("pass", 0.25)])
    assert (passed.status, passed.seconds, passed.detail) == ("pass", 0.75, "2 cases passed")
    assert summarize([result("pass", 0.1)]).detail == "1 case passed"
    with pytest.raises(ValueError, match="at least one result"):
        summarize([])
