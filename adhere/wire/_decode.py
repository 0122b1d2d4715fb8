"""Lenient decoders: one recorded call (any of the four API shapes) → neutral messages.

The normalizer must never fail on what a CLI sent: unknown block types are kept as
bracketed text markers (``[image]``, ``[document]``), malformed JSON arguments are
kept as a string under ``_raw``, and a missing response just means no reply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from adhere.core import ChatMessage, ToolSpec
from adhere.wire.anthropic._decode import decode_anthropic
from adhere.wire.gemini._decode import decode_gemini
from adhere.wire.openai_chat._decode import decode_openai_chat
from adhere.wire.openai_responses._decode import decode_responses


@dataclass(frozen=True)
class CallView:
    """What one call showed the model and what came back."""

    seq: int
    api: str
    system: str
    messages: tuple[ChatMessage, ...]
    tools: tuple[ToolSpec, ...]
    reply: ChatMessage | None
    status: int | None = None
    error: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


_DECODERS = {
    "anthropic": decode_anthropic,
    "openai": decode_openai_chat,
    "openai-chat": decode_openai_chat,
    "openai-responses": decode_responses,
    "gemini": decode_gemini,
}


def decode_call(record: dict[str, Any], seq: int) -> CallView | None:
    """Decode one recorded call; None when its request is not a model call body."""
    request = record.get("request")
    api = str(record.get("api", ""))
    decoder = _DECODERS.get(api)
    if decoder is None or not isinstance(request, dict) or "_raw" in request:
        return None
    system, messages, tools, reply = decoder(request, record.get("response"))
    status = record.get("status")
    error = record.get("error")
    if status is not None and not 200 <= int(status) < 300:
        reply = None
    return CallView(
        seq=seq,
        api=api,
        system=system,
        messages=tuple(messages),
        tools=tuple(tools),
        reply=reply,
        status=status,
        error=error if isinstance(error, str) else None,
    )
