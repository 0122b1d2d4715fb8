"""The agent sandbox: what one agent CLI turn may see and reach (pure decisions).

Each turn of an agent CLI runs in bubblewrap (``bwrap``) with, besides the guard of
:mod:`adhere.scaffolds._process` around it:

- new PID, IPC, UTS, cgroup and network namespaces: ``/proc`` shows only the turn's
  own processes (not the runner's, nor their environments), and the only network is
  a loopback whose one listener is the bridge to the recording proxy;
- a file system built from nothing: the system directories (``/usr``, ``/etc`` …, as
  the host has them) read-only, with every file and directory of ``/etc`` that is not
  world-readable (``/etc/shadow``, ``/etc/ssl/private`` …) hidden; the CLI's own
  install and Node read-only; the trial's workspace and throwaway HOME read-write at
  their own paths; a private, size-limited ``/tmp`` and ``/dev/shm``; and nothing
  else — no ``/home``, ``/var``, ``/srv``, ``/opt``, no other trial's directory
  (the directories on the way to the bound paths exist, holding only those paths;
  ``/run`` holds only the bridge); the root itself is read-only;
- every capability dropped (as root), no new user namespace (where bwrap can forbid
  them), a new session, ``--die-with-parent``; when the CLI exits, bwrap (PID 1 of
  the namespace) exits and the kernel kills whatever the CLI left running;
- a file-size limit (``ulimit -f``) on every process of the turn.

Inside, a tiny ``sh`` script (:data:`INNER_SCRIPT`) starts ``socat`` listening on
``127.0.0.1:PORT`` — the port of the base URL the CLI is configured with — forwarding
to a Unix socket bound in read-only from outside, where the runner relays to the
proxy; it waits until the listener is up (socat says so on a named pipe), then
``exec``s the CLI.

The host-dependent facts (where ``bwrap`` and ``socat`` are, which system paths are
directories or symlinks, which ``/etc`` entries are private, where Node lives) come in
a :class:`Layout`, found once by :mod:`adhere.scaffolds._sandbox_host`.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "BRIDGE_DIR",
    "BRIDGE_READY",
    "BRIDGE_SOCKET",
    "INNER_SCRIPT",
    "OFFLINE_SCRIPT",
    "Layout",
    "SandboxLimits",
    "check_agent_sandbox",
    "inside_url",
    "runs_in_sandbox",
    "sandbox_argv",
]

BRIDGE_DIR = "/run/adhere"
"""Where the directory holding the bridge's Unix socket appears inside the sandbox."""

BRIDGE_SOCKET = "proxy.sock"
"""The bridge socket's file name in that directory."""

BRIDGE_READY = "ready"
"""The named pipe in that directory through which the inner script learns that socat
listens."""

_MIB = 1024 * 1024


@dataclass(frozen=True)
class SandboxLimits:
    """Size limits of one sandboxed trial (what blocks "fill the disk").

    Attributes:
        tmp_mb: Size of the private ``/tmp`` and of ``/dev/shm`` (memory-backed tmpfs).
        file_mb: Largest file any process of a turn may write (``ulimit -f``).
        growth_mb: How much the workspace and HOME together may grow during the
            trial; past it the turn is stopped (checked by the runner while it runs).
        growth_files: How many files and directories they may gain (inodes).
    """

    tmp_mb: int = 512
    file_mb: int = 1024
    growth_mb: int = 2048
    growth_files: int = 100_000


@dataclass(frozen=True)
class Layout:
    """What the host offers the agent sandbox (see :mod:`adhere.scaffolds._sandbox_host`).

    Attributes:
        bwrap: Path of a working ``bwrap``.
        socat: Path of ``socat``, run inside the sandbox (so under a system directory
            or ``extra_ro``).
        system: The top-level system paths to show, each with its symlink target
            (``/bin`` → ``usr/bin`` on a merged-/usr system) or ``None`` for a
            directory bound read-only.
        private_files: Files under the system paths that are not world-readable; each
            is replaced by an empty file.
        private_dirs: Such directories; each is replaced by an empty tmpfs.
        extra_ro: Further directories shown read-only (Node's prefix outside ``/usr``).
        is_root: The runner runs as root: every capability is dropped inside.
        no_userns: bwrap can forbid new user namespaces inside (``--unshare-user
            --disable-userns``, bubblewrap 0.8), so a process cannot gain capabilities
            in one of its own.
    """

    bwrap: str
    socat: str
    system: tuple[tuple[str, str | None], ...] = ()
    private_files: tuple[str, ...] = ()
    private_dirs: tuple[str, ...] = ()
    extra_ro: tuple[str, ...] = ()
    is_root: bool = False
    no_userns: bool = False


INNER_SCRIPT = """\
ulimit -f "$1" || exit 125
"$2" -d -d TCP-LISTEN:"$3",bind=127.0.0.1,reuseaddr,fork UNIX-CONNECT:"$4" 2>"$5" &
r= e=
while read -r l; do
  case "$l" in *"listening on"*) r=1; break ;; esac
  e="$l"
done <"$5"
if [ -z "$r" ]; then
  echo "adhere sandbox: the bridge to the recording proxy (socat) did not start: $e" >&2
  exit 125
fi
shift 5
exec "$@"
"""
"""Run inside: ``sh -c INNER_SCRIPT sh BLOCKS SOCAT PORT SOCKET FIFO CLI ARG…``.

Sets the file-size limit, starts the proxy bridge with its log going to ``FIFO`` (a
named pipe made outside), blocks reading that log until socat says it listens on
``127.0.0.1:PORT`` (no polling: socat gets the CPU), then becomes the CLI. socat
ignores the broken pipe once nobody reads its log."""

OFFLINE_SCRIPT = """\
ulimit -f "$1" || exit 125
shift
exec "$@"
"""
"""Run inside a sandbox without network: ``sh -c OFFLINE_SCRIPT sh BLOCKS COMMAND ARG…``.

Sets the file-size limit and becomes the command (the reference agent's Bash tool,
which needs no proxy: its agent loop runs in the runner)."""


def runs_in_sandbox(scaffold: object) -> bool:
    """``scaffold`` runs an agent CLI, in the agent sandbox unless a trial turns it off."""
    return bool(getattr(scaffold, "agent_sandbox", False))


def check_agent_sandbox() -> Layout:
    """What the agent sandbox uses on this host, found once (a few ms, then cached).

    Raises:
        SandboxUnavailable: bubblewrap or socat is missing or cannot make namespaces
            here; the message says how to fix it (install them, or ``sandbox: off``).
    """
    from adhere.scaffolds._sandbox_host import host_layout  # subprocess, asyncio: lazily

    return host_layout()


def inside_url(base_url: str) -> tuple[str, str, int]:
    """The URL the sandboxed CLI uses, and the host and port the bridge relays to.

    Inside, the proxy is always at ``127.0.0.1`` on the base URL's port (the path is
    kept), so a CLI configured with ``http://127.0.0.1:PORT/t/…`` needs no change.

    Raises:
        ValueError: The URL is not ``http://HOST:PORT…`` (an ``https`` proxy or one
            without a port cannot be bridged).
    """
    parts = urlsplit(base_url)
    if parts.scheme != "http" or not parts.hostname or parts.port is None:
        raise ValueError(
            f"the agent sandbox bridges only http://HOST:PORT proxy URLs, got {base_url!r}"
        )
    inside = urlunsplit(
        ("http", f"127.0.0.1:{parts.port}", parts.path, parts.query, parts.fragment)
    )
    return inside, parts.hostname, parts.port


def sandbox_argv(
    layout: Layout,
    limits: SandboxLimits,
    command: Sequence[str],
    *,
    workdir: str,
    home: str,
    install_dir: str | None,
    bridge_dir: str | None,
    port: int | None,
    masked: Sequence[str] = (),
) -> list[str]:
    """The whole command line of one sandboxed turn (see the module docstring).

    Args:
        layout: What the host offers.
        limits: Size limits.
        command: The CLI's own argument vector.
        workdir: The trial's workspace (read-write, the working directory).
        home: The trial's throwaway HOME (read-write).
        install_dir: The CLI's install directory (read-only); ``None`` for none.
        bridge_dir: The directory outside holding the bridge's socket (read-only,
            at :data:`BRIDGE_DIR`); ``None``: no bridge, so no network at all (the
            command runs under :data:`OFFLINE_SCRIPT`).
        port: The proxy port the CLI connects to on ``127.0.0.1`` (with a bridge).
        masked: Directories inside the writable ones replaced by an empty, small
            tmpfs (the runner's logs of the turns in HOME: the CLI writes its output
            through the descriptors it was given, and cannot read or alter them).
    """
    size = str(limits.tmp_mb * _MIB)
    argv = [layout.bwrap, "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net"]
    argv += ["--unshare-cgroup-try", "--hostname", "adhere-sandbox"]
    if layout.no_userns:
        argv += ["--unshare-user", "--disable-userns"]
    argv += ["--die-with-parent", "--new-session"]
    for path, target in layout.system:
        argv += ["--symlink", target, path] if target is not None else ["--ro-bind", path, path]
    for path in layout.private_files:
        argv += ["--ro-bind", "/dev/null", path]
    for path in layout.private_dirs:
        argv += ["--perms", "0700", "--tmpfs", path]
    argv += ["--proc", "/proc", "--dev", "/dev"]
    argv += ["--perms", "1777", "--size", size, "--tmpfs", "/tmp"]
    argv += ["--perms", "1777", "--size", size, "--tmpfs", "/dev/shm"]
    shown: list[str] = []
    for path in (*layout.extra_ro, *(() if install_dir is None else (install_dir,))):
        if path not in shown:
            shown.append(path)
            argv += ["--ro-bind", path, path]
    argv += ["--bind", home, home, "--bind", workdir, workdir]
    for path in masked:
        argv += ["--perms", "0700", "--size", str(_MIB), "--tmpfs", path]
    if bridge_dir is not None:
        argv += ["--ro-bind", bridge_dir, BRIDGE_DIR]
    # directories bwrap created on the way to the mounts above stay empty and read-only
    argv += ["--remount-ro", "/", "--chdir", workdir]
    if layout.is_root:
        argv += ["--cap-drop", "ALL"]
    blocks = str(limits.file_mb * _MIB // 512)  # sh's ulimit -f counts 512-byte blocks
    if bridge_dir is None or port is None:
        return [*argv, "--", "/bin/sh", "-c", OFFLINE_SCRIPT, "sh", blocks, *command]
    socket = posixpath.join(BRIDGE_DIR, BRIDGE_SOCKET)
    ready = posixpath.join(BRIDGE_DIR, BRIDGE_READY)
    inner = ["/bin/sh", "-c", INNER_SCRIPT, "sh", blocks, layout.socat, str(port), socket, ready]
    return [*argv, "--", *inner, *command]
