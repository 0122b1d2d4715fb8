"""Provider-neutral chat types shared by model clients, the policy server and trajectories."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "user", "assistant", "tool"]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolSpec(_Frozen):
    """A tool offered to the model: name, description and JSON schema of its arguments."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})


class ToolCall(_Frozen):
    """A tool call made by the model; ``arguments`` is the decoded JSON object."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ChatMessage(_Frozen):
    """One message of a conversation.

    ``tool_calls`` is set on assistant messages that call tools; ``tool_call_id`` on
    ``tool`` messages carrying a tool's result. ``reasoning`` keeps a model's visible
    reasoning (thinking blocks) when the provider returns it.
    """

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    reasoning: str = ""


class Usage(_Frozen):
    """Token usage reported by the provider for one call.

    ``cached_input_tokens`` is the part of ``input_tokens`` the provider served from
    its prompt (prefix) cache — OpenAI's ``prompt_tokens_details.cached_tokens``,
    Anthropic's ``cache_read_input_tokens`` — or ``None`` when the reply did not say.
    ``reasoning_tokens`` is the part of ``output_tokens`` the model spent thinking —
    OpenAI's ``completion_tokens_details.reasoning_tokens`` — or ``None`` when the
    reply did not say (Anthropic reports no separate count).
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int | None = None
    reasoning_tokens: int | None = None

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_input_tokens=_sum_known(self.cached_input_tokens, other.cached_input_tokens),
            reasoning_tokens=_sum_known(self.reasoning_tokens, other.reasoning_tokens),
        )


def _sum_known(a: int | None, b: int | None) -> int | None:
    """``a + b``, an unknown count as 0; ``None`` when neither is known."""
    return None if a is None and b is None else (a or 0) + (b or 0)


def conversation_digest(system: str, messages: tuple[ChatMessage, ...] | list[ChatMessage]) -> str:
    """A stable content hash of a conversation (system prompt plus messages).

    Used to match a request to a recorded reply (replay) and to seed per-conversation
    randomness; the same conversation always hashes to the same value whatever the
    provider API it travelled through.
    """
    canonical = {
        "system": system,
        "messages": [
            {
                "role": m.role,
                "content": m.content,
                "tool_calls": [[c.name, c.arguments] for c in m.tool_calls],
                "tool_call_id": m.tool_call_id or "",
            }
            for m in messages
        ],
    }
    blob = json.dumps(canonical, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()
