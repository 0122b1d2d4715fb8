"""What a scripted policy sees (a :class:`Conversation`) and says (a :class:`Reply`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

from adhere.spec._chat import ChatMessage, ToolCall, ToolSpec, conversation_digest

__all__ = [
    "FREEFORM_KEY",
    "AnswerKey",
    "ApiName",
    "Conversation",
    "Policy",
    "ReplaySource",
    "Reply",
    "WrongFn",
    "call_id",
    "freeform_input",
    "is_freeform",
    "unit_hash",
]

ApiName = Literal["openai", "anthropic", "responses", "gemini"]
"""The API a request came through: Chat Completions, Messages, Responses or Gemini."""

FREEFORM_KEY = "x-adhere-freeform"
"""Marks a free-form tool's schema (the Responses API's ``custom`` tools, e.g. Codex's
``apply_patch``): the tool takes one string, carried as the argument ``input``; the
key's value is the tool's ``format`` (or ``{"type": "text"}``)."""


def is_freeform(tool: ToolSpec) -> bool:
    """Whether ``tool`` is a free-form (custom) tool taking one string."""
    return FREEFORM_KEY in tool.parameters


def freeform_input(call: ToolCall) -> str:
    """The string a call to a free-form tool carries (``input``, else the arguments' JSON)."""
    value = call.arguments.get("input")
    if isinstance(value, str) and len(call.arguments) == 1:
        return value
    return json.dumps(call.arguments, ensure_ascii=False)


@dataclass(frozen=True)
class Conversation:
    """One chat request to the policy server, decoded from either API.

    Attributes:
        model: The request's whole ``model`` string, e.g. ``noisy:rate=0.2,seed=7``.
        policy: The policy name taken from it, e.g. ``noisy``.
        options: The policy's own options (the generic fault options removed).
        system: System prompt (several system parts joined by blank lines).
        messages: User, assistant and tool messages, in order.
        tools: Tools offered with the request.
        api: Which API the request came through.
    """

    model: str
    policy: str
    options: Mapping[str, str]
    system: str
    messages: tuple[ChatMessage, ...]
    tools: tuple[ToolSpec, ...] = ()
    api: ApiName = "openai"

    @property
    def digest(self) -> str:
        """:func:`conversation_digest` of the system prompt and messages (API-independent)."""
        return conversation_digest(self.system, self.messages)

    @property
    def assistant_turns(self) -> int:
        """Assistant messages already in the conversation (0 before the first reply)."""
        return sum(1 for message in self.messages if message.role == "assistant")


@dataclass(frozen=True)
class Reply:
    """What a policy answers: text, tool calls and visible reasoning, any of them empty."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = field(default=())
    reasoning: str = ""


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


def call_id(conversation: Conversation, index: int) -> str:
    """A stable tool-call id for the ``index``-th call of the reply to ``conversation``."""
    seed = f"{conversation.digest}\x1f{conversation.assistant_turns}\x1f{index}"
    return "call_" + hashlib.sha256(seed.encode("utf-8")).hexdigest()[:24]
