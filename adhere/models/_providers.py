"""Model providers: special ``baseUrl`` values naming a model server a run starts itself.

An endpoint's ``baseUrl`` is either a URL (a plain endpoint, called as it is) or the
name of a provider in the registry (kind ``providers``, entry-point group
``adhere.providers``). Built in are ``scripted``: the scripted policy server, a test
double registered by :mod:`adhere.testing`; and ``local-model``: a real, tiny model
(llama.cpp's server with SmolLM2-135M-Instruct, :mod:`adhere.models._local_model`).
A provider

- starts a local service for a run (:meth:`Provider.serve`), given the run's
  instances, its suite lookup, the spec files' directory and the models and judges
  that use it; the service resolves those endpoints to concrete URLs;
- may check an endpoint before anything starts (an optional method
  ``check(endpoint, *, role, context)`` raising :class:`~adhere.errors.SpecError`
  with ``field`` relative to the endpoint): what ``adhere validate`` and the start of
  ``adhere run`` refuse, e.g. an API shape the server does not speak;
- says whether its endpoints hold a real API key (:attr:`Provider.holds_api_key`),
  whether every scaffold can talk to it whatever the endpoint's ``api``
  (:attr:`Provider.speaks_every_api`), and what the operator does with it in a trial
  pod (:attr:`Provider.pod`).

The runner, the workflows and the operator ask these questions and never test for a
provider's name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

from adhere._registry import Registry
from adhere.core import Instance
from adhere.errors import SpecError
from adhere.spec import Endpoint

__all__ = [
    "PodPlan",
    "Provider",
    "ProviderService",
    "ServeContext",
    "Served",
    "check_endpoint",
    "provider",
    "provider_for",
    "provider_names",
    "serve_providers",
]

PodPlan = Literal["proxy-sidecar", "in-process"]
"""Where a trial pod's model calls go: ``proxy-sidecar`` (the default for a URL: a
recording proxy beside the trial holds the key) or ``in-process`` (``adhere trial run``
starts the provider and the proxy itself; no sidecar)."""


@dataclass(frozen=True)
class ServeContext:
    """What a provider may use to serve one run (or one scoring pass, or one workflow).

    Attributes:
        models: Endpoints of the rollout's models that name this provider.
        judges: Endpoints of judges (and workflow models) that name this provider.
        instances: The run's instances (empty when only judges are served).
        suite_for: Suite name → the run's ``Suite`` (typed loosely: suites sit above
            models); ``None`` when the run has no instances to answer for.
        base_dir: Directory of the spec files; relative paths in options resolve here.
    """

    models: Sequence[Endpoint] = ()
    judges: Sequence[Endpoint] = ()
    instances: Sequence[Instance] = ()
    suite_for: Callable[[str], Any] | None = None
    base_dir: Path = Path()


class ProviderService(Protocol):
    """A provider's running service."""

    def resolve(self, endpoint: Endpoint) -> Endpoint:
        """``endpoint`` with its ``base_url`` replaced by the service's concrete URL."""
        ...


class Provider(Protocol):
    """Serves endpoints whose ``baseUrl`` is its name (see the module docstring)."""

    @property
    def description(self) -> str:
        """What serves the endpoints, for messages (``scripted policy server``)."""
        ...

    @property
    def holds_api_key(self) -> bool:
        """Whether its endpoints' ``apiKey`` is a real secret (read, sent, redacted)."""
        ...

    @property
    def speaks_every_api(self) -> bool:
        """Whether any scaffold can talk to it, whatever the endpoint's ``api``."""
        ...

    @property
    def pod(self) -> PodPlan:
        """What the operator does with it in a trial pod."""
        ...

    def serve(self, context: ServeContext) -> AbstractAsyncContextManager[ProviderService]:
        """Start serving; the service stops when the context manager exits."""
        ...


_PROVIDERS: Registry[Callable[[], Provider]] = Registry(
    "providers",
    "provider",
    field="endpoint.baseUrl",
    builtin={"scripted": "adhere.testing._provider", "local-model": "adhere.models._local_model"},
)

P = TypeVar("P")


def provider(name: str) -> Callable[[type[P]], type[P]]:
    """Class decorator registering a provider under ``name`` (a ``baseUrl`` value).

    The class is instantiated without arguments when an endpoint names it.
    """
    if not name.strip():
        raise ValueError("a provider needs a non-empty name")
    if "://" in name:
        raise ValueError(f"a provider name cannot look like a URL: {name!r}")
    return _PROVIDERS.decorator(name)


def provider_names() -> list[str]:
    """Every known provider name: built-ins, registered classes and entry points."""
    return _PROVIDERS.names()


def provider_for(endpoint: Endpoint) -> Provider | None:
    """The provider ``endpoint.base_url`` names, or ``None`` for a plain endpoint (a URL)."""
    if "://" in endpoint.base_url:
        return None
    factory = _PROVIDERS.find(endpoint.base_url)
    return None if factory is None else factory()


def check_endpoint(endpoint: Endpoint, *, role: str, context: ServeContext) -> None:
    """Refuse an endpoint a run could not serve: what ``adhere validate`` shares with ``run``.

    A URL passes (the spec model checked its form); a name must be a known provider
    (the message suggests close names), and the provider's own ``check``, when it
    has one, must accept the endpoint.

    Args:
        endpoint: The endpoint as the spec has it.
        role: ``model`` or ``judge``.
        context: What the run would serve the provider with (models, judges,
            instances, suite lookup, spec directory).

    Raises:
        SpecError: With ``field`` relative to the endpoint (``baseUrl``, ``api``,
            ``model``).
    """
    if "://" in endpoint.base_url:
        return
    found = _PROVIDERS.find(endpoint.base_url)
    if found is None:
        message = _PROVIDERS.unknown(endpoint.base_url)
        raise SpecError(f"{message}; a plain endpoint needs an http(s) URL", field="baseUrl")
    check = getattr(found(), "check", None)
    if check is not None:
        check(endpoint, role=role, context=context)


class Served:
    """The services started for a run, by provider name; resolves endpoints through them.

    Args:
        services: Running services by provider name (the ``baseUrl`` value).
    """

    def __init__(self, services: Mapping[str, ProviderService] | None = None) -> None:
        self._services = dict(services or {})

    def resolve(self, endpoint: Endpoint, *, role: str = "model") -> Endpoint:
        """``endpoint`` made concrete: a plain endpoint as it is, a provider's by its service.

        Args:
            endpoint: The endpoint as the spec has it.
            role: What uses the endpoint (``model``, ``judge``), for the error message.

        Raises:
            SpecError: The endpoint names a provider that was not started.
        """
        found = provider_for(endpoint)
        if found is None:
            return endpoint
        service = self._services.get(endpoint.base_url)
        if service is None:
            raise SpecError(f"a {endpoint.base_url} {role} needs the {found.description} running")
        return service.resolve(endpoint)


async def serve_providers(
    stack: AsyncExitStack,
    *,
    models: Sequence[Endpoint] = (),
    judges: Sequence[Endpoint] = (),
    instances: Sequence[Instance] = (),
    suite_for: Callable[[str], Any] | None = None,
    base_dir: Path = Path(),
) -> Served:
    """Start each provider the endpoints name, once; each stops when ``stack`` closes.

    Providers start in the order their endpoints come (models first); plain
    endpoints start nothing.
    """
    providers: dict[str, Provider] = {}
    for endpoint in (*models, *judges):
        if endpoint.base_url not in providers:
            found = provider_for(endpoint)
            if found is not None:
                providers[endpoint.base_url] = found
    services: dict[str, ProviderService] = {}
    for name, found in providers.items():
        context = ServeContext(
            models=[e for e in models if e.base_url == name],
            judges=[e for e in judges if e.base_url == name],
            instances=instances,
            suite_for=suite_for,
            base_dir=base_dir,
        )
        services[name] = await stack.enter_async_context(found.serve(context))
    return Served(services)
