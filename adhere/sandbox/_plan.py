"""Planning one sandboxed run: isolation, command line, uid, environment, rlimits.

Pure decisions from what the host offers (:class:`Host`, found by
:mod:`adhere.sandbox._probe`); :mod:`adhere.sandbox._process` carries them out.

With bubblewrap (``bwrap``, the default wherever it works), the harness runs in
new PID, IPC, UTS and mount namespaces (and a network namespace for ``netns``):

- ``/`` read-only; a fresh ``/proc`` that shows only the run's own processes; a
  fresh ``/dev`` with a private ``/dev/shm``; a private ``/tmp`` (both tmpfs, gone
  with the run, each at most ``Limits.memory_mb``);
- home directories and mounted secrets (:data:`HIDDEN`) replaced by empty tmpfs,
  except the interpreter's own directories, bound back read-only, so that an
  interpreter under ``/root`` (a pyenv, a virtualenv) still runs as the unprivileged
  uid;
- the run's directory bound read-write at its own path, as working directory;
- as root: every capability dropped but ``CAP_SETUID``/``CAP_SETGID``, which the
  harness needs to drop to the unprivileged uid, its first act (all of them when it
  keeps uid 0);
- ``--as-pid-1``: the harness is PID 1 (it forks the worker and reaps), and the
  kernel kills whatever is left in the namespace when it exits; ``--die-with-parent``.

Without bubblewrap, ``unshare --net [--pid --fork --kill-child --mount-proc]`` cuts
the network and gives a PID namespace with its own ``/proc``, nothing more; without
either, the harness runs directly (``guard``).
"""

from __future__ import annotations

import os
import posixpath
import resource
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from adhere.sandbox._types import Isolation, Limits, SandboxError

__all__ = [
    "BOOTSTRAP",
    "HIDDEN",
    "ISOLATION_ENV",
    "Host",
    "Plan",
    "bwrap_prefix",
    "environment",
    "plan_run",
    "resolve_isolation",
    "rlimits",
    "safe_path",
]

ISOLATION_ENV = "ADHERE_SANDBOX_ISOLATION"
"""Environment variable that overrides ``Limits.isolation="auto"`` (``netns`` or ``guard``)."""

HIDDEN = ("/root", "/home", "/run/secrets", "/var/run/secrets")
"""Directories replaced by an empty tmpfs in a bubblewrap run (homes, mounted secrets)."""

_MIB = 1024 * 1024

BOOTSTRAP = (
    "import marshal, os, sys\n"
    "with os.fdopen(int(sys.argv[1]), 'rb') as f:\n"
    "    h, j = marshal.loads(f.read())\n"
    "g = {'__name__': 'adhere_sandbox_harness'}\n"
    "for p in h:\n"
    "    exec(compile(p, '<string>', 'exec') if isinstance(p, str) else p, g)\n"
    "m, a = g['main'], (j, int(sys.argv[2]))\n"
    "del f, h, j, g, p\n"
    "m(*a)\n"
)
"""The ``-c`` program: reads ``(harness parts as sources or code objects, job)``, executes
the parts into one namespace and calls its ``main``."""


@dataclass(frozen=True)
class Host:
    """What this host offers the sandbox.

    Attributes:
        bwrap: Path of a working ``bwrap`` (PID namespace, fresh ``/proc``), else ``None``.
        bwrap_net: ``bwrap --unshare-net`` works too.
        unshare: Path of ``unshare``, used when there is no working ``bwrap``.
        unshare_net: ``unshare --net`` works.
        unshare_pid: ``unshare --net --pid --fork --kill-child --mount-proc`` works.
    """

    bwrap: str | None = None
    bwrap_net: bool = False
    unshare: str | None = None
    unshare_net: bool = False
    unshare_pid: bool = False

    @property
    def netns(self) -> bool:
        """A network namespace can be made here."""
        return (self.bwrap is not None and self.bwrap_net) or self.unshare_net


@dataclass(frozen=True)
class Plan:
    argv: list[str]
    isolation: Isolation
    uid: int | None
    namespaces: bool


def resolve_isolation(limits: Limits, netns_available: bool) -> Isolation:
    """How a run with ``limits`` cuts the network here.

    Raises:
        SandboxError: ``netns`` was required (by the limits or the environment) and
            is unavailable, or the environment variable holds something else.
    """
    if limits.network:
        return "none"
    wanted = limits.isolation
    if wanted == "auto":
        override = os.environ.get(ISOLATION_ENV, "").strip()
        if override not in ("", "auto", "netns", "guard"):
            raise SandboxError(f"{ISOLATION_ENV} must be auto, netns or guard, got {override!r}")
        wanted = override or "auto"  # type: ignore[assignment]
    if wanted == "guard":
        return "guard"
    if netns_available:
        return "netns"
    if wanted == "netns":
        raise SandboxError(
            "network isolation 'netns' was required, but neither `bwrap --unshare-net` "
            "nor `unshare --net` works here"
        )
    return "guard"


def _under(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _exposed(paths: Iterable[str], hidden: Sequence[str]) -> list[str]:
    """The paths under a hidden directory, outermost only, sorted."""
    inside = sorted({p for p in paths if any(_under(p, h) and p != h for h in hidden)})
    return [p for i, p in enumerate(inside) if not any(_under(p, q) for q in inside[:i])]


def _parents(path: str, tops: Sequence[str]) -> list[str]:
    """``--dir`` options making the directories between a tmpfs and ``path`` traversable."""
    top = next((t for t in tops if _under(path, t) and path != t), None)
    if top is None:
        return []
    parts = Path(path).relative_to(top).parts
    options = []
    for depth in range(1, len(parts)):
        options += ["--perms", "0755", "--dir", str(Path(top, *parts[:depth]))]
    return options


def bwrap_prefix(
    bwrap: str,
    workdir: str,
    *,
    net: bool,
    is_root: bool,
    drop: bool,
    interpreter_paths: Iterable[str] = (),
    hidden: Sequence[str] = HIDDEN,
    tmpfs_bytes: int = 1024 * _MIB,
) -> list[str]:
    """The ``bwrap … --`` prefix of a run (see the module docstring)."""
    size = str(tmpfs_bytes)
    argv = [bwrap, "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    if net:
        argv.append("--unshare-net")
    argv += ["--as-pid-1", "--die-with-parent", "--ro-bind", "/", "/"]
    argv += ["--dev", "/dev", "--proc", "/proc"]
    argv += ["--perms", "1777", "--size", size, "--tmpfs", "/tmp"]
    argv += ["--perms", "1777", "--size", size, "--tmpfs", "/dev/shm"]
    present = [h for h in hidden if os.path.isdir(h)]
    for directory in present:
        argv += ["--tmpfs", directory]
    # the interpreter's directories come back read-only, also from under the private
    # /tmp (a sandbox environment installed in a temporary directory)
    for path in _exposed(interpreter_paths, [*present, "/tmp"]):
        argv += [*_parents(path, [*present, "/tmp"]), "--ro-bind", path, path]
    argv += [*_parents(workdir, [*present, "/tmp"]), "--bind", workdir, workdir]
    argv += ["--chdir", workdir]  # bwrap also sets PWD; the harness removes it
    if is_root:
        argv += ["--cap-drop", "ALL"]
        if drop:
            argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return [*argv, "--"]


def plan_run(
    python: str,
    limits: Limits,
    fds: tuple[int, int],
    *,
    host: Host,
    workdir: str,
    is_root: bool,
    can_run_as: Callable[[str, int, bool], bool],
    interpreter_paths: Iterable[str] = (),
) -> Plan:
    """The command line, network isolation and uid of a run, from what this host offers.

    ``netns`` and ``guard`` runs go through bubblewrap when it works here (``guard``
    without ``--unshare-net``); ``netns`` falls back to ``unshare``; ``none`` (the
    network allowed) and a host without either run the harness directly. As root, the
    run drops to ``limits.unprivileged_uid`` when ``can_run_as`` says the interpreter
    works for it there, wrapped or not (asked only then).
    """
    isolation = resolve_isolation(limits, host.netns)
    wrapped = isolation != "none" and host.bwrap is not None
    drop = None
    if is_root and limits.unprivileged_uid is not None:
        if can_run_as(python, limits.unprivileged_uid, wrapped):
            drop = limits.unprivileged_uid
    command = [python, "-s", "-c", BOOTSTRAP, str(fds[0]), str(fds[1])]
    if wrapped and host.bwrap is not None:
        prefix = bwrap_prefix(
            host.bwrap,
            workdir,
            net=isolation == "netns",
            is_root=is_root,
            drop=drop is not None,
            interpreter_paths=interpreter_paths,
            tmpfs_bytes=limits.memory_mb * _MIB,
        )
        return Plan([*prefix, *command], isolation, drop, True)
    if isolation == "netns" and host.unshare is not None:
        prefix = [host.unshare, "--net"]
        if host.unshare_pid:
            prefix += ["--pid", "--fork", "--kill-child", "--mount-proc"]
        return Plan([*prefix, "--", *command], isolation, drop, host.unshare_pid)
    return Plan(command, isolation, drop, False)


def safe_path(path: str) -> str:
    """``path`` normalized, when it stays inside the run's directory.

    Raises:
        ValueError: It is empty, absolute or leaves the directory.
    """
    normal = posixpath.normpath(path.replace("\\", "/"))
    if not path or normal.startswith(("/", "../")) or normal in ("..", "."):
        raise ValueError(f"sandbox file {path!r} must be a relative path inside the directory")
    return normal


def environment(root: Path, python: str) -> dict[str, str]:
    """The run's whole environment: nothing of the evaluator's is inherited."""
    bin_dir = os.path.dirname(python)
    return {
        "PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin"
        if bin_dir
        else "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(root),
        "TMPDIR": str(root),
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def rlimits(limits: Limits, apply_nproc: bool) -> list[tuple[int, int, int]]:
    """``(resource, soft, hard)`` triples the harness applies before anything else."""
    cpu = limits.cpu_seconds
    memory = limits.memory_mb * _MIB
    size = limits.file_size_mb * _MIB
    chosen = [
        (resource.RLIMIT_AS, memory, memory),
        (resource.RLIMIT_CPU, cpu, cpu + 1),
        (resource.RLIMIT_CORE, 0, 0),
        (resource.RLIMIT_FSIZE, size, size),
    ]
    if apply_nproc:
        chosen.append((resource.RLIMIT_NPROC, limits.processes, limits.processes))
    return chosen
