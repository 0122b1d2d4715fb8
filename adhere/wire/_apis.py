"""What the recording proxy knows about each API shape: paths, auth, errors, usage.

The shape of a call is decided from its API path:

==========================  ==================================================
path                        shape
==========================  ==================================================
``…/chat/completions``      ``openai-chat``
``…/responses[/…]``         ``openai-responses``
``…/models/<m>:<action>``   ``gemini`` (``generateContent``, ``countTokens`` …)
``…/messages[/…]``          ``anthropic`` (also ``/v1/messages/count_tokens``)
anything else               guessed from the client's auth header: ``x-api-key`` or
                            ``anthropic-version`` → ``anthropic``,
                            ``x-goog-api-key`` or ``?key=`` → ``gemini``, else
                            ``openai-chat``
==========================  ==================================================
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from adhere.wire._reassemble_base import Api

__all__ = [
    "CLIENT_AUTH_HEADERS",
    "cached_input_tokens_of",
    "client_keys",
    "detect_api",
    "error_body",
    "error_detail",
    "error_summary",
    "reasoning_tokens_of",
    "upstream_auth",
    "upstream_query",
    "usage_of",
    "wants_stream",
]

CLIENT_AUTH_HEADERS = frozenset(
    {"authorization", "x-api-key", "x-goog-api-key", "api-key", "proxy-authorization"}
)
"""Request headers that carry the client's credentials; never forwarded or recorded."""

_GEMINI = re.compile(r"/models/[^/]+:([A-Za-z]+)$")
_KEY_PARAMS = ("key",)


def detect_api(path: str, headers: Mapping[str, str], query: Mapping[str, str]) -> Api:
    """The API shape of a call to ``path`` (see the module docstring)."""
    if path.endswith("/chat/completions"):
        return "openai-chat"
    if re.search(r"/responses(/|$)", path):
        return "openai-responses"
    if _GEMINI.search(path):
        return "gemini"
    if re.search(r"/messages(/|$)", path):
        return "anthropic"
    if "x-api-key" in headers or "anthropic-version" in headers:
        return "anthropic"
    if "x-goog-api-key" in headers or any(name in query for name in _KEY_PARAMS):
        return "gemini"
    return "openai-chat"


def wants_stream(api: Api, path: str, body: Any) -> bool:
    """Whether the client asked for a stream: ``"stream": true``, or Gemini's action."""
    if api == "gemini":
        match = _GEMINI.search(path)
        return match is not None and match.group(1) == "streamGenerateContent"
    return isinstance(body, dict) and body.get("stream") is True


def upstream_auth(api: Api, key: str | None) -> dict[str, str]:
    """The header carrying the real key upstream, in the form the API expects."""
    if key is None:
        return {}
    if api == "anthropic":
        return {"x-api-key": key}
    if api == "gemini":
        return {"x-goog-api-key": key}
    return {"Authorization": f"Bearer {key}"}


def upstream_query(query: str) -> str:
    """The query to forward: without ``key=`` (the client's key; the real one goes in a header)."""
    pairs = [
        pair for pair in query.split("&") if pair and pair.partition("=")[0] not in _KEY_PARAMS
    ]
    return "&".join(pairs)


def client_keys(headers: Mapping[str, str], query: Mapping[str, str]) -> list[str]:
    """Credential values the client sent (its dummy keys), so they can be redacted."""
    keys = []
    for name in CLIENT_AUTH_HEADERS:
        value = headers.get(name)
        if not value:
            continue
        scheme, _, rest = value.strip().partition(" ")
        keys.append(rest.strip() if rest and scheme.lower() in ("bearer", "basic") else value)
    keys.extend(query[name] for name in _KEY_PARAMS if query.get(name))
    return keys


def error_body(api: Api, status: int, message: str) -> dict[str, Any]:
    """An error document in the API's own shape, for errors the proxy itself answers."""
    if api == "anthropic":
        kind = {404: "not_found_error", 504: "timeout_error"}.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    if api == "gemini":
        state = {404: "NOT_FOUND", 504: "DEADLINE_EXCEEDED"}.get(status, "UNAVAILABLE")
        return {"error": {"code": status, "message": message, "status": state}}
    kind = {404: "not_found_error", 504: "timeout_error"}.get(status, "upstream_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def usage_of(api: Api, response: Any) -> dict[str, int] | None:
    """``{"input_tokens", "output_tokens"}`` from a response, or ``None`` without usage.

    Input counts cached and cache-creating tokens too (Anthropic); Gemini's output
    counts thinking tokens (``thoughtsTokenCount``) with the candidates' tokens.
    ``reasoning_tokens`` (part of ``output_tokens``) is added when the response
    reports it (:func:`reasoning_tokens_of`).
    """
    if not isinstance(response, dict):
        return None
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    if api == "gemini":
        usage = response.get("usageMetadata")
        inputs, outputs = ("promptTokenCount",), ("candidatesTokenCount", "thoughtsTokenCount")
    elif api == "openai-chat":
        usage = response.get("usage")
        inputs, outputs = ("prompt_tokens",), ("completion_tokens",)
    else:
        usage = response.get("usage")
        inputs = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        outputs = ("output_tokens",)
    if not isinstance(usage, dict):
        return None
    counts = {"input_tokens": _total(usage, inputs), "output_tokens": _total(usage, outputs)}
    reasoning = reasoning_tokens_of(api, response)
    if reasoning is not None:
        counts["reasoning_tokens"] = reasoning
    return counts


def reasoning_tokens_of(api: str, response: Any) -> int | None:
    """The part of a response's output tokens spent thinking, if it says.

    OpenAI Chat's ``usage.completion_tokens_details.reasoning_tokens``, Responses'
    ``usage.output_tokens_details.reasoning_tokens``, Gemini's
    ``usageMetadata.thoughtsTokenCount``; ``None`` when the response reports none of
    them. Anthropic reports no separate count (thinking is inside ``output_tokens``).
    """
    if not isinstance(response, dict) or api == "anthropic":
        return None
    usage = response.get("usageMetadata" if api == "gemini" else "usage")
    if not isinstance(usage, dict):
        return None
    if api == "gemini":
        value = usage.get("thoughtsTokenCount")
    else:
        chat = api in ("openai-chat", "openai")
        details = usage.get("completion_tokens_details" if chat else "output_tokens_details")
        value = details.get("reasoning_tokens") if isinstance(details, dict) else None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def cached_input_tokens_of(api: str, response: Any) -> int | None:
    """The part of a response's input tokens served from the prompt cache, if it says.

    Anthropic's ``cache_read_input_tokens``, OpenAI Chat's
    ``prompt_tokens_details.cached_tokens``, Responses'
    ``input_tokens_details.cached_tokens``, Gemini's ``cachedContentTokenCount``;
    ``None`` when the response reports none of them.
    """
    if not isinstance(response, dict):
        return None
    usage = response.get("usageMetadata" if api == "gemini" else "usage")
    if not isinstance(usage, dict):
        return None
    if api == "gemini":
        value = usage.get("cachedContentTokenCount")
    elif api == "anthropic":
        value = usage.get("cache_read_input_tokens")
    else:
        details = usage.get(
            "prompt_tokens_details" if api == "openai-chat" else "input_tokens_details"
        )
        value = details.get("cached_tokens") if isinstance(details, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _total(usage: dict[str, Any], keys: tuple[str, ...]) -> int:
    return sum(
        value
        for key in keys
        if isinstance(value := usage.get(key), int) and not isinstance(value, bool)
    )


def error_summary(status: int, document: Any, text: str) -> str:
    """``HTTP <status>: <the error's message>`` for a non-2xx answer, in one line."""
    detail = _error_message(document, ("type", "status"))
    if detail is None:
        detail = " ".join(text.split()) or "(empty body)"
        if detail == "(empty body)" and document is not None:
            detail = json.dumps(document, ensure_ascii=False)
    detail = " ".join(detail.split())
    if len(detail) > 300:
        detail = detail[:300] + "…"
    return f"HTTP {status}: {detail}"


def error_detail(document: dict[str, Any] | None, text: str) -> str:
    """The human part of an error reply a model client got (OpenAI, Anthropic and vLLM shapes).

    Args:
        document: The reply body as a JSON object, ``None`` when it is not one.
        text: The reply body as text (its first 300 characters are the fallback).
    """
    detail = _error_message(document, ("type",))
    if detail:
        return detail
    snippet = " ".join(text.split())
    return snippet[:300] + ("…" if len(snippet) > 300 else "") if snippet else "(empty body)"


def _error_message(document: Any, kinds: tuple[str, ...]) -> str | None:
    """An error document's message (``<kind>: <message>`` when the error names its kind).

    The error object's message wins, then an error given as a string, then a
    top-level ``message`` (which may be empty); ``None`` when there is none.
    """
    if not isinstance(document, dict):
        return None
    error = document.get("error")
    if isinstance(error, dict):
        message = error.get("message")
        kind = next((error[key] for key in kinds if error.get(key)), None)
        if isinstance(message, str) and message:
            return f"{kind}: {message}" if isinstance(kind, str) and kind else message
    elif isinstance(error, str) and error:
        return error
    message = document.get("message")
    return message if isinstance(message, str) else None
