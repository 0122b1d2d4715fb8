"""The provider-neutral request, response and call-record types of the model clients."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from adhere.core import ChatMessage, Usage
from adhere.spec import Endpoint
from adhere.wire import ChatRequest

__all__ = ["CallRecord", "ChatResponse", "ModelClient", "OnCall"]


@dataclass(frozen=True)
class ChatResponse:
    """A model's answer to one :class:`ChatRequest`.

    Attributes:
        message: The assistant message: text, tool calls and visible reasoning.
        usage: Tokens the provider reported for the successful attempt.
        stop_reason: The provider's finish or stop reason in lower case, in the
            provider's own vocabulary (``stop``/``tool_calls``/``length`` for OpenAI,
            ``end_turn``/``tool_use``/``max_tokens`` for Anthropic).
        model: Model id the provider says answered.
        latency_seconds: Wall time of the whole call, including limiter waits,
            failed attempts and back-off; each attempt's own time is in its
            :class:`CallRecord`.
        attempts: HTTP attempts made, 1 when the first one succeeded.
    """

    message: ChatMessage
    usage: Usage
    stop_reason: str
    model: str
    latency_seconds: float
    attempts: int


@dataclass(frozen=True)
class CallRecord:
    """What happened in one HTTP attempt, failed or not; never holds headers or keys.

    The model client's own record of its attempts (judges, checklist generation),
    handed to ``on_call``. Not the record of a call the recording proxy forwarded for
    a trial: that is ``adhere.artifacts.ProxyCall``, stored in ``calls.jsonl``.

    Attributes:
        api: ``openai`` or ``anthropic``.
        url: URL posted to.
        request: JSON body sent.
        status: HTTP status, ``None`` when no response arrived (timeout, refused).
        response: Parsed JSON body; for a stream, the reassembled message in the
            same shape as the non-streaming response. ``None`` when there is none.
        error: Why the attempt failed, ``None`` when it succeeded.
        started_at: ISO 8601 UTC time the attempt started.
        duration_seconds: Time the attempt took.
        attempt: 1-based attempt number within the call.
        usage: Token usage when the attempt succeeded.
        stream: Whether the streaming form of the API was used.
    """

    api: str
    url: str
    request: dict[str, Any]
    status: int | None
    response: dict[str, Any] | None
    error: str | None
    started_at: str
    duration_seconds: float
    attempt: int
    usage: Usage | None
    stream: bool


OnCall = Callable[[CallRecord], None]
"""Callback receiving one :class:`CallRecord` per HTTP attempt."""


class ModelClient(Protocol):
    """An async client of one model endpoint."""

    endpoint: Endpoint

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Ask the model for one reply, retrying transient failures.

        Raises:
            ModelCallError: The call failed for good.
            ModelReplyError: The endpoint answered with something that is not a reply.
        """
        ...

    async def aclose(self) -> None:
        """Release the HTTP connections this client owns."""
        ...
