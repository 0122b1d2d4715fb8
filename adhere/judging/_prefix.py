"""Ordering judge calls that share a prompt prefix, so a server's prefix cache can serve it.

Every call of one trial's judging starts with the same text: the fixed system prompt,
then the user text's intro and the whole transcript; only the checklist batch, the
re-ask note and the closing ask come after it (see :mod:`adhere.judging._prompt`).
A server that caches prompt prefixes (vLLM's automatic prefix caching, llama.cpp's
slots, hosted prompt caching) computes that prefix once and serves it to later calls
— but only to calls that arrive **after** a call with that prefix was processed.
Calls sent all at once each compute the transcript again.

A :class:`PrefixGate` orders the calls of one trial on one judge endpoint (every
batch, re-ask and judge of the panel that calls that endpoint):

1. **First alone.** Until one call has been answered, one call is in flight; the
   others wait. A call that raised (timeout, HTTP error) may not have left anything
   in the cache, so the next waiting call goes alone in its place.
2. **Then fan out**, at most ``width`` calls in flight (``None``: no limit beyond the
   endpoint's own ``concurrency``). Servers whose cache is shared by all requests
   (vLLM, hosted APIs) serve every later call from the cache at any width. Servers
   whose cache is per slot (llama.cpp's ``llama-server``: each slot keeps the prompt
   it last processed) recompute the prefix in every other slot a concurrent call
   lands in; ``width=1`` keeps one trial's calls in the slot that holds it.

The gate only orders; it never changes what is asked, so verdicts are the same.
``first_alone=False`` with no width is no gate at all (every call goes at once, as
before prefix ordering).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Literal

__all__ = ["ORDERINGS", "Ordering", "PrefixGate"]

Ordering = Literal["prefix", "concurrent"]
"""``prefix``: first call alone, then fan out (:class:`PrefixGate`); ``concurrent``: all
calls at once (the order before prefix ordering, kept for comparison)."""
ORDERINGS: tuple[Ordering, ...] = ("prefix", "concurrent")


class PrefixGate:
    """Lets the calls sharing one prompt prefix through: the first alone, then ``width`` at once.

    Args:
        width: Calls in flight at once after the first was answered; ``None`` for no
            limit.
        first_alone: Hold every call until one has been answered (on by default).

    Raises:
        ValueError: ``width`` below 1.
    """

    def __init__(self, *, width: int | None = None, first_alone: bool = True) -> None:
        if width is not None and width < 1:
            raise ValueError(f"width must be at least 1 (or None), got {width}")
        self.width = width
        self.first_alone = first_alone
        self._warm = not first_alone
        self._leading = False
        self._in_flight = 0
        self._changed: asyncio.Condition | None = None

    @classmethod
    def for_ordering(cls, ordering: Ordering, width: int | None = None) -> PrefixGate:
        """The gate of an :data:`Ordering` (``concurrent`` ignores ``width``).

        Raises:
            ValueError: An unknown ordering, or ``width`` below 1.
        """
        if ordering not in ORDERINGS:
            raise ValueError(f"ordering must be one of {', '.join(ORDERINGS)}, got {ordering!r}")
        if ordering == "concurrent":
            return cls(first_alone=False)
        return cls(width=width)

    @property
    def warm(self) -> bool:
        """Whether a call has been answered (or the gate never held calls back)."""
        return self._warm

    def _condition(self) -> asyncio.Condition:
        # Created on first use, inside the running event loop.
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    def _may_go(self) -> bool:
        if not self._warm:
            return not self._leading
        return self.width is None or self._in_flight < self.width

    @asynccontextmanager
    async def call(self) -> AsyncIterator[None]:
        """Hold one call until it may go; the block is the call.

        The block returning counts as an answer (the prefix was processed); raising,
        or being cancelled, does not.
        """
        if self._warm and self.width is None:
            yield  # nothing to order
            return
        changed = self._condition()
        async with changed:
            await changed.wait_for(self._may_go)
            leader = not self._warm
            self._leading = self._leading or leader
            self._in_flight += 1
        answered = False
        try:
            yield
            answered = True
        finally:
            async with changed:
                self._in_flight -= 1
                if leader:
                    self._leading = False
                    self._warm = self._warm or answered
                changed.notify_all()
