"""What this machine offers the sandbox, found out once and cached.

- ``bwrap`` (bubblewrap): PID, IPC, UTS and mount namespaces with a fresh ``/proc``,
  ``/dev``, ``/tmp`` and ``/dev/shm``, and with ``--unshare-net`` a network
  namespace. Works as root here; as an ordinary user it needs unprivileged user
  namespaces (probed, not assumed).
- ``unshare --net`` (a network namespace), with ``--pid --fork --kill-child
  --mount-proc`` a PID namespace with its own ``/proc``: used when ``bwrap`` does not
  work. As an ordinary user it fails, since the sandbox maps no user namespace.
- Running as an unprivileged uid: when the evaluator is root, can the interpreter
  start as that uid, in the same bubblewrap layout a run gets (which binds the
  interpreter's directories back into a hidden home), and import the modules the
  harness loads after the drop?

Each answer comes from running the real thing once (``true`` or ``python -c …``).
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass

from adhere.sandbox._plan import Host, bwrap_prefix

__all__ = [
    "SandboxInfo",
    "can_run_as",
    "clear_cache",
    "disable_namespaces",
    "host",
    "interpreter_paths",
    "sandbox_info",
]

_lock = threading.Lock()
_host: Host | None = None
_runs_as: dict[tuple[str, int, bool], bool] = {}
_paths: dict[str, tuple[str, ...]] = {}

_AFTER_DROP = (
    "import os, sys\n"
    "os.setgroups([]); os.setgid({uid}); os.setuid({uid})\n"
    "import unittest, traceback, linecache, socket\n"
    "os.listdir('.')\n"
)
"""The probe: drop as the harness does, then load what the harness may load later."""


@dataclass(frozen=True)
class SandboxInfo:
    """What the sandbox can do here.

    Attributes:
        bwrap: Path of a working ``bwrap``, if any (runs get fresh ``/proc``, ``/tmp``,
            ``/dev/shm``, a read-only root and hidden home directories).
        unshare: Path of the ``unshare`` program, if any.
        netns: A network namespace can be made (runs get ``isolation="netns"``).
        pidns: Runs get a PID namespace with their own ``/proc`` (through ``bwrap``, or
            ``unshare --pid --mount-proc``).
        root: The evaluator runs as root.
        python: The interpreter the answer about ``drops_to`` is for.
        drops_to: The uid runs use (root only, when the interpreter works for the
            configured unprivileged uid), else ``None``.
    """

    bwrap: str | None
    unshare: str | None
    netns: bool
    pidns: bool
    root: bool
    python: str
    drops_to: int | None


def _works(argv: list[str]) -> bool:
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def host() -> Host:
    """What this host offers (probed once)."""
    global _host
    with _lock:
        if _host is None:
            _host = _probe_host()
        return _host


def _probe_host() -> Host:
    bwrap = shutil.which("bwrap")
    bwrap_net = False
    if bwrap is not None:
        with tempfile.TemporaryDirectory(prefix="adhere-sandbox-probe-") as work:
            base = bwrap_prefix(bwrap, work, net=False, is_root=os.geteuid() == 0, drop=False)
            if _works([*base, "true"]):
                net = bwrap_prefix(bwrap, work, net=True, is_root=os.geteuid() == 0, drop=False)
                bwrap_net = _works([*net, "true"])
            else:
                bwrap = None
    unshare = shutil.which("unshare")
    netns = pidns = False
    if unshare is not None:
        netns = _works([unshare, "--net", "--", "true"])
        if netns:
            pidns = _works(
                [unshare, "--net", "--pid", "--fork", "--kill-child", "--mount-proc", "--", "true"]
            )
    return Host(bwrap, bwrap_net, unshare, netns, pidns)


def disable_namespaces() -> None:
    """Act as on a host where no namespace can be made (tests; hosts where they misbehave)."""
    global _host
    with _lock:
        _host = Host()
        _runs_as.clear()


def interpreter_paths(python: str) -> tuple[str, ...]:
    """The directories ``python`` needs: its real location, prefixes and ``sys.path``."""
    with _lock:
        if python in _paths:
            return _paths[python]
    found = {os.path.dirname(os.path.realpath(python)), os.path.dirname(os.path.abspath(python))}
    try:
        done = subprocess.run(
            [python, "-s", "-c", "import sys; print(repr([sys.prefix, sys.base_prefix, "
             "sys.exec_prefix, sys.base_exec_prefix, *sys.path]))"],
            capture_output=True, text=True, timeout=60, check=False, env={"PATH": "/usr/bin:/bin"},
        )  # fmt: skip
        listed = ast.literal_eval(done.stdout.strip()) if done.returncode == 0 else []
    except (OSError, subprocess.SubprocessError, ValueError, SyntaxError):
        listed = []
    found.update(os.path.realpath(p) for p in listed if isinstance(p, str) and os.path.isabs(p))
    answer = tuple(sorted(p for p in found if os.path.exists(p)))
    with _lock:
        _paths[python] = answer
    return answer


def can_run_as(python: str, uid: int, wrapped: bool = True) -> bool:
    """Whether ``python`` works as ``uid`` (and its gid), in a directory that uid owns.

    ``wrapped``: in the bubblewrap layout of a run, when ``bwrap`` works here; else
    (and for runs the host or the limits leave unwrapped) started directly.
    """
    key = (python, uid, wrapped)
    with _lock:
        if key in _runs_as:
            return _runs_as[key]
    answer = False
    if os.geteuid() == 0:
        found = host()
        home = tempfile.mkdtemp(prefix="adhere-sandbox-probe-")
        try:
            os.chown(home, uid, uid)
            os.chmod(home, 0o711)
            argv = [python, "-s", "-c", _AFTER_DROP.format(uid=int(uid))]
            if wrapped and found.bwrap is not None:
                paths = interpreter_paths(python)
                prefix = bwrap_prefix(
                    found.bwrap, home, net=False, is_root=True, drop=True, interpreter_paths=paths
                )
                argv = [*prefix, *argv]
            try:
                done = subprocess.run(
                    argv,
                    cwd=home,
                    env={"PATH": "/usr/bin:/bin", "HOME": home},
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    timeout=60,
                    check=False,
                )
                answer = done.returncode == 0
            except (OSError, subprocess.SubprocessError):
                answer = False
        finally:
            shutil.rmtree(home, ignore_errors=True)
    with _lock:
        _runs_as[key] = answer
    return answer


def is_cached(python: str, uid: int | None) -> bool:
    """Whether :func:`sandbox_info` would answer without starting a process."""
    with _lock:
        if _host is None or (_host.bwrap is not None and python not in _paths):
            return False
        if uid is None or os.geteuid() != 0:
            return True
        return (python, uid, True) in _runs_as and (python, uid, False) in _runs_as


def sandbox_info(python: str | None = None, unprivileged_uid: int | None = 65534) -> SandboxInfo:
    """What runs with ``python`` (default: this interpreter) get on this machine.

    Blocks for the first probes (a few process starts); cached afterwards.
    """
    interpreter = python or sys.executable
    found = host()
    root = os.geteuid() == 0
    drops_to = None
    if found.bwrap is not None:
        interpreter_paths(interpreter)
    if root and unprivileged_uid is not None:
        can_run_as(interpreter, unprivileged_uid, wrapped=False)
        if can_run_as(interpreter, unprivileged_uid):
            drops_to = unprivileged_uid
    pidns = found.bwrap is not None or found.unshare_pid
    return SandboxInfo(found.bwrap, found.unshare, found.netns, pidns, root, interpreter, drops_to)


def clear_cache() -> None:
    """Forget every probe (tests; or after installing ``bwrap`` or ``unshare``)."""
    global _host
    with _lock:
        _host = None
        _runs_as.clear()
        _paths.clear()
