"""Which route a request path names, and which API answers it (also for errors).

Paths may carry a ``/t/<trial>/`` prefix, which is stripped and reported. Gemini's
routes carry the model in the path, ``/v1beta/models/{model}:generateContent``; the
model is read from the raw (still percent-encoded) path and then decoded, so a model
string may hold ``:``, ``,``, ``=`` and even ``/``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote

from adhere.wire import Target

__all__ = ["Route", "resolve"]

Kind = Literal["chat", "models", "health", "stats", "none"]
Api = Literal["openai", "anthropic", "responses", "gemini"]

_PREFIX = re.compile(r"^/t/([^/]+)(/.*)$")
_GEMINI = re.compile(r"^/v1(?:alpha|beta)?/models/(.+):(generateContent|streamGenerateContent)$")
_FIXED: dict[str, tuple[str, Kind, Api]] = {
    "/v1/chat/completions": ("POST", "chat", "openai"),
    "/v1/messages": ("POST", "chat", "anthropic"),
    "/v1/responses": ("POST", "chat", "responses"),
    "/v1/models": ("GET", "models", "openai"),
    "/healthz": ("GET", "health", "openai"),
    "/_adhere/stats": ("GET", "stats", "openai"),
}


@dataclass(frozen=True)
class Route:
    """A resolved request path.

    Attributes:
        path: The path without the trial prefix (decoded).
        trial: The trial name from a ``/t/<trial>/`` prefix, if any.
        kind: What is asked for; ``none`` for an unknown path.
        api: The API whose shapes answer it (errors too).
        method: The method the route takes.
        target: Model and streaming named in the URL (Gemini).
    """

    path: str
    trial: str | None
    kind: Kind
    api: Api
    method: str = "POST"
    target: Target = Target()


def resolve(raw_path: str, query: dict[str, str]) -> Route:
    """Resolve a raw path (percent-encoded, no query) and its query parameters."""
    trial: str | None = None
    match = _PREFIX.match(raw_path)
    if match:
        trial, raw_path = unquote(match.group(1)), match.group(2)
    path = unquote(raw_path)
    fixed = _FIXED.get(path)
    if fixed is not None:
        method, kind, api = fixed
        return Route(path, trial, kind, api, method)
    gemini = _GEMINI.match(raw_path)
    if gemini:
        model, verb = unquote(gemini.group(1)), gemini.group(2)
        stream = verb == "streamGenerateContent"
        target = Target(model=model, stream=stream, sse=query.get("alt") == "sse")
        return Route(path, trial, "chat", "gemini", "POST", target)
    return Route(path, trial, "none", _guess_api(path))


def _guess_api(path: str) -> Api:
    """Whose error shape fits an unknown path best."""
    if path.endswith("/messages"):
        return "anthropic"
    if path.startswith(("/v1beta/", "/v1alpha/")) or ":" in path.rsplit("/", 1)[-1]:
        return "gemini"
    if path.endswith("/responses"):
        return "responses"
    return "openai"
