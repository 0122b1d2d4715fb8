"""The proxy's calls in flight, per trial, and settling a trial once its scaffold is done.

A call is recorded when it ends, which can be after the client already has its
answer (the proxy relays the last event, then records). So whoever reads a trial's
records first *settles* the trial: :meth:`InFlight.settle` waits until none of its
calls is in flight, at most a grace period. A call still running then is ended:

- its reply was relayed whole (the stream's final event or finish reason passed; the
  upstream merely kept the connection open) → it is complete and recorded without
  error;
- otherwise → it is cut and recorded with the error ``cut: still in flight …`` (an
  upstream fault: the model service never finished the reply).

Once settled, the trial's numbering starts again at 0 (its next attempt), and the
answer says how many calls it started, so a reader of a call log on disk knows how
many records to expect.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any

from adhere.observe._proxy_record import CallLog

__all__ = ["DEFAULT_SETTLE_SECONDS", "InFlight", "Settled"]

DEFAULT_SETTLE_SECONDS = 10.0
"""How long a settle waits for a trial's calls in flight before ending them."""
_CANCEL_WAIT = 10.0


@dataclass(frozen=True)
class Settled:
    """What settling a trial found.

    Attributes:
        trial: The trial id.
        calls: Calls the trial started since it was last settled; each has been
            handed to the sink.
        ended: Calls still in flight after the grace period, ended by the settle.
        cut: Those of them whose reply was not whole (recorded with an error).
    """

    trial: str
    calls: int
    ended: int = 0
    cut: int = 0

    def to_json(self) -> dict[str, Any]:
        """The answer of ``POST /trials/<trial>/settle``."""
        return {"trial": self.trial, "calls": self.calls, "ended": self.ended, "cut": self.cut}


class InFlight:
    """Numbers each trial's calls and knows which are running (one event loop)."""

    def __init__(self) -> None:
        self._started: dict[str, int] = {}
        self._running: dict[str, dict[int, tuple[CallLog, asyncio.Task[Any] | None]]] = {}
        self._idle: dict[str, asyncio.Event] = {}

    def next_seq(self, trial: str) -> int:
        """Number the trial's next call (0-based, in order of arrival)."""
        seq = self._started.get(trial, 0)
        self._started[trial] = seq + 1
        return seq

    def begin(self, log: CallLog) -> None:
        """Note a call in flight, handled by the current task."""
        self._running.setdefault(log.trial, {})[id(log)] = (log, asyncio.current_task())

    def end(self, log: CallLog) -> None:
        """Note that a call's record has been handed to the sink."""
        running = self._running.get(log.trial)
        if running is None:
            return
        running.pop(id(log), None)
        if not running:
            del self._running[log.trial]
            idle = self._idle.pop(log.trial, None)
            if idle is not None:
                idle.set()

    def running(self, trial: str) -> int:
        """How many of the trial's calls are in flight."""
        return len(self._running.get(trial, {}))

    async def settle(self, trial: str, grace_seconds: float = DEFAULT_SETTLE_SECONDS) -> Settled:
        """Wait for the trial's calls in flight (at most ``grace_seconds``), then end the rest.

        Returns once every call the trial started is recorded (see the module doc).
        """
        await self._wait_idle(trial, grace_seconds)
        left = list(self._running.get(trial, {}).values())
        cut = 0
        for log, task in left:
            log.settled = True
            if not log.reply_ended():
                cut += 1
                log.error = log.error or (
                    f"cut: still in flight {grace_seconds:g}s after the trial's scaffold "
                    "finished (the upstream never ended its reply)"
                )
            if task is not None:
                task.cancel()
        if left:
            await self._wait_idle(trial, _CANCEL_WAIT)
        return Settled(trial, self._started.pop(trial, 0), len(left), cut)

    async def _wait_idle(self, trial: str, timeout: float) -> None:
        if not self._running.get(trial):
            return
        idle = self._idle.setdefault(trial, asyncio.Event())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(idle.wait(), timeout)
