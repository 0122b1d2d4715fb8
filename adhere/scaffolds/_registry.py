"""The scaffold registry: ``@scaffold("name")``, lookup by name, and the installable ones.

Built-in scaffolds are listed here by module and imported only when asked for, so
importing :mod:`adhere.scaffolds` stays cheap. Third parties add scaffolds through the
``adhere.scaffolds`` entry-point group; an entry point names a scaffold class (or any
callable taking keyword options and returning a :class:`Scaffold`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from typing import Any, TypeVar

from adhere.errors import SpecError
from adhere.scaffolds._types import Scaffold

__all__ = ["get_scaffold", "installable", "scaffold", "scaffold_names"]

_BUILTIN: Mapping[str, str] = {
    "chat": "adhere.scaffolds._chat",
    "reference": "adhere.scaffolds._reference",
    "claude-code": "adhere.scaffolds._claude_code",
    "kilo": "adhere.scaffolds._kilo",
    "droid": "adhere.scaffolds._droid",
    "codex": "adhere.scaffolds._codex",
    "qwen-code": "adhere.scaffolds._qwen_code",
    "gemini-cli": "adhere.scaffolds._gemini_cli",
}
"""Built-in scaffolds by name, with the module that registers each."""

_CLI_SCAFFOLDS = ("claude-code", "codex", "droid", "gemini-cli", "kilo", "qwen-code")
"""Built-in scaffolds that drive a real agent CLI installed from npm."""

_REGISTRY: dict[str, Callable[..., Scaffold]] = {}
_ENTRY_POINT_GROUP = "adhere.scaffolds"

S = TypeVar("S")


def scaffold(name: str) -> Callable[[type[S]], type[S]]:
    """Class decorator registering a scaffold class under ``name``.

    The class is instantiated with the rollout's scaffold options as keyword
    arguments when :func:`get_scaffold` asks for it.
    """

    def register(cls: type[S]) -> type[S]:
        _REGISTRY[name] = cls  # type: ignore[assignment]
        return cls

    return register


def scaffold_names() -> list[str]:
    """Every known scaffold name: built-ins, registered classes and entry points."""
    names = set(_BUILTIN) | set(_REGISTRY)
    names |= {ep.name for ep in entry_points(group=_ENTRY_POINT_GROUP)}
    return sorted(names)


def installable() -> list[str]:
    """Names of the built-in scaffolds that install a pinned CLI (``install`` does work)."""
    return list(_CLI_SCAFFOLDS)


def get_scaffold(name: str, **options: Any) -> Scaffold:
    """Instantiate a scaffold by name with its options.

    Raises:
        SpecError: The name is unknown (the message lists the known ones) or the
            options do not fit the scaffold.
    """
    factory = _lookup(name)
    try:
        return factory(**options)
    except TypeError as exc:
        raise SpecError(
            f"bad options for scaffold {name!r}: {exc}", field="spec.scaffolds"
        ) from None
    except ValueError as exc:
        raise SpecError(
            f"bad options for scaffold {name!r}: {exc}", field="spec.scaffolds"
        ) from None


def _lookup(name: str) -> Callable[..., Scaffold]:
    if name not in _REGISTRY and name in _BUILTIN:
        importlib.import_module(_BUILTIN[name])
    if name not in _REGISTRY:
        for ep in entry_points(group=_ENTRY_POINT_GROUP, name=name):
            _REGISTRY[name] = ep.load()
    if name not in _REGISTRY:
        raise SpecError(
            f"unknown scaffold {name!r}; known scaffolds: {', '.join(scaffold_names())}",
            field="spec.scaffolds",
        )
    return _REGISTRY[name]
