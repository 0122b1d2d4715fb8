"""The scaffold registry: ``@scaffold("name")``, lookup by name, and the installable ones.

Built-in scaffolds are listed here by module and imported only when asked for, so
importing :mod:`adhere.scaffolds` stays cheap. Third parties add scaffolds through the
``adhere.scaffolds`` entry-point group; an entry point names a scaffold class (or any
callable taking keyword options and returning a :class:`Scaffold`).
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pydantic import TypeAdapter, ValidationError

from adhere._registry import Registry
from adhere.errors import SpecError
from adhere.scaffolds._types import Scaffold

__all__ = ["get_scaffold", "installable", "scaffold", "scaffold_names"]

_CLI_SCAFFOLDS = ("claude-code", "codex", "droid", "gemini-cli", "kilo", "qwen-code")
"""Built-in scaffolds that drive a real agent CLI installed from npm."""

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

_SCAFFOLDS: Registry[Callable[..., Scaffold]] = Registry(
    "scaffolds", "scaffold", field="spec.scaffolds", builtin=_BUILTIN
)

S = TypeVar("S")


def scaffold(name: str) -> Callable[[type[S]], type[S]]:
    """Class decorator registering a scaffold class under ``name``.

    The class is instantiated with the rollout's scaffold options as keyword
    arguments when :func:`get_scaffold` asks for it.
    """
    return _SCAFFOLDS.decorator(name)


def scaffold_names() -> list[str]:
    """Every known scaffold name: built-ins, registered classes and entry points."""
    return _SCAFFOLDS.names()


def installable() -> list[str]:
    """Names of the built-in scaffolds that install a pinned CLI (``install`` does work)."""
    return list(_CLI_SCAFFOLDS)


def get_scaffold(name: str, /, **options: Any) -> Scaffold:
    """Instantiate a scaffold by name with its options.

    Each option is checked against the type its constructor declares (strictly: a
    string is not a number) before the scaffold is built.

    Raises:
        SpecError: The name is unknown (``field="name"``; the message suggests close
            names and lists the known ones) or an option does not fit the scaffold
            (``field="options"`` or ``"options.<key>"``).
    """
    try:
        factory = _SCAFFOLDS.get(name)
    except SpecError as exc:
        raise SpecError(exc.message, field="name") from None
    checked = dict(options)
    hints = _option_types(factory)
    for key, value in options.items():
        if key not in hints:
            continue
        try:
            checked[key] = TypeAdapter(hints[key]).validate_python(value, strict=True)
        except ValidationError as exc:
            reason = exc.errors()[0]["msg"]
            raise SpecError(
                f"bad options for scaffold {name!r}: {key}: {reason}, got {value!r}"[:500],
                field=f"options.{key}",
            ) from None
    try:
        return factory(**checked)
    except (TypeError, ValueError) as exc:
        raise SpecError(f"bad options for scaffold {name!r}: {exc}", field="options") from None


def _option_types(factory: Callable[..., Scaffold]) -> dict[str, Any]:
    """The declared types of a scaffold factory's keyword options (none when unreadable)."""
    target: Any = factory.__init__ if isinstance(factory, type) else factory  # type: ignore[misc]
    try:
        hints = typing.get_type_hints(target)
        parameters = inspect.signature(target).parameters
    except (NameError, TypeError, ValueError):
        return {}
    return {
        name: hints[name]
        for name, parameter in parameters.items()
        if name in hints and parameter.kind is inspect.Parameter.KEYWORD_ONLY
    }
