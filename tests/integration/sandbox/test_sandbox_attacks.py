"""Attacks from sandboxed code on the evaluator and the host, in each isolation mode.

Each attack runs in an evaluator of its own (a child Python process started with a
planted key in its environment), so an attack that kills the evaluator kills that
child, not the test run. ``EXPECTED`` is the table in docs/sandbox.md ("What each mode
blocks"): every cell is measured here.

Modes: ``netns`` and ``guard`` with the project's interpreter (the default, which
lives under root's private home here); ``bare`` is the guard on a host where no
namespace can be made (the probe is told so), with the same interpreter, so runs stay
root; ``bare-dropped`` is that host with an interpreter uid 65534 can run.
"""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import uuid
from pathlib import Path

import pytest

from adhere.sandbox import sandbox_info

KEY = "sk-planted-" + uuid.uuid4().hex

EVALUATOR = """
import asyncio, json, os, sys
from adhere.sandbox import Limits, run_python
from adhere.sandbox import _probe

mode, python, code = sys.argv[1], sys.argv[2], sys.stdin.read()
if mode.startswith("bare"):
    _probe.disable_namespaces()
isolation = "netns" if mode == "netns" else "guard"
code = code.replace("EVALUATOR_PID", str(os.getpid()))
result = asyncio.run(
    run_python(code, limits=Limits(timeout=20, isolation=isolation), python=python or None)
)
print(json.dumps({"stdout": result.stdout, "stderr": result.stderr[-2000:],
                  "status": result.status, "uid": result.uid, "isolation": result.isolation}))
"""

BLOCKED, OPEN = True, False

# attack -> mode -> blocked?  (the table in docs/sandbox.md)
EXPECTED = {
    "read_environ": {"netns": BLOCKED, "guard": BLOCKED, "bare": OPEN, "bare-dropped": BLOCKED},
    "list_processes": {"netns": BLOCKED, "guard": BLOCKED, "bare": OPEN, "bare-dropped": OPEN},
    "kill_evaluator": {"netns": BLOCKED, "guard": BLOCKED, "bare": OPEN, "bare-dropped": BLOCKED},
    "kill_all": {"netns": BLOCKED, "guard": BLOCKED, "bare": OPEN, "bare-dropped": OPEN},
    "write_outside": {"netns": BLOCKED, "guard": BLOCKED, "bare": OPEN, "bare-dropped": OPEN},
    "leave_shm": {"netns": BLOCKED, "guard": BLOCKED, "bare": OPEN, "bare-dropped": OPEN},
    "leave_daemon": {"netns": BLOCKED, "guard": BLOCKED, "bare": OPEN, "bare-dropped": OPEN},
}
MODES = ["netns", "guard", "bare", "bare-dropped"]


@pytest.fixture(scope="module")
def namespaces() -> bool:
    """Whether this host makes the namespaces the ``netns`` and ``guard`` rows rely on."""
    return sandbox_info().bwrap is not None


def evaluate(mode: str, code: str, system_python: str | None) -> tuple[int, dict | None]:
    """Run ``code`` in a fresh evaluator holding the planted key; (its exit code, result)."""
    python = system_python if mode == "bare-dropped" else ""
    env = {**os.environ, "ADHERE_PLANTED_KEY": KEY}
    done = subprocess.run(
        [sys.executable, "-c", EVALUATOR, mode, python],
        input=textwrap.dedent(code),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        return done.returncode, None
    return 0, json.loads(done.stdout.strip().splitlines()[-1])


def needs(mode: str, namespaces: bool, request: pytest.FixtureRequest) -> str | None:
    if mode in ("netns", "guard") and not namespaces:
        pytest.skip("this host makes no namespaces: the bare rows cover it")
    if mode == "bare-dropped":
        return request.getfixturevalue("system_python")
    if os.geteuid() != 0:
        pytest.skip("the expectations are for an evaluator running as root")
    return None


def check(attack: str, mode: str, blocked: bool) -> None:
    assert blocked == EXPECTED[attack][mode], (
        f"{attack} in {mode}: {'blocked' if blocked else 'succeeded'}, "
        f"docs/sandbox.md says {'blocked' if EXPECTED[attack][mode] else 'not blocked'}"
    )


@pytest.mark.parametrize("mode", MODES)
def test_reading_the_evaluators_environment(mode, namespaces, request):
    python = needs(mode, namespaces, request)
    code = """
    import os
    found = []
    for pid in ['EVALUATOR_PID'] + [p for p in os.listdir('/proc') if p.isdigit()]:
        try:
            data = open(f'/proc/{pid}/environ', 'rb').read()
        except OSError:
            continue
        if b'ADHERE_PLANTED_KEY' in data:
            found.append(data.split(b'ADHERE_PLANTED_KEY=')[1].split(b'\\0')[0].decode())
    print(found)
    """
    exit_code, result = evaluate(mode, code, python)
    assert exit_code == 0 and result is not None and result["status"] == "pass", result
    check("read_environ", mode, KEY not in result["stdout"])


@pytest.mark.parametrize("mode", MODES)
def test_listing_other_processes(mode, namespaces, request):
    python = needs(mode, namespaces, request)
    code = """
    import os
    pids = [p for p in os.listdir('/proc') if p.isdigit()]
    print(os.path.exists('/proc/EVALUATOR_PID'), len(pids))
    """
    exit_code, result = evaluate(mode, code, python)
    assert exit_code == 0 and result is not None and result["status"] == "pass", result
    sees_evaluator, count = result["stdout"].split()
    # the harness's init and worker are all a private PID namespace holds
    check("list_processes", mode, sees_evaluator == "False" and int(count) <= 2)


@pytest.mark.parametrize("mode", MODES)
def test_killing_the_evaluator(mode, namespaces, request):
    python = needs(mode, namespaces, request)
    code = """
    import os, signal
    for pid in (EVALUATOR_PID, os.getppid()):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError as exc:
            print(pid, type(exc).__name__)
    """
    exit_code, result = evaluate(mode, code, python)
    check("kill_evaluator", mode, exit_code == 0 and result is not None)


@pytest.mark.parametrize("mode", MODES)
def test_killing_every_process_it_may(mode, namespaces, request):
    """``kill(-1, SIGKILL)``: safe to try only inside a PID namespace of its own.

    Outside one, as root, it kills every process on the machine (as uid 65534, every
    process of that uid), so the code sends it only when its PID namespace differs from
    the evaluator's; otherwise it reports that it would have been sent.
    """
    python = needs(mode, namespaces, request)
    code = f"""
    import os, signal
    if os.readlink('/proc/self/ns/pid') == {os.readlink("/proc/self/ns/pid")!r}:
        print('same PID namespace: not sent')
    else:
        os.kill(-1, signal.SIGKILL)
        print('sent')
    """
    exit_code, result = evaluate(mode, code, python)
    sent = result is not None and "not sent" not in result["stdout"]
    check("kill_all", mode, sent and exit_code == 0)


@pytest.mark.parametrize("mode", MODES)
def test_writing_outside_its_directory(mode, namespaces, request):
    python = needs(mode, namespaces, request)
    with tempfile.TemporaryDirectory(dir="/tmp") as outside:
        os.chmod(outside, 0o777)  # writable by anyone: only the sandbox can stop the write
        target = Path(outside, "written.txt")
        code = f"""
        try:
            open({str(target)!r}, 'w').write('x')
            print('wrote')
        except OSError as exc:
            print('refused', type(exc).__name__)
        """
        exit_code, result = evaluate(mode, code, python)
        assert exit_code == 0 and result is not None and result["status"] == "pass", result
        check("write_outside", mode, not target.exists())


@pytest.mark.parametrize("mode", MODES)
def test_leaving_a_file_in_dev_shm(mode, namespaces, request):
    python = needs(mode, namespaces, request)
    name = Path("/dev/shm", f"adhere-attack-{uuid.uuid4().hex}")
    code = f"""
    with open({str(name)!r}, 'wb') as f:
        f.write(b'x' * (1 << 20))
    print('written')
    """
    try:
        exit_code, result = evaluate(mode, code, python)
        assert exit_code == 0 and result is not None, result
        assert result["status"] == "pass" and result["stdout"] == "written\n", result
        check("leave_shm", mode, not name.exists())
    finally:
        name.unlink(missing_ok=True)


@pytest.mark.parametrize("mode", MODES)
def test_leaving_a_daemon_running(mode, namespaces, request, marker, leftovers):
    python = needs(mode, namespaces, request)
    code = f"""
    import subprocess
    subprocess.Popen(['sleep', '{marker}'], start_new_session=True,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print('started')
    """
    try:
        exit_code, result = evaluate(mode, code, python)
        assert exit_code == 0 and result is not None and result["stdout"] == "started\n", result
        check("leave_daemon", mode, leftovers(marker) == [])
    finally:
        for pid in leftovers(marker):
            os.kill(pid, 9)
