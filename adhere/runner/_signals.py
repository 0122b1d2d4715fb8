"""Stopping a run on ``SIGTERM`` or ``SIGHUP`` the way Ctrl-C stops it.

In a pod or under a job scheduler, ``SIGTERM`` is how work is stopped, and a closed
terminal sends ``SIGHUP``. :func:`run_interruptible` runs a coroutine with handlers
for both that cancel it: the engine stops starting trials, each trial in flight ends
its agent's process group (see :func:`adhere.scaffolds.run_process`), the run records
them as interrupted, and :class:`Interrupted` is raised with the signal, for an exit
status of ``128 + signal`` (143 for ``SIGTERM``, 129 for ``SIGHUP``). A signal set to be
ignored when the run starts (``nohup``) stays ignored; a handler installed before
is put back afterwards. Ctrl-C keeps asyncio's own
handling (``KeyboardInterrupt``, exit status 130).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Coroutine, Iterable
from typing import Any, TypeVar

__all__ = ["STOP_SIGNALS", "Interrupted", "run_interruptible"]

T = TypeVar("T")

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""The signals :func:`run_interruptible` turns into a clean stop."""


class Interrupted(Exception):  # noqa: N818 - it names what happened, as KeyboardInterrupt does
    """The run was stopped by a signal; its trials in flight are recorded as interrupted.

    Attributes:
        signum: The signal's number.
        exit_status: ``128 + signum``, the status a shell shows for it.
    """

    def __init__(self, signum: int) -> None:
        self.signum = signum
        self.exit_status = 128 + signum
        super().__init__(f"stopped by {signal.Signals(signum).name}")


def run_interruptible(
    main: Coroutine[Any, Any, T], signals: Iterable[signal.Signals] = STOP_SIGNALS
) -> T:
    """``asyncio.run(main)``, cancelling ``main`` on any of ``signals``.

    Raises:
        Interrupted: One of ``signals`` arrived (``main`` was cancelled and has
            cleaned up).
    """

    async def guarded() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        got: list[int] = []

        def on_signal(signum: int) -> None:
            got.append(signum)
            task.cancel()

        installed: dict[signal.Signals, Any] = {}
        for sig in signals:
            previous = signal.getsignal(sig)
            if previous is signal.SIG_IGN:
                continue
            loop.add_signal_handler(sig, on_signal, int(sig))
            installed[sig] = previous
        try:
            return await main
        except asyncio.CancelledError:
            if got:
                raise Interrupted(got[0]) from None
            raise
        finally:
            for sig, previous in installed.items():
                loop.remove_signal_handler(sig)
                if previous is not None:  # what was there before (another library's)
                    signal.signal(sig, previous)

    return asyncio.run(guarded())
