"""The ``chat`` scaffold: plain single- or multi-turn chat through the model client.

Each user turn of the instance is sent with the whole conversation so far; the
assistant's reply is appended before the next turn. No tools are offered.
"""

from __future__ import annotations

from adhere.models import ChatRequest, ModelClient
from adhere.scaffolds._registry import scaffold
from adhere.spec import ChatMessage, Instance, Trajectory


@scaffold("chat")
class ChatScaffold:
    """Multi-turn chat without tools."""

    name = "chat"

    def __init__(self, *, max_tokens: int | None = None) -> None:
        self.max_tokens = max_tokens

    async def run(self, instance: Instance, client: ModelClient) -> Trajectory:
        """Send every user turn in order and collect the replies."""
        messages: list[ChatMessage] = []
        for turn in instance.turns:
            messages.append(ChatMessage(role="user", content=turn))
            response = await client.complete(
                ChatRequest(
                    messages=tuple(messages),
                    system=instance.system_prompt,
                    max_tokens=self.max_tokens,
                )
            )
            messages.append(response.message)
        return Trajectory(
            meta={"scaffold": self.name, "instance": instance.id, "model": client.endpoint.model},
            system=instance.system_prompt,
            messages=messages,
        )
