"""The two concrete clients and :func:`open_client`, which picks one by ``endpoint.api``."""

from __future__ import annotations

from collections.abc import Mapping

import aiohttp

from adhere.errors import SpecError
from adhere.models._client import HttpModelClient
from adhere.models._limiter import EndpointLimiter
from adhere.models._types import ModelClient, OnCall
from adhere.spec import Endpoint
from adhere.wire.anthropic import AnthropicWire
from adhere.wire.openai_chat import OpenAIWire

__all__ = ["AnthropicClient", "OpenAIClient", "open_client"]


class OpenAIClient(HttpModelClient):
    """Client of an OpenAI-compatible Chat Completions endpoint (OpenAI, vLLM, …).

    Arguments as for :class:`HttpModelClient`, without ``wire``.
    """

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        http: aiohttp.ClientSession | None = None,
        on_call: OnCall | None = None,
        env: Mapping[str, str] | None = None,
        limiter: EndpointLimiter | None = None,
    ) -> None:
        super().__init__(
            endpoint, OpenAIWire(), http=http, on_call=on_call, env=env, limiter=limiter
        )


class AnthropicClient(HttpModelClient):
    """Client of an Anthropic Messages endpoint.

    Arguments as for :class:`HttpModelClient`, without ``wire``.
    """

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        http: aiohttp.ClientSession | None = None,
        on_call: OnCall | None = None,
        env: Mapping[str, str] | None = None,
        limiter: EndpointLimiter | None = None,
    ) -> None:
        super().__init__(
            endpoint, AnthropicWire(), http=http, on_call=on_call, env=env, limiter=limiter
        )


def open_client(
    endpoint: Endpoint,
    *,
    http: aiohttp.ClientSession | None = None,
    on_call: OnCall | None = None,
    env: Mapping[str, str] | None = None,
    limiter: EndpointLimiter | None = None,
) -> ModelClient:
    """Open a client for ``endpoint``, speaking the API named by ``endpoint.api``.

    The API key is read now, once (see :func:`resolve_api_key`).

    Args:
        endpoint: Where the model lives and its limits.
        http: An ``aiohttp.ClientSession`` to share (opened in the loop that uses
            the client); it is not closed by ``aclose``.
        on_call: Called with a :class:`CallRecord` after every HTTP attempt.
        env: Environment to read the key from; defaults to ``os.environ``.
        limiter: A limiter shared with other clients of the endpoint (see
            :func:`shared_limiter`); by default the client gets its own.

    Raises:
        SecretError: The endpoint's key cannot be read.
        ValueError: ``endpoint.base_url`` still names a model provider (``scripted``).
        SpecError: The endpoint speaks a shape adhere's clients do not (``openai-responses``,
            ``gemini``: those work as scaffold models, through the proxy's translation).
    """
    if endpoint.api not in ("openai", "anthropic"):
        raise SpecError(
            f"adhere's model clients (judges, checklist generation) speak 'openai' and "
            f"'anthropic' endpoints, not {endpoint.api!r}; an {endpoint.api} endpoint serves "
            "scaffold models (the recording proxy translates)",
            field="endpoint.api",
        )
    kind = OpenAIClient if endpoint.api == "openai" else AnthropicClient
    return kind(endpoint, http=http, on_call=on_call, env=env, limiter=limiter)
