"""Retry delays: exponential back-off with full jitter, and the server's ``Retry-After``."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from adhere.spec import Limits

__all__ = ["backoff_delay", "parse_retry_after"]


def parse_retry_after(headers: Mapping[str, str], *, now: datetime | None = None) -> float | None:
    """Read how long a server asks the client to wait, in seconds.

    ``retry-after-ms`` (milliseconds, sent by OpenAI) wins over ``retry-after``, which
    may be a number of seconds or an HTTP date. Header names are matched without
    regard to case. Negative waits become 0.

    Args:
        headers: Response headers.
        now: Current time for HTTP dates; defaults to the wall clock.

    Returns:
        The wait in seconds, or ``None`` when neither header is present and valid.
    """
    lowered = {key.lower(): value for key, value in headers.items()}
    millis = _number(lowered.get("retry-after-ms"))
    if millis is not None:
        return max(0.0, millis / 1000.0)
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    seconds = _number(raw)
    if seconds is not None:
        return max(0.0, seconds)
    try:
        when = parsedate_to_datetime(raw.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now if now is not None else datetime.now(UTC)
    return max(0.0, (when - current).total_seconds())


def backoff_delay(
    retry: int,
    limits: Limits,
    *,
    retry_after: float | None = None,
    rng: Callable[[], float] = random.random,
) -> float:
    """Seconds to wait before retry number ``retry`` (1 for the first retry).

    Without ``retry_after`` the delay is full jitter: uniform in
    ``[0, min(backoff_max_seconds, backoff_base_seconds * 2 ** (retry - 1))]``.
    With it, the server's wait is used as is, capped at ``backoff_max_seconds`` so a
    misbehaving server cannot stall a run.

    Args:
        retry: 1-based retry number.
        limits: The endpoint's limits (base and cap of the delay).
        retry_after: Wait the server asked for, if any.
        rng: Source of uniform numbers in ``[0, 1)``; injectable for tests.
    """
    cap = limits.backoff_max_seconds
    if retry_after is not None:
        return min(retry_after, cap)
    ceiling = min(cap, limits.backoff_base_seconds * 2.0 ** max(0, retry - 1))
    return rng() * ceiling


def _number(raw: str | None) -> float | None:
    if raw is None:
        return None
    try:
        value = float(raw.strip())
    except ValueError:
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return value
