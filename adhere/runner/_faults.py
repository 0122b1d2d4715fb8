"""Upstream faults: when a trial's failure is the model service's, not the agent's.

A trial is an **upstream fault** when one of its model calls failed upstream (the
call's outcome is one of :data:`adhere.observe.UPSTREAM_FAULTS`: unreachable,
timeout, rate limited, 5xx, cut stream) and the scaffold did not recover from it:

- its **last** call (by ``seq``) failed upstream — whatever the scaffold then did
  (an agent CLI often exits 0 after a cut stream), the agent's work ended on the
  failure; or
- the scaffold itself failed (non-zero exit, timeout, a raised error such as the
  in-process client giving up after its retries) after any call failed upstream.

A call that failed and was followed by successful ones, with the scaffold finishing
normally, was recovered from (a client retrying one 5xx): the trial is scored as
usual, and the failed call stays in its records.

Such a trial is not scored (its checks count neither as passes nor as the agent's
failures), is retried under the Rollout's ``maxRetries``, and is reported apart.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from adhere.artifacts import ProxyCall
from adhere.observe import UPSTREAM_FAULTS, outcome_of

__all__ = ["outcome_counts", "reasoning_total", "retry_delay", "trial_fault"]

RETRY_BACKOFF_SECONDS = 5.0
"""Wait before the first in-run retry of an upstream fault; doubles, capped."""
_RETRY_BACKOFF_MAX = 120.0


def trial_fault(records: Sequence[ProxyCall], *, scaffold_failed: bool) -> str | None:
    """Why the trial is an upstream fault (see the module doc), or ``None``."""
    failed = [r for r in records if outcome_of(r) in UPSTREAM_FAULTS]
    if not failed:
        return None
    last = max(records, key=lambda r: r.seq)
    if outcome_of(last) in UPSTREAM_FAULTS:
        return (
            f"upstream fault: the last model call (#{last.seq}) failed "
            f"({outcome_of(last)}): {last.error}"
        )
    if scaffold_failed:
        call = failed[-1]
        return (
            f"upstream fault: model call #{call.seq} failed ({outcome_of(call)}: "
            f"{call.error}) and the scaffold did not recover"
        )
    return None


def outcome_counts(records: Sequence[ProxyCall]) -> dict[str, int]:
    """How many of the trial's calls ended in each outcome other than ``ok``."""
    counts = Counter(outcome_of(r) for r in records)
    counts.pop("ok", None)
    return dict(sorted(counts.items()))


def retry_delay(retry: int, base: float = RETRY_BACKOFF_SECONDS) -> float:
    """Seconds to wait before in-run retry number ``retry`` (1-based): doubling, capped."""
    return float(min(base * 2 ** (retry - 1), _RETRY_BACKOFF_MAX))


def reasoning_total(records: Sequence[ProxyCall]) -> int | None:
    """Reasoning tokens of a trial's calls; ``None`` when no call reported any."""
    counts = [c for c in (r.reasoning_tokens for r in records) if c is not None]
    return sum(counts) if counts else None
