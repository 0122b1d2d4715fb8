"""Provider ``local-model``: a real, tiny model server a run starts itself.

An endpoint with ``baseUrl: local-model`` is served by :class:`ModelServer` —
llama.cpp's ``llama-server`` with SmolLM2-135M-Instruct, installed once by
``bash scripts/install-model-server.sh`` — on a free port of 127.0.0.1 for as long
as the run (or scoring pass, or workflow) lasts. It speaks Anthropic Messages and
OpenAI Chat Completions and Responses, not Gemini; its ``model`` is sent as it is
(the server serves its one model whatever the name); it needs no key. Slots and
context come from ``ADHERE_MODEL_SERVER_SLOTS`` and ``ADHERE_MODEL_SERVER_CTX``
(:meth:`ModelServerSettings.from_env`).

A real, tiny, weak model: for exercising the pipeline with real unscripted output,
never for scores.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from adhere.errors import SpecError
from adhere.models._model_server import ModelServer, ModelServerSettings
from adhere.models._providers import PodPlan, ServeContext, provider
from adhere.spec import Endpoint

__all__ = ["SPOKEN_APIS", "LocalModelProvider", "LocalModelService", "check_apis"]

log = logging.getLogger(__name__)

SPOKEN_APIS = frozenset({"anthropic", "openai", "openai-responses"})
"""The endpoint ``api`` values the server speaks (no Gemini shape)."""


def check_apis(endpoints: Sequence[Endpoint]) -> None:
    """Refuse an endpoint whose ``api`` the server does not speak.

    Raises:
        SpecError: Names the endpoint's model, the ``api`` and the shapes that work.
    """
    for endpoint in endpoints:
        api = str(endpoint.api)
        if api not in SPOKEN_APIS:
            raise SpecError(
                f"the local model server speaks {', '.join(sorted(SPOKEN_APIS))}, not "
                f"{api!r} (model {endpoint.model!r})",
                field="endpoint.api",
            )


@dataclass(frozen=True)
class LocalModelService:
    """A running model server, resolving ``local-model`` endpoints to its URL.

    Attributes:
        url: The server's base URL (without ``/v1``).
    """

    url: str

    def resolve(self, endpoint: Endpoint) -> Endpoint:
        """``endpoint`` pointed at the server (``/v1`` appended for the OpenAI shapes)."""
        check_apis([endpoint])
        root = self.url + ("/v1" if str(endpoint.api).startswith("openai") else "")
        return endpoint.model_copy(update={"base_url": root})


@provider("local-model")
class LocalModelProvider:
    """llama.cpp's server with SmolLM2-135M-Instruct as a model provider.

    Args:
        settings: How to run the server; by default from the environment.
    """

    description = "local model server (llama-server, SmolLM2-135M-Instruct)"
    holds_api_key = False
    speaks_every_api = False
    pod: PodPlan = "in-process"

    def __init__(self, settings: ModelServerSettings | None = None) -> None:
        self._settings = settings

    def check(self, endpoint: Endpoint, *, role: str, context: ServeContext) -> None:
        """Refuse an endpoint whose ``api`` the server does not speak (field ``api``)."""
        try:
            check_apis([endpoint])
        except SpecError as exc:
            raise SpecError(exc.message, field="api") from None

    @asynccontextmanager
    async def serve(self, context: ServeContext) -> AsyncIterator[LocalModelService]:
        """Start a model server for ``context``; stop it on exit.

        Raises:
            SpecError: An endpoint asks for an API shape the server does not speak.
            ModelServerError: Not installed, died at start or never got ready.
        """
        check_apis([*context.models, *context.judges])
        settings = self._settings or ModelServerSettings.from_env()
        server = ModelServer(settings)
        url = await server.start()
        log.info(
            "local model server on %s (pid %s, %d slots, context %d)",
            url,
            server.pid,
            settings.slots,
            settings.ctx,
        )
        try:
            yield LocalModelService(url)
        finally:
            await server.aclose()
