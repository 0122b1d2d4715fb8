"""The ``chat`` scaffold: plain single- or multi-turn chat through the model client.

Each user turn is sent with the system prompt and the whole conversation so far;
the reply is kept for the next turn. No tools are offered and the workspace is not
touched, so the result lists no files. The client reaches the model through the
trial's proxy endpoint (``openai-chat`` or ``anthropic``).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from adhere.core import ChatMessage
from adhere.scaffolds._client import client_endpoint, open_trial_client
from adhere.scaffolds._registry import scaffold
from adhere.scaffolds._types import ScaffoldResult, TrialContext, TurnOutcome, WireApi
from adhere.wire import ChatRequest

__all__ = ["ChatScaffold"]


@scaffold("chat")
class ChatScaffold:
    """Multi-turn chat without tools.

    Args:
        max_tokens: Output cap per reply; unset takes the client's default.
    """

    name = "chat"
    api: WireApi = "openai-chat"
    """Either in-process shape works; the trial's endpoint decides which is used."""

    def __init__(self, *, max_tokens: int | None = None) -> None:
        self.max_tokens = max_tokens

    async def install(self, cache_dir: Path) -> None:
        """Nothing to install: the scaffold runs in-process."""

    async def run(self, ctx: TrialContext) -> ScaffoldResult:
        """Send every user turn in order within the time budget; ``final_text`` = last reply."""
        client_endpoint(ctx.endpoint)  # fail early on an API shape the clients lack
        client = open_trial_client(ctx.endpoint, max_tokens=self.max_tokens)
        deadline = time.monotonic() + ctx.timeout_seconds
        messages: list[ChatMessage] = []
        outcomes: list[TurnOutcome] = []
        reply = ""
        try:
            for turn in ctx.instance.turns:
                started = time.monotonic()
                messages.append(ChatMessage(role="user", content=turn))
                request = ChatRequest(messages=tuple(messages), system=ctx.instance.system_prompt)
                try:
                    response = await asyncio.wait_for(
                        client.complete(request), timeout=max(deadline - started, 0.001)
                    )
                except TimeoutError:
                    outcomes.append(
                        TurnOutcome(
                            exit_code=None,
                            stderr_tail="the trial's time budget ran out during this turn",
                            timed_out=True,
                            seconds=round(time.monotonic() - started, 3),
                        )
                    )
                    break
                messages.append(response.message)
                reply = response.message.content
                outcomes.append(
                    TurnOutcome(
                        exit_code=0,
                        seconds=round(time.monotonic() - started, 3),
                        final_text=reply,
                    )
                )
        finally:
            await client.aclose()
        return ScaffoldResult(turns=tuple(outcomes), final_text=reply)
