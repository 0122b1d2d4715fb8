"""What this machine offers the sandbox, found out once and cached.

- ``unshare --net`` (a network namespace): works as root (CAP_SYS_ADMIN); as an
  ordinary user it fails, since the sandbox maps no user namespace, and runs use the
  in-process guard instead.
- ``unshare --net --pid --fork --kill-child``: a PID namespace as well, so that every
  process the code starts dies with it, even one that left the process group.
- Running as an unprivileged uid: when the evaluator is root, can the interpreter
  start as that uid in a directory that uid owns (it cannot when the interpreter
  lives under a private home such as ``/root/.pyenv``)?

Each answer comes from running the real thing once (``true`` or ``python -c pass``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass

__all__ = ["SandboxInfo", "can_run_as", "clear_cache", "sandbox_info"]

_lock = threading.Lock()
_namespaces: tuple[str | None, bool, bool] | None = None
_runs_as: dict[tuple[str, int], bool] = {}


@dataclass(frozen=True)
class SandboxInfo:
    """What the sandbox can do here.

    Attributes:
        unshare: Path of the ``unshare`` program, if any.
        netns: ``unshare --net`` works (runs get ``isolation="netns"``).
        pidns: ``unshare --net --pid --fork --kill-child`` works too.
        root: The evaluator runs as root.
        python: The interpreter the answer about ``drops_to`` is for.
        drops_to: The uid runs use (root only, when the interpreter works for the
            configured unprivileged uid), else ``None``.
    """

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


def namespaces() -> tuple[str | None, bool, bool]:
    """``(unshare path, network namespace works, PID namespace works too)``."""
    global _namespaces
    with _lock:
        if _namespaces is None:
            unshare = shutil.which("unshare")
            netns = pidns = False
            if unshare is not None:
                netns = _works([unshare, "--net", "--", "true"])
                if netns:
                    pidns = _works(
                        [unshare, "--net", "--pid", "--fork", "--kill-child", "--", "true"]
                    )
            _namespaces = (unshare, netns, pidns)
        return _namespaces


def can_run_as(python: str, uid: int) -> bool:
    """Whether ``python`` starts as ``uid`` (and its gid) in a directory it owns."""
    key = (python, uid)
    with _lock:
        if key in _runs_as:
            return _runs_as[key]
    answer = False
    if os.geteuid() == 0:
        home = tempfile.mkdtemp(prefix="adhere-sandbox-probe-")
        try:
            os.chown(home, uid, uid)
            try:
                done = subprocess.run(
                    [python, "-s", "-c", "import os; os.listdir('.')"],
                    cwd=home,
                    env={"PATH": "/usr/bin:/bin", "HOME": home},
                    user=uid,
                    group=uid,
                    extra_groups=[],
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
        if _namespaces is None:
            return False
        return uid is None or os.geteuid() != 0 or (python, uid) in _runs_as


def sandbox_info(python: str | None = None, unprivileged_uid: int | None = 65534) -> SandboxInfo:
    """What runs with ``python`` (default: this interpreter) get on this machine.

    Blocks for the first probes (a few process starts); cached afterwards.
    """
    interpreter = python or sys.executable
    unshare, netns, pidns = namespaces()
    root = os.geteuid() == 0
    drops_to = None
    if root and unprivileged_uid is not None and can_run_as(interpreter, unprivileged_uid):
        drops_to = unprivileged_uid
    return SandboxInfo(unshare, netns, pidns, root, interpreter, drops_to)


def clear_cache() -> None:
    """Forget every probe (tests; or after installing ``unshare``)."""
    global _namespaces
    with _lock:
        _namespaces = None
        _runs_as.clear()
