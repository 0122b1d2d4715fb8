"""One sandboxed process: temp directory, limits, namespaces, output, timeout, cleanup.

The evaluator only starts a process and reads what comes back; the untrusted code
is compiled and run by the harness (:mod:`adhere.sandbox._harness` and
:mod:`adhere.sandbox._harness_modes`) in that process.

Per run:

1. a fresh directory (``adhere-sandbox-*`` under the evaluator's temp dir) is the
   working directory, ``HOME`` and ``TMPDIR``; ``files`` are written into it; it is
   removed afterwards;
2. the job goes to the harness :mod:`marshal`-encoded, in an unlinked temporary
   file whose descriptor the child inherits; a pipe brings back its outcome lines;
3. the child is ``[bwrap … --] python -s -c <bootstrap> <job fd> <result fd>`` (or
   ``unshare``; :mod:`adhere.sandbox._plan` decides), in a new session, with a
   minimal environment;
   the harness's first act is to set the rlimits and, as root, drop to the
   unprivileged uid — before any untrusted code exists in the process. (Not in a
   ``preexec_fn``: that runs Python between fork and exec, which can deadlock when
   the evaluator has threads — asyncio's child watchers, ``to_thread``, Ray — and
   forces ``fork`` instead of ``vfork``, measured at 4 ms of evaluator CPU per run);
4. stdin is fed, stdout and stderr are read with a cap (the rest drained);
5. at the wall-clock limit the process group gets SIGKILL; after a normal exit too,
   so nothing the code started survives in the group (a PID namespace also takes the
   processes that left it).
"""

from __future__ import annotations

import asyncio
import contextlib
import marshal
import os
import shutil
import signal
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from types import CodeType
from typing import Any

from adhere.sandbox import _probe
from adhere.sandbox._classify import Mode, classify, parse_records
from adhere.sandbox._plan import Plan, environment, plan_run, rlimits, safe_path
from adhere.sandbox._types import Limits, RunResult, SandboxError

__all__ = ["execute"]

_DRAIN_SECONDS = 2.0
_CHUNK = 65536


_HARNESS_PARTS = ("_harness.py", "_harness_modes.py")
"""The harness's modules, executed in this order into one namespace by the bootstrap."""


@cache
def _harness_source() -> tuple[str, ...]:
    here = Path(__file__).parent
    return tuple((here / name).read_text(encoding="utf-8") for name in _HARNESS_PARTS)


@cache
def _harness_code() -> tuple[CodeType, ...]:
    return tuple(
        compile(source, "<string>", "exec", dont_inherit=True) for source in _harness_source()
    )


@cache
def _same_interpreter(python: str) -> bool:
    return os.path.realpath(python) == os.path.realpath(sys.executable)


def _harness_for(python: str) -> tuple[CodeType, ...] | tuple[str, ...]:
    """A code object for the evaluator's own interpreter (same bytecode), else source."""
    return _harness_code() if _same_interpreter(python) else _harness_source()


def _write_files(root: Path, files: Mapping[str, str], uid: int | None) -> None:
    for name, text in files.items():
        target = root / safe_path(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    if uid is not None:
        os.chown(root, uid, uid)
        os.chmod(root, 0o755)  # read by uid 0 without capabilities (bwrap) before the drop
        for dirpath, dirnames, filenames in os.walk(root):
            for name in dirnames + filenames:
                os.chown(os.path.join(dirpath, name), uid, uid, follow_symlinks=False)


def _remove_tree(root: Path) -> None:
    def retry(function: Callable[..., Any], path: str, _exc: object) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(path), stat.S_IRWXU)
            os.chmod(path, stat.S_IRWXU)
            function(path)

    shutil.rmtree(root, onerror=retry)
    shutil.rmtree(root, ignore_errors=True)


class _Capped:
    """Reads a stream to its end, keeping at most ``cap`` bytes."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.kept = bytearray()
        self.total = 0

    async def read(self, stream: asyncio.StreamReader | None) -> None:
        if stream is None:
            return
        while chunk := await stream.read(_CHUNK):
            self.total += len(chunk)
            room = self.cap - len(self.kept)
            if room > 0:
                self.kept += chunk[:room]

    def text(self) -> str:
        text = self.kept.decode("utf-8", "replace")
        if self.total > len(self.kept):
            text += (
                f"\n[adhere sandbox: output truncated, {self.total - len(self.kept)} more bytes]\n"
            )
        return text


async def _feed(stream: asyncio.StreamWriter | None, data: bytes) -> None:
    if stream is None:
        return
    try:
        if data:
            stream.write(data)
            await stream.drain()
        stream.close()
        await stream.wait_closed()
    except (BrokenPipeError, ConnectionResetError):
        pass


def _close_pipes(process: asyncio.subprocess.Process) -> None:
    """Close a reaped process's pipes now, not at garbage collection.

    A process left outside the group may still hold a pipe, which keeps the
    subprocess transport open after the harness was reaped; left to the garbage
    collector, it is closed with a ``ResourceWarning`` at an arbitrary later moment.
    """
    transport = getattr(process, "_transport", None)  # asyncio keeps no public handle
    if transport is not None and process.returncode is not None:
        transport.close()


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _read_available(fd: int) -> bytes:
    os.set_blocking(fd, False)
    chunks = []
    while True:
        try:
            chunk = os.read(fd, _CHUNK)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _plan(python: str, limits: Limits, fds: tuple[int, int], workdir: Path) -> Plan:
    found = _probe.host()
    return plan_run(
        python,
        limits,
        fds,
        host=found,
        workdir=str(workdir),
        is_root=os.geteuid() == 0,
        can_run_as=_probe.can_run_as,
        interpreter_paths=_probe.interpreter_paths(python) if found.bwrap else (),
    )


async def execute(
    mode: Mode,
    job: Mapping[str, Any],
    *,
    files: Mapping[str, str],
    stdin: str,
    limits: Limits,
    python: str | None,
) -> RunResult:
    """Run the harness on ``job`` in a fresh sandbox and classify how it ended.

    Raises:
        ValueError: A file path leaves the directory.
        SandboxError: The interpreter cannot be started, or ``netns`` was required
            and is unavailable.
    """
    interpreter = python or _default_python()
    if not (os.path.isfile(interpreter) and os.access(interpreter, os.X_OK)):
        raise SandboxError(
            f"cannot start the sandboxed interpreter {interpreter!r}: not executable"
        )
    for name in files:
        safe_path(name)
    if not _probe.is_cached(interpreter, limits.unprivileged_uid):
        await asyncio.to_thread(_probe.sandbox_info, interpreter, limits.unprivileged_uid)
    root = Path(tempfile.mkdtemp(prefix="adhere-sandbox-")).resolve()
    try:
        return await _execute_in(root, mode, job, files, stdin, limits, interpreter)
    finally:
        await asyncio.to_thread(_remove_tree, root)


def _default_python() -> str:
    return sys.executable


async def _execute_in(
    root: Path,
    mode: Mode,
    job: Mapping[str, Any],
    files: Mapping[str, str],
    stdin: str,
    limits: Limits,
    python: str,
) -> RunResult:
    read_fd, write_fd = os.pipe()
    open_fds = {read_fd, write_fd}
    with tempfile.TemporaryFile() as job_file, contextlib.ExitStack() as cleanup:
        cleanup.callback(_close_all, open_fds)
        plan = _plan(python, limits, (job_file.fileno(), write_fd), root)
        _write_files(root, files, plan.uid)
        payload = {
            **job,
            "mode": mode,
            "guard": plan.isolation == "guard",
            "rlimits": rlimits(limits, apply_nproc=plan.uid is not None),
            "uid": plan.uid,
        }
        job_file.write(marshal.dumps((_harness_for(python), payload), 4))
        job_file.flush()
        job_file.seek(0)
        uid = plan.uid if plan.uid is not None else os.geteuid()
        out, err = _Capped(limits.max_output), _Capped(limits.max_output)
        started = time.monotonic()
        try:
            process = await asyncio.create_subprocess_exec(
                *plan.argv,
                cwd=root,
                env=environment(root, python),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                pass_fds=(job_file.fileno(), write_fd),
            )
        except OSError as exc:
            raise SandboxError(f"cannot start the sandboxed interpreter {python!r}: {exc}") from exc
        open_fds.discard(write_fd)
        os.close(write_fd)  # the child holds the only write end now
        readers = [
            asyncio.ensure_future(out.read(process.stdout)),
            asyncio.ensure_future(err.read(process.stderr)),
            asyncio.ensure_future(_feed(process.stdin, stdin.encode("utf-8"))),
        ]
        timed_out = False
        try:
            try:
                await asyncio.wait_for(process.wait(), timeout=limits.timeout)
            except TimeoutError:
                timed_out = True
                _kill_group(process.pid)
                await process.wait()
            seconds = time.monotonic() - started
        finally:
            _kill_group(process.pid)  # whatever the code left running in its group
            if process.returncode is None:  # cancelled: the watcher reaps it
                for reader in readers:
                    reader.cancel()
        _, pending = await asyncio.wait(readers, timeout=_DRAIN_SECONDS)
        for reader in pending:  # a process outside the group still holds a pipe
            reader.cancel()
        _close_pipes(process)
        records = parse_records(_read_available(read_fd))
    stderr = err.text()
    decision = classify(
        mode,
        timed_out=timed_out,
        timeout=limits.timeout,
        returncode=process.returncode,
        records=records,
        cpu_limit=limits.cpu_seconds,
        stderr=stderr,
        seconds=seconds,
    )
    return RunResult(
        status=decision.status,
        returncode=None if timed_out else process.returncode,
        stdout=out.text(),
        stderr=stderr,
        seconds=round(seconds, 3),
        detail=decision.detail,
        isolation=plan.isolation,
        uid=uid,
    )


def _close_all(fds: set[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)
