"""Request counters of the policy server, readable from any thread."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

__all__ = ["ServerStats"]


class ServerStats:
    """Counts chat requests: in total, by model string, status, API and trial prefix.

    ``in_flight`` and ``max_in_flight`` count chat requests being answered at once, so
    tests can check a client's concurrency limit from the server side.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests = 0
        self._in_flight = 0
        self._max_in_flight = 0
        self._by_model: Counter[str] = Counter()
        self._by_status: Counter[str] = Counter()
        self._by_api: Counter[str] = Counter()
        self._by_trial: Counter[str] = Counter()

    def begin(self, api: str, trial: str | None) -> None:
        """A chat request arrived."""
        with self._lock:
            self._requests += 1
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            self._by_api[api] += 1
            if trial is not None:
                self._by_trial[trial] += 1

    def end(self, model: str | None, status: int) -> None:
        """A chat request was answered with ``status``."""
        with self._lock:
            self._in_flight -= 1
            self._by_model[model if model is not None else "<unreadable>"] += 1
            self._by_status[str(status)] += 1

    def snapshot(self) -> dict[str, Any]:
        """A JSON-ready copy of the counters."""
        with self._lock:
            return {
                "requests": self._requests,
                "in_flight": self._in_flight,
                "max_in_flight": self._max_in_flight,
                "by_model": dict(self._by_model),
                "by_status": dict(self._by_status),
                "by_api": dict(self._by_api),
                "by_trial": dict(self._by_trial),
            }
