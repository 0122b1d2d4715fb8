"""What a scripted policy sees (a :class:`Conversation`) and says (a :class:`Reply`)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Protocol

from adhere.wire import Conversation, Reply

__all__ = [
    "AnswerKey",
    "Policy",
    "ReplaySource",
    "WrongFn",
    "unit_hash",
]

WrongFn = Callable[[str, str], bool]
"""``wrong(instance_id, item_key)``: should this item be answered wrongly on purpose?"""


class AnswerKey(Protocol):
    """Writes the reply a perfect model would give; supplied by the suite layer.

    It finds the instance a conversation belongs to and answers the current turn;
    items for which ``wrong(instance_id, item_key)`` is true are answered wrongly on
    purpose.
    """

    def answer(self, conversation: Conversation, wrong: WrongFn) -> Reply:
        """Answer the conversation's current turn.

        Raises:
            UnknownConversation: The conversation matches no instance.
        """
        ...


class ReplaySource(Protocol):
    """Recorded replies, looked up by conversation."""

    def lookup(self, conversation: Conversation) -> Reply | None:
        """The recorded reply to this conversation, or ``None`` when there is none."""
        ...


class Policy(Protocol):
    """A deterministic, synchronous answerer of conversations."""

    @property
    def name(self) -> str:
        """The policy's registered name."""
        ...

    def respond(self, conversation: Conversation) -> Reply:
        """The reply to the conversation's current turn.

        Raises:
            UnknownConversation: The policy cannot place the conversation.
        """
        ...


def unit_hash(*parts: str) -> float:
    """A deterministic number in ``[0, 1)`` from strings (SHA-256 of their joint form)."""
    joined = "\x1f".join(parts).encode("utf-8")
    return int.from_bytes(hashlib.sha256(joined).digest()[:8], "big") / 2.0**64
