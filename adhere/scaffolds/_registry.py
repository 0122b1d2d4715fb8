"""The scaffold registry: ``@scaffold("name")`` and lookup by name.

A scaffold drives a model through one instance and returns the trajectory. Its model
calls go through the client it is given, so the runner records every call.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from typing import Any, Protocol, TypeVar

from adhere.errors import SpecError
from adhere.models import ModelClient
from adhere.spec import Instance, Trajectory


class Scaffold(Protocol):
    """Runs one instance against one model client."""

    name: str

    async def run(self, instance: Instance, client: ModelClient) -> Trajectory:
        """Play the instance's turns and return what happened."""
        ...


_BUILTIN: Mapping[str, str] = {"chat": "adhere.scaffolds._chat"}
_REGISTRY: dict[str, Callable[..., Scaffold]] = {}

S = TypeVar("S")


def scaffold(name: str) -> Callable[[type[S]], type[S]]:
    """Class decorator registering a scaffold under ``name``."""

    def register(cls: type[S]) -> type[S]:
        _REGISTRY[name] = cls  # type: ignore[assignment]
        return cls

    return register


def scaffold_names() -> list[str]:
    """Every known scaffold name."""
    names = set(_BUILTIN) | set(_REGISTRY)
    names |= {ep.name for ep in entry_points(group="adhere.scaffolds")}
    return sorted(names)


def get_scaffold(name: str, **options: Any) -> Scaffold:
    """Instantiate a scaffold by name; SpecError listing the known ones otherwise."""
    if name not in _REGISTRY and name in _BUILTIN:
        importlib.import_module(_BUILTIN[name])
    if name not in _REGISTRY:
        for ep in entry_points(group="adhere.scaffolds", name=name):
            _REGISTRY[name] = ep.load()
    if name not in _REGISTRY:
        raise SpecError(
            f"unknown scaffold {name!r}; known scaffolds: {', '.join(scaffold_names())}",
            field="spec.scaffolds",
        )
    try:
        return _REGISTRY[name](**options)
    except TypeError as exc:
        raise SpecError(
            f"bad options for scaffold {name!r}: {exc}", field="spec.scaffolds"
        ) from None
