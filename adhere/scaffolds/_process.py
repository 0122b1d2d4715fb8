"""Running one headless CLI invocation in its own process group, with a deadline.

Output goes to files (in the trial's home, never the workspace), not pipes: a
background child that keeps a pipe open cannot then hang the runner, and the whole
output stays available for parsing. When the deadline passes, the whole process
group gets SIGTERM, then SIGKILL after a grace period; after a normal exit, whatever
the CLI left running in its group is killed too.

On Linux the CLI runs under a guard (:mod:`adhere.scaffolds._guard`), a tiny parent
that is a child subreaper and dies with the runner: whatever the CLI starts — also
daemons that left its session — is ended when the CLI exits, when the group is
signalled, or when the runner dies, even by ``SIGKILL``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from adhere.scaffolds._types import TurnOutcome

__all__ = ["Completed", "guarded", "kill_group", "run_process", "tail"]

TAIL_CHARS = 4000
"""How much of stdout and stderr a :class:`TurnOutcome` keeps."""

_MAX_READ = 64 * 1024 * 1024
_GRACE_SECONDS = 3.0
_GUARD = Path(__file__).with_name("_guard.py")


def guarded(argv: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """``argv`` run under the guard where it works (Linux), else ``argv`` itself.

    Raises:
        FileNotFoundError: The program is not on ``env``'s ``PATH`` (checked here, as
            the guard could only report it by its exit status).
    """
    if not sys.platform.startswith("linux"):
        return list(argv)
    program = argv[0]
    if "/" not in program and shutil.which(program, path=env.get("PATH", os.defpath)) is None:
        raise FileNotFoundError(2, "No such file or directory", program)
    return [sys.executable, "-I", "-S", str(_GUARD), str(os.getpid()), *argv]


@dataclass(frozen=True)
class Completed:
    """An invocation that ended: its outcome and its full stdout (for parsing)."""

    outcome: TurnOutcome
    stdout: str


def tail(text: str, limit: int = TAIL_CHARS) -> str:
    """The last ``limit`` characters of ``text``, marked when cut."""
    if len(text) <= limit:
        return text
    return "[…]" + text[-limit:]


async def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    log_prefix: Path,
    stdin: str | None = None,
    watch: Callable[[], Awaitable[str | None]] | None = None,
    watch_interval: Callable[[], float] = lambda: 1.0,
) -> Completed:
    """Run ``argv`` in a new session and wait for it, at most ``timeout`` seconds.

    Args:
        argv: Program and arguments (never run through a shell).
        cwd: Working directory.
        env: The complete environment (see :mod:`adhere.scaffolds._env`).
        timeout: Seconds before the process group is killed; ``<= 0`` kills at once.
        log_prefix: Output goes to ``<prefix>.stdout`` and ``<prefix>.stderr``.
        stdin: Text written to the process's stdin, which is then closed; ``None``
            connects stdin to ``/dev/null``.
        watch: Called every ``watch_interval()`` seconds while the process runs; a
            reason it returns stops the process group, as a timeout does, and is
            written at the end of the outcome's ``stderr_tail``.
        watch_interval: Seconds between two calls of ``watch``.

    Raises:
        OSError: The program cannot be started (missing or not executable).
    """
    log_prefix.parent.mkdir(parents=True, exist_ok=True)
    out_path = log_prefix.with_name(log_prefix.name + ".stdout")
    err_path = log_prefix.with_name(log_prefix.name + ".stderr")
    started = time.monotonic()
    timed_out = False
    stopped: str | None = None
    with out_path.open("wb") as out, err_path.open("wb") as err:
        process = await asyncio.create_subprocess_exec(
            *guarded(argv, env),
            cwd=cwd,
            env=dict(env),
            stdin=asyncio.subprocess.DEVNULL if stdin is None else asyncio.subprocess.PIPE,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        try:
            if stdin is not None and process.stdin is not None:
                await _feed(process.stdin, stdin)
            try:
                stopped = await asyncio.wait_for(
                    _wait(process, watch, watch_interval), timeout=max(timeout, 0.001)
                )
            except TimeoutError:
                timed_out = True
                await _terminate(process)
            if stopped is not None:
                await _terminate(process)
        except BaseException:
            await _terminate(process)
            raise
        finally:
            kill_group(process.pid, signal.SIGKILL)
    stdout = _read(out_path)
    stderr = _read(err_path)
    if stopped is not None:
        stderr += f"\nadhere: the turn was stopped: {stopped}\n"
    outcome = TurnOutcome(
        exit_code=None if timed_out or stopped else process.returncode,
        stdout_tail=tail(stdout),
        stderr_tail=tail(stderr),
        timed_out=timed_out,
        seconds=round(time.monotonic() - started, 3),
    )
    return Completed(outcome=outcome, stdout=stdout)


async def _wait(
    process: asyncio.subprocess.Process,
    watch: Callable[[], Awaitable[str | None]] | None,
    interval: Callable[[], float],
) -> str | None:
    """Wait for ``process``; return early with the reason ``watch`` gives to stop it."""
    if watch is None:
        await process.wait()
        return None
    waiting = asyncio.ensure_future(process.wait())
    try:
        while True:
            done, _ = await asyncio.wait({waiting}, timeout=interval())
            if done:
                return None
            reason = await watch()
            if reason is not None:
                return reason
    finally:
        waiting.cancel()


def kill_group(pgid: int, sig: signal.Signals) -> bool:
    """Send ``sig`` to process group ``pgid``; false when the group is already gone."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # the id was reused by someone else's group
        return False
    return True


async def _feed(writer: asyncio.StreamWriter, text: str) -> None:
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        writer.write(text.encode("utf-8"))
        await writer.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        writer.close()
        await writer.wait_closed()


async def _terminate(process: asyncio.subprocess.Process) -> None:
    """SIGTERM the group, then SIGKILL it if the leader outlives the grace period."""
    kill_group(process.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(asyncio.shield(process.wait()), timeout=_GRACE_SECONDS)
    except TimeoutError:
        pass
    kill_group(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        await process.wait()


def _read(path: Path) -> str:
    with path.open("rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, size - _MAX_READ))
        data = handle.read()
    return data.decode("utf-8", errors="replace")
