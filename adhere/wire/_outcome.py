"""What a model's answer amounted to, read from its API shape: the model-side outcomes.

Apart from a plain answer, a model (not the network) can end a call in four ways
worth counting on their own; :func:`reply_outcome` names them from the response
document (a stream already reassembled into the non-streaming shape):

==================  ====================================================================
outcome             read from
==================  ====================================================================
``context_length``  a 4xx error whose message or code says the input is too long
                    (``context_length_exceeded``, "prompt is too long", "maximum context
                    length", llama.cpp's ``exceed_context_size_error`` …); Anthropic's
                    stop reason ``model_context_window_exceeded``
``refusal``         Anthropic stop reason ``refusal``; Chat finish reason
                    ``content_filter`` or a ``refusal`` message; Responses ``incomplete``
                    for ``content_filter`` or a ``refusal`` content part; Gemini finish
                    reasons ``SAFETY``, ``RECITATION``, ``BLOCKLIST``,
                    ``PROHIBITED_CONTENT``, ``SPII``, ``IMAGE_SAFETY`` or a blocked prompt
``max_tokens``      the output cap was reached: stop reason ``max_tokens``, finish reason
                    ``length`` / ``MAX_TOKENS``, Responses ``incomplete`` for
                    ``max_output_tokens``
``empty``           a successful reply with no text (only blanks or reasoning) and no
                    tool call
==================  ====================================================================

Refusal wins over the output cap, which wins over emptiness (a capped reply is often
empty). Documents that are not a generation reply (token counts, model lists) have
no outcome.
"""

from __future__ import annotations

import json
import re
from typing import Any

from adhere.wire._reassemble_base import Api

__all__ = ["MODEL_OUTCOMES", "reply_outcome"]

MODEL_OUTCOMES = ("context_length", "refusal", "max_tokens", "empty")
"""The model-side outcomes, in the order reports show them."""

_CONTEXT = re.compile(
    r"context[ _-]?(length|size|window|limit)|prompt is too long|maximum context"
    r"|max(imum)?[ _-]model[ _-]len|too many (input )?tokens|input token count"
    r"|exceeds? the (maximum|available) (number of tokens|context)",
    re.IGNORECASE,
)
_GEMINI_REFUSALS = frozenset(
    {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"}
)


def reply_outcome(api: Api, status: int | None, response: Any) -> str | None:
    """The model-side outcome of one answer, or ``None`` for a plain answer (module doc)."""
    if status is not None and 400 <= status < 500 and status != 429:
        return "context_length" if _says_context(response) else None
    if status is not None and not 200 <= status < 300:
        return None
    if not isinstance(response, dict):
        return None
    if api == "anthropic":
        return _anthropic(response)
    if api == "openai-chat":
        return _chat(response)
    if api == "openai-responses":
        return _responses(response)
    return _gemini(response)


def _says_context(document: Any) -> bool:
    if not isinstance(document, dict):
        return False
    error = document.get("error", document)
    if isinstance(error, dict):
        text = " ".join(str(error.get(key) or "") for key in ("message", "code", "type"))
    else:
        text = json.dumps(error, ensure_ascii=False)
    return bool(_CONTEXT.search(text))


def _anthropic(message: dict[str, Any]) -> str | None:
    if message.get("type") != "message":
        return None
    stop = message.get("stop_reason")
    if stop == "model_context_window_exceeded":
        return "context_length"
    if stop == "refusal":
        return "refusal"
    if stop == "max_tokens":
        return "max_tokens"
    blocks = message.get("content")
    for block in blocks if isinstance(blocks, list) else []:
        if not isinstance(block, dict) or block.get("type") in ("thinking", "redacted_thinking"):
            continue
        if block.get("type") != "text" or _text(block.get("text")):
            return None
    return "empty"


def _chat(completion: dict[str, Any]) -> str | None:
    choices = completion.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    choice = choices[0]
    message = choice.get("message")
    message = message if isinstance(message, dict) else {}
    finish = choice.get("finish_reason")
    if finish == "content_filter" or _text(message.get("refusal")):
        return "refusal"
    if finish == "length":
        return "max_tokens"
    if _text(message.get("content")) or message.get("tool_calls") or message.get("function_call"):
        return None
    return "empty"


def _responses(response: dict[str, Any]) -> str | None:
    if response.get("object") != "response" and "output" not in response:
        return None
    details = response.get("incomplete_details")
    reason = details.get("reason") if isinstance(details, dict) else None
    if reason == "content_filter":
        return "refusal"
    items = response.get("output")
    items = [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []
    parts = [
        part
        for item in items
        if item.get("type") == "message" and isinstance(item.get("content"), list)
        for part in item["content"]
        if isinstance(part, dict)
    ]
    if any(part.get("type") == "refusal" for part in parts):
        return "refusal"
    if reason == "max_output_tokens":
        return "max_tokens"
    if any(item.get("type") not in ("message", "reasoning") for item in items):
        return None  # a tool call of some kind
    if any(_text(part.get("text")) for part in parts):
        return None
    return "empty"


def _gemini(response: dict[str, Any]) -> str | None:
    candidates = response.get("candidates")
    feedback = response.get("promptFeedback")
    if not isinstance(candidates, list) or not candidates:
        blocked = isinstance(feedback, dict) and feedback.get("blockReason")
        return "refusal" if blocked else None
    first = candidates[0] if isinstance(candidates[0], dict) else {}
    finish = first.get("finishReason")
    if finish in _GEMINI_REFUSALS:
        return "refusal"
    if finish == "MAX_TOKENS":
        return "max_tokens"
    content = first.get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict) or part.get("thought"):
            continue
        if "text" not in part or _text(part.get("text")):
            return None
    return "empty"


def _text(value: Any) -> bool:
    """Whether a text field holds something other than blanks."""
    return isinstance(value, str) and bool(value.strip())
