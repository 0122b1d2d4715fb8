"""The agent sandbox's side on the host: finding bwrap, the proxy bridge, the disk watch.

- :func:`host_layout` finds what the sandbox needs here (``bwrap`` that can make the
  namespaces, ``socat``, the system paths, the private ``/etc`` entries, Node) once
  per process, or raises :class:`~adhere.errors.SandboxUnavailable` saying how to fix
  it (install bubblewrap and socat, or ``sandbox: off``).
- :class:`ProxyBridge` listens on a Unix socket in a private directory (bound into
  the sandbox read-only) and relays each connection to the proxy's TCP address: the
  sandbox's only way out.
- :class:`DiskWatch` measures how much the workspace and HOME grew since the trial
  started; the turn is stopped when they grow past the limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import shutil
import stat
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

from adhere.errors import SandboxUnavailable
from adhere.scaffolds._sandbox import BRIDGE_READY, BRIDGE_SOCKET, Layout, SandboxLimits

__all__ = [
    "SYSTEM_PATHS",
    "DiskWatch",
    "ProxyBridge",
    "host_layout",
    "private_entries",
    "remove_stale_bridges",
]

SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
"""Top-level paths shown read-only in the sandbox, where the host has them."""

_FIX = (
    "install bubblewrap and socat (Debian/Ubuntu: apt-get install bubblewrap socat), or "
    "set 'sandbox: off' in the Rollout's spec on a host that cannot make namespaces "
    "(agent CLIs then run unconfined, as this user, with the host's network)"
)
_PROBE_TIMEOUT = 30.0


def _under(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def private_entries(root: str) -> tuple[list[str], list[str]]:
    """Files and directories under ``root`` that are not world-readable (not followed)."""
    files: list[str] = []
    dirs: list[str] = []
    for current, subdirs, names in os.walk(root):
        keep = []
        for name in subdirs:
            mode = _lmode(os.path.join(current, name))
            if mode is not None and stat.S_ISDIR(mode) and not mode & stat.S_IROTH:
                dirs.append(os.path.join(current, name))
            elif mode is not None:
                keep.append(name)
        subdirs[:] = keep
        for name in names:
            mode = _lmode(os.path.join(current, name))
            if mode is not None and stat.S_ISREG(mode) and not mode & stat.S_IROTH:
                files.append(os.path.join(current, name))
    return sorted(files), sorted(dirs)


def _lmode(path: str) -> int | None:
    """The mode of ``path`` itself (a link is not followed); ``None`` when it is gone."""
    try:
        return os.lstat(path).st_mode
    except OSError:
        return None


def _shown_dir(program: str, system: list[str]) -> str | None:
    """The directory to show read-only for ``program`` when no system path holds it."""
    real = os.path.realpath(program)
    if any(_under(real, s) for s in system):
        return None
    bin_dir = os.path.dirname(real)
    return os.path.dirname(bin_dir) if os.path.basename(bin_dir) == "bin" else bin_dir


@functools.cache
def host_layout() -> Layout:
    """What the agent sandbox uses on this host (found once; see the module docstring).

    Raises:
        SandboxUnavailable: ``bwrap`` or ``socat`` is missing, or ``bwrap`` cannot
            make the namespaces here; the message says how to fix it.
    """
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable(
            f"the agent sandbox is on, but bubblewrap (bwrap) is not installed: {_FIX}",
            field="spec.sandbox",
        )
    socat = shutil.which("socat")
    if socat is None:
        raise SandboxUnavailable(
            "the agent sandbox is on, but socat (which bridges the sandbox to the "
            f"recording proxy) is not installed: {_FIX}",
            field="spec.sandbox",
        )
    probe = [bwrap, "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net"]
    probe += ["--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"]
    done = _probe(bwrap, probe)
    if done.returncode != 0:
        why = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        raise SandboxUnavailable(
            f"the agent sandbox is on, but bubblewrap cannot make namespaces here "
            f"({why[0]}): {_FIX}",
            field="spec.sandbox",
        )
    no_userns = _probe(bwrap, [*probe, "--unshare-user", "--disable-userns"]).returncode == 0
    system: list[tuple[str, str | None]] = []
    for path in SYSTEM_PATHS:
        if os.path.islink(path):
            system.append((path, os.readlink(path)))
        elif os.path.isdir(path):
            system.append((path, None))
    shown = [os.path.realpath(p) for p, _ in system]
    extra = []
    for program in (shutil.which("node"), socat):
        if program is not None:
            directory = _shown_dir(program, shown)
            if directory is not None and directory not in extra:
                extra.append(directory)
    files, dirs = private_entries("/etc") if os.path.isdir("/etc") else ([], [])
    return Layout(
        bwrap=bwrap,
        socat=socat,
        system=tuple(system),
        private_files=tuple(files),
        private_dirs=tuple(dirs),
        extra_ro=tuple(extra),
        is_root=os.geteuid() == 0,
        no_userns=no_userns,
    )


def _probe(bwrap: str, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """Run ``argv -- /bin/true``; raise SandboxUnavailable when it cannot run at all."""
    try:
        return subprocess.run(
            [*argv, "--", "/bin/true"], capture_output=True, text=True, timeout=_PROBE_TIMEOUT
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxUnavailable(
            f"the agent sandbox is on, but {bwrap} could not be run ({exc}): {_FIX}",
            field="spec.sandbox",
        ) from None


_BRIDGE_PREFIX = "adhere-bridge-"


def remove_stale_bridges(root: Path) -> list[Path]:
    """Remove the bridge directories under ``root`` whose runner (pid in the name) is gone.

    A runner killed with ``SIGKILL`` cannot remove its own.
    """
    removed = []
    for path in root.glob(f"{_BRIDGE_PREFIX}*-*"):
        pid = path.name[len(_BRIDGE_PREFIX) :].split("-", 1)[0]
        if not pid.isdigit() or Path(f"/proc/{pid}").exists():
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


class ProxyBridge:
    """A Unix socket relaying every connection to ``host:port`` (the proxy), in this loop.

    ``directory`` (a fresh private directory) holds the socket and the named pipe
    through which the sandbox's inner script learns that socat listens; it is bound
    into the sandbox read-only, and removed when the bridge closes.
    """

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        remove_stale_bridges(Path(tempfile.gettempdir()))
        self.directory = Path(tempfile.mkdtemp(prefix=f"{_BRIDGE_PREFIX}{os.getpid()}-"))
        os.mkfifo(self.directory / BRIDGE_READY, 0o600)
        self._server: asyncio.Server | None = None
        self._relays: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> ProxyBridge:
        self._server = await asyncio.start_unix_server(
            self._accept, path=str(self.directory / BRIDGE_SOCKET)
        )
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._relays):
            task.cancel()
        await asyncio.gather(*self._relays, return_exceptions=True)
        shutil.rmtree(self.directory, ignore_errors=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._relays.add(task)
        try:
            try:
                up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
            except OSError:
                return
            try:
                await asyncio.gather(_pump(reader, up_writer), _pump(up_reader, writer))
            finally:
                up_writer.close()
        finally:
            writer.close()
            self._relays.discard(task)


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, OSError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()


def _usage(paths: tuple[Path, ...]) -> tuple[int, int]:
    """Bytes allocated and entries under ``paths`` (symlinks not followed)."""
    total = entries = 0
    for root in paths:
        for current, dirs, files in os.walk(root):
            for name in (*dirs, *files):
                entries += 1
                with contextlib.suppress(OSError):
                    total += os.lstat(os.path.join(current, name)).st_blocks * 512
    return total, entries


class DiskWatch:
    """How much a trial's workspace and HOME grew, against :class:`SandboxLimits`.

    The baseline is measured when the watch is made (before the first turn).
    :attr:`interval` grows with the cost of one measurement, so a large workspace is
    walked less often.
    """

    def __init__(self, paths: tuple[Path, ...], limits: SandboxLimits) -> None:
        self.paths = paths
        self.limits = limits
        started = time.monotonic()
        self.base_bytes, self.base_entries = _usage(paths)
        self.interval = max(1.0, 20 * (time.monotonic() - started))

    async def check(self) -> str | None:
        """Why the turn must stop (the workspace and HOME grew too much), or ``None``."""
        started = time.monotonic()
        used, entries = await asyncio.to_thread(_usage, self.paths)
        self.interval = max(1.0, 20 * (time.monotonic() - started))
        grown_mb = (used - self.base_bytes) / (1024 * 1024)
        if grown_mb > self.limits.growth_mb:
            return (
                f"the workspace and HOME grew by {grown_mb:.0f} MiB, past the sandbox's "
                f"limit of {self.limits.growth_mb} MiB"
            )
        if entries - self.base_entries > self.limits.growth_files:
            return (
                f"the workspace and HOME gained {entries - self.base_entries} files, past the "
                f"sandbox's limit of {self.limits.growth_files}"
            )
        return None
