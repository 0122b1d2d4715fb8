"""SIGTERM and SIGHUP stop a run as Ctrl-C does: cancelled, cleaned up, 128 + signal."""

import asyncio
import os
import signal

import pytest

from adhere.runner import Interrupted, run_interruptible


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_stop_signal_cancels_the_run_after_its_cleanup(sig: signal.Signals, status: int) -> None:
    cleaned = []

    async def main() -> None:
        try:
            os.kill(os.getpid(), sig)
            await asyncio.Event().wait()
        finally:
            await asyncio.sleep(0)  # cleanup may still await
            cleaned.append(sig)

    # A run keeps a signal that was ignored when it started (nohup); a test process
    # started in the background may have inherited SIGHUP ignored: start from default.
    inherited = signal.signal(sig, signal.SIG_DFL)
    try:
        before = signal.getsignal(sig)
        with pytest.raises(Interrupted) as stopped:
            run_interruptible(main())
        assert stopped.value.signum == sig and stopped.value.exit_status == status
        assert sig.name in str(stopped.value)
        assert cleaned == [sig]
        assert signal.getsignal(sig) == before  # the handler is gone with the run
    finally:
        signal.signal(sig, inherited)


def test_a_signal_ignored_at_the_start_stays_ignored() -> None:
    """Under ``nohup`` SIGHUP is ignored: a closed terminal must not stop the run."""
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:

        async def main() -> str:
            os.kill(os.getpid(), signal.SIGHUP)
            await asyncio.sleep(0.05)
            return "finished"

        assert run_interruptible(main()) == "finished"
    finally:
        signal.signal(signal.SIGHUP, previous)


def test_a_cancellation_without_a_signal_stays_a_cancellation() -> None:
    async def main() -> None:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        await asyncio.sleep(1)

    with pytest.raises(asyncio.CancelledError):
        run_interruptible(main())


def test_a_handler_installed_before_the_run_is_put_back() -> None:
    seen: list[int] = []

    def mine(signum: int, frame: object) -> None:
        seen.append(signum)

    previous = signal.signal(signal.SIGTERM, mine)
    try:

        async def main() -> None:
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.Event().wait()

        with pytest.raises(Interrupted):
            run_interruptible(main())
        assert signal.getsignal(signal.SIGTERM) is mine and seen == []  # the run had it
    finally:
        signal.signal(signal.SIGTERM, previous)
