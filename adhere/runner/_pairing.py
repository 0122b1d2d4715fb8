"""How each scaffold reaches each model: the API shapes on both sides of the recording proxy.

A CLI scaffold speaks one shape; the in-process scaffolds speak ``anthropic`` or
``openai-chat``. An endpoint speaks its own shape (``Endpoint.api``). The proxy
forwards a call as it came when both sides agree, and translates it otherwise; a
provider that speaks every shape (the scripted test double) gets every call as it came.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from adhere.models import provider_for
from adhere.observe import Upstream
from adhere.scaffolds import Scaffold, WireApi
from adhere.spec import Endpoint, Rollout
from adhere.wire import Controls

__all__ = [
    "IN_PROCESS",
    "Pairing",
    "client_api",
    "describe_pairings",
    "pairings",
    "upstream_api",
    "upstream_for",
]

IN_PROCESS = frozenset({"chat", "reference"})
"""Scaffolds that use adhere's own clients: they speak the endpoint's shape when it is
``openai`` or ``anthropic``, else Chat Completions, which the proxy translates."""


def client_api(endpoint: Endpoint) -> WireApi:
    """The shape an in-process scaffold speaks to reach ``endpoint`` through the proxy."""
    return "anthropic" if endpoint.api == "anthropic" else "openai-chat"


def upstream_api(endpoint: Endpoint) -> WireApi | None:
    """The shape the proxy sends ``endpoint``'s calls in; ``None``: as they came.

    A provider that speaks every shape (the scripted test double) gets every call as
    it came; any other endpoint gets its own shape, translated when a scaffold speaks
    another.
    """
    served_by = provider_for(endpoint)
    if served_by is not None and served_by.speaks_every_api:
        return None
    return cast(WireApi, endpoint.wire_api)


@dataclass(frozen=True)
class Pairing:
    """How one scaffold reaches one model: the shapes on each side of the proxy."""

    model: str
    scaffold: str
    speaks: WireApi
    upstream: WireApi | None

    @property
    def translated(self) -> bool:
        """Whether the proxy translates this pair's calls."""
        return self.upstream is not None and self.upstream != self.speaks


def pairings(rollout: Rollout, scaffolds: dict[str, Scaffold]) -> list[Pairing]:
    """Every model × scaffold pair of the rollout with the shapes it uses."""
    out = []
    for model in rollout.spec.models:
        for name, scaffold in scaffolds.items():
            speaks = client_api(model.endpoint) if name in IN_PROCESS else scaffold.api
            out.append(Pairing(model.name, name, speaks, upstream_api(model.endpoint)))
    return out


def describe_pairings(found: list[Pairing]) -> list[str]:
    """One line per model × scaffold pair: the shapes, and whether the proxy translates."""
    lines = []
    for pair in found:
        if pair.upstream is None:
            how = f"{pair.speaks}, served as it comes (the endpoint speaks every shape)"
        elif pair.translated:
            how = f"{pair.speaks} → {pair.upstream} (translated by the proxy)"
        else:
            how = f"{pair.speaks} (native)"
        lines.append(f"{pair.scaffold} × {pair.model}: {how}")
    return lines


def upstream_for(name: str, endpoint: Endpoint, base_url: str, key: str | None) -> Upstream:
    """The proxy's upstream for a model: its URL, key, shape and controls.

    The proxy's time limits keep their defaults, which fit slow reasoning models
    (``docs/proxy.md``, "Limits"); ``limits.timeoutSeconds`` bounds adhere's own clients.
    """
    controls = endpoint.scaffold_controls
    return Upstream(
        name=name,
        base_url=base_url,
        api_key=key,
        api=upstream_api(endpoint),
        controls=Controls(
            max_output_tokens=controls.max_output_tokens,
            temperature=controls.temperature,
            reasoning_effort=controls.reasoning_effort,
            thinking_budget=controls.thinking_budget,
        ),
        model=endpoint.model,
    )
