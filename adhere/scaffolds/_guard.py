"""The guard: a tiny parent for one agent process, so nothing it starts outlives the run.

``python -I -S _guard.py RUNNER_PID PROGRAM ARG…`` (standard library only, so it starts
in milliseconds without the project on its path) does, on Linux:

1. make itself a *child subreaper* (``PR_SET_CHILD_SUBREAPER``): every process the
   agent starts and then abandons — a background job, a daemon that forked twice and
   called ``setsid`` — is re-parented to the guard instead of to init, so the guard
   can still find it;
2. ask for ``SIGTERM`` when its parent dies (``PR_SET_PDEATHSIG``), so a runner
   killed with ``SIGKILL`` still ends its agents (and exit at once if the runner is
   already gone, ``RUNNER_PID`` no longer being its parent);
3. fork and exec the program in its own process group and session (the guard's),
   with the environment the guard was given and the signal dispositions a program
   started without a guard gets (``SIGPIPE`` not ignored);
4. when the program exits: kill whatever it left behind and exit with its status
   (killed by a signal: the guard kills itself with that signal, so the caller sees
   the same return code as without a guard);
5. on ``SIGTERM``, ``SIGHUP``, ``SIGINT`` or its parent's death: ``SIGTERM`` every
   descendant, ``SIGKILL`` those left after :data:`GRACE_SECONDS`, then exit by the
   signal it got.

Descendants are found from ``/proc`` (parent ids), which a subreaper keeps complete.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
GRACE_SECONDS = 2.0
"""How long descendants get between ``SIGTERM`` and ``SIGKILL`` when the guard stops."""
_STOP = {signal.SIGTERM, signal.SIGHUP, signal.SIGINT}
_WAKE = {*_STOP, signal.SIGCHLD}
_PYTHON_IGNORES = [
    getattr(signal, name) for name in ("SIGPIPE", "SIGXFZ", "SIGXFSZ") if hasattr(signal, name)
]


def prctl(option: int, value: int) -> bool:
    """Call ``prctl(option, value)``; false where it is missing or refused."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def children_map() -> dict[int, list[int]]:
    """Parent pid → child pids of every live (not zombie) process in ``/proc``."""
    found: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) < 2 or fields[0] == b"Z":
            continue
        found.setdefault(int(fields[1]), []).append(int(entry))
    return found


def descendants(root: int) -> list[int]:
    """Every live descendant of ``root``, parents before children."""
    tree = children_map()
    out: list[int] = []
    stack = [root]
    while stack:
        for child in tree.get(stack.pop(), []):
            out.append(child)
            stack.append(child)
    return out


def signal_all(pids: list[int], sig: int) -> None:
    """Send ``sig`` to each pid that still exists."""
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def reap() -> list[tuple[int, int]]:
    """Collect every exited child without blocking: (pid, wait status) pairs."""
    done: list[tuple[int, int]] = []
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return done
        if pid == 0:
            return done
        done.append((pid, status))


def end_descendants(grace: float) -> None:
    """``SIGTERM`` every descendant, then ``SIGKILL`` until none is left (reaping all)."""
    me = os.getpid()
    signal_all(descendants(me), signal.SIGTERM)
    deadline = time.monotonic() + grace
    while True:
        reap()
        left = descendants(me)
        if not left:
            return
        if time.monotonic() >= deadline:
            signal_all(left, signal.SIGKILL)
        signal.sigtimedwait({signal.SIGCHLD}, 0.05)


def exit_like(status: int) -> None:
    """Exit as the program did: same exit code, or killed by the same signal."""
    if os.WIFSIGNALED(status):
        die_by(os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status))


def die_by(sig: int) -> None:
    """Exit killed by ``sig`` (what a process without a guard would show)."""
    if sig not in (signal.SIGKILL, signal.SIGSTOP):
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
    os.kill(os.getpid(), sig)
    os._exit(128 + sig)


def original_environ() -> dict[str, str]:
    """The environment the guard was started with.

    Not ``os.environ``: Python's start-up may add ``LC_CTYPE`` (locale coercion), and
    the program must get exactly the environment the runner gave.
    """
    try:
        with open("/proc/self/environ", "rb") as handle:
            raw = handle.read()
    except OSError:
        return dict(os.environ)
    env = {}
    for item in raw.split(b"\0"):
        name, sep, value = item.partition(b"=")
        if sep:
            env[os.fsdecode(name)] = os.fsdecode(value)
    return env


def main(argv: list[str]) -> None:
    """Guard ``argv[1:]`` for the runner whose pid is ``argv[0]`` (see the module doc)."""
    runner, program = int(argv[0]), argv[1:]
    signal.pthread_sigmask(signal.SIG_BLOCK, _WAKE)
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != runner:  # the runner died before the line above
        os._exit(128 + signal.SIGTERM)
    env = original_environ()
    pid = os.fork()
    if pid == 0:
        for sig in _PYTHON_IGNORES:  # what Python's start-up set, as subprocess resets
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        try:
            os.execvpe(program[0], program, env)
        except OSError as exc:
            os.write(2, f"cannot run {program[0]}: {exc.strerror}\n".encode())
        os._exit(127)
    while True:
        info = signal.sigtimedwait(_WAKE, 1.0)
        stop = info.si_signo if info is not None and info.si_signo in _STOP else None
        if stop is None and os.getppid() != runner:
            stop = signal.SIGTERM
        status = next((s for p, s in reap() if p == pid), None)
        if stop is not None:
            end_descendants(GRACE_SECONDS)
            die_by(stop)
        if status is not None:
            end_descendants(0.0)
            exit_like(status)


if __name__ == "__main__":
    main(sys.argv[1:])
