"""The model client of the in-process scaffolds (``chat``, ``reference``), through the proxy.

The trial's :class:`ProxyEndpoint` becomes a model-client :class:`Endpoint`: the
``openai-chat`` shape gets an OpenAI client at ``base_url + /v1``, ``anthropic`` an
Anthropic client at ``base_url``; it retries as the model endpoint's limits say. One
attempt may take as long as a slow reasoning model needs (:data:`REQUEST_TIMEOUT`):
the recording proxy cuts a call whose upstream stays silent (its idle limit), and the
trial's budget bounds the whole trial. The
dummy key is handed over through a private environment mapping, never through the
process environment. The proxy records every call, including each retry the client
makes (as a CLI would retry).
"""

from __future__ import annotations

from typing import Any

from adhere.errors import SpecError
from adhere.models import ModelClient, open_client
from adhere.scaffolds._types import ProxyEndpoint
from adhere.spec import Endpoint, Limits, SecretSource

__all__ = ["client_endpoint", "open_trial_client"]

_KEY_VARIABLE = "ADHERE_TRIAL_API_KEY"
REQUEST_TIMEOUT = 3 * 3600.0
"""Limit on one attempt of an in-process scaffold's call (the proxy's whole-call limit)."""


def client_endpoint(
    proxy: ProxyEndpoint, *, max_tokens: int | None = None, request_timeout: float = REQUEST_TIMEOUT
) -> Endpoint:
    """The model-client endpoint for ``proxy``.

    ``max_tokens`` (a scaffold option) wins over ``proxy.max_tokens``; streaming and
    temperature follow the proxy endpoint.

    Raises:
        SpecError: The proxy speaks an API shape the in-process clients do not
            (``openai-responses`` or ``gemini``).
    """
    base = proxy.base_url.rstrip("/")
    if proxy.api == "openai-chat":
        api, url = "openai", base + "/v1"
    elif proxy.api == "anthropic":
        api, url = "anthropic", base
    else:
        raise SpecError(
            f"in-process scaffolds speak 'openai-chat' or 'anthropic', not {proxy.api!r}; "
            "use a CLI scaffold for this API shape",
            field="endpoint.api",
        )
    extra: dict[str, Any] = {"stream": proxy.stream}
    cap = max_tokens if max_tokens is not None else proxy.max_tokens
    if cap is not None:
        extra["max_tokens"] = cap
    if proxy.temperature is not None:
        extra["temperature"] = proxy.temperature
    retry: dict[str, Any] = {}
    if proxy.max_retries is not None:
        retry["max_retries"] = proxy.max_retries
    if proxy.backoff_base_seconds is not None:
        retry["backoff_base_seconds"] = proxy.backoff_base_seconds
    return Endpoint(
        api=api,
        base_url=url,
        model=proxy.model,
        api_key=SecretSource(env=_KEY_VARIABLE),
        limits=Limits(concurrency=1, timeout_seconds=request_timeout, **retry),
        **extra,
    )


def open_trial_client(proxy: ProxyEndpoint, *, max_tokens: int | None = None) -> ModelClient:
    """Open a client of ``proxy`` (close it with ``aclose``)."""
    endpoint = client_endpoint(proxy, max_tokens=max_tokens)
    return open_client(endpoint, env={_KEY_VARIABLE: proxy.api_key})
