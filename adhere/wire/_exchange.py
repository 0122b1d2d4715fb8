"""What crosses the wire, in neutral form: a request to send, a conversation received, a reply.

:class:`ChatRequest` is what a model client asks of any endpoint; each API shape's
client codec encodes it. :class:`Conversation` is a chat request *received* (the
server codecs decode every API shape into it) and :class:`Reply` what is sent back.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from adhere.core import ChatMessage, ToolCall, ToolSpec, conversation_digest

__all__ = [
    "FREEFORM_KEY",
    "ApiName",
    "ChatRequest",
    "Conversation",
    "Reply",
    "call_id",
    "freeform_input",
    "is_freeform",
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
class ChatRequest:
    """One chat completion to ask of a model.

    Attributes:
        messages: The conversation so far: ``user``, ``assistant`` and ``tool`` messages.
            The system prompt goes in ``system``, never in a ``system`` message.
        system: System prompt; empty means none.
        tools: Tools offered to the model.
        max_tokens: Output token cap; ``None`` takes ``Endpoint.max_tokens``.
        temperature: Sampling temperature; ``None`` takes ``Endpoint.temperature``.
        stream: Use the streaming form of the API; ``None`` takes ``Endpoint.stream``.
    """

    messages: tuple[ChatMessage, ...]
    system: str = ""
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int | None = None
    temperature: float | None = None
    stream: bool | None = None

    def __post_init__(self) -> None:
        for index, message in enumerate(self.messages):
            if message.role == "system":
                raise ValueError(
                    f"messages[{index}] has role 'system'; put the system prompt in "
                    "ChatRequest.system instead"
                )


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


def call_id(conversation: Conversation, index: int) -> str:
    """A stable tool-call id for the ``index``-th call of the reply to ``conversation``."""
    seed = f"{conversation.digest}\x1f{conversation.assistant_turns}\x1f{index}"
    return "call_" + hashlib.sha256(seed.encode("utf-8")).hexdigest()[:24]
