"""One registry for everything found by name: suites, scaffolds, verifiers, providers, policies.

A :class:`Registry` maps names to entries (a suite class, a verifier, a provider
factory …). Entries arrive three ways, and each is looked at only when a name is
asked for, so importing a registry does nothing:

1. **registration**: ``registry.register(name, entry)``, or the decorator
   ``@registry.decorator(name)``;
2. **built-ins**: a table of name → module; the module is imported on the first
   lookup of one of its names, and registers them as it is imported;
3. **entry points**: third parties add entries through the entry-point group
   ``adhere.<kind>`` (``adhere.suites``, ``adhere.scaffolds``, ``adhere.verifiers``,
   ``adhere.providers``, ``adhere.policies``). An entry point names the entry itself,
   or a module attribute whose import registers it.

A name that is nowhere is a :class:`~adhere.errors.SpecError` listing every known name.
This module sits at the bottom of the package: it imports only the standard library
and :mod:`adhere.errors`, and names the modules above it only as strings.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from typing import Generic, TypeVar

from adhere.errors import SpecError

__all__ = ["Registry"]

T = TypeVar("T")
E = TypeVar("E")


class Registry(Generic[T]):
    """Entries of one kind, by name.

    Args:
        kind: The plural noun (``suites``); it names the entry-point group
            ``adhere.<kind>`` and the list in "unknown" errors.
        noun: The singular noun used in messages (``suite``).
        field: The ``field`` of the :class:`~adhere.errors.SpecError` an unknown
            name raises (e.g. ``spec.suite``).
        builtin: Built-in names → the module that registers each, imported lazily.
        entry_points: Whether third parties add entries through ``adhere.<kind>``.
        adapt: Turns what an entry point loaded into an entry, or ``None`` when it
            is not one (called only when loading it did not register the name
            itself); by default what was loaded is the entry.
        parent: Another registry consulted for names this one lacks (see :meth:`child`).
    """

    def __init__(
        self,
        kind: str,
        noun: str,
        *,
        field: str | None = None,
        builtin: Mapping[str, str] | None = None,
        entry_points: bool = True,
        adapt: Callable[[str, object], T | None] | None = None,
        parent: Registry[T] | None = None,
    ) -> None:
        self.kind = kind
        self.noun = noun
        self.field = field
        self.builtin: Mapping[str, str] = dict(builtin or {})
        self.group = f"adhere.{kind}" if entry_points else None
        self._adapt = adapt
        self._parent = parent
        self._entries: dict[str, T] = {}

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {len(self._entries)} registered)"

    def __contains__(self, name: object) -> bool:
        """Whether ``name`` is registered by now (built-ins count once imported)."""
        return name in self._entries or (self._parent is not None and name in self._parent)

    def register(self, name: str, entry: T, *, replace: bool = False) -> None:
        """Add ``entry`` under ``name``.

        Raises:
            ValueError: ``name`` is already known (registered, built in or from an
                entry point) and ``replace`` is false.
        """
        if not replace and (name in self._entries or name in self.names()):
            raise ValueError(f"{self.noun} {name!r} is already registered")
        self._entries[name] = entry

    def decorator(self, name: str) -> Callable[[E], E]:
        """A decorator registering what it decorates under ``name`` (replacing any entry).

        The decorated object is the entry; a registry whose entries are not the
        decorated objects themselves wraps this (see the verifier registry).
        """

        def register(obj: E) -> E:
            self._entries[name] = obj  # type: ignore[assignment]
            return obj

        return register

    def unregister(self, name: str) -> None:
        """Remove a registered entry (a built-in comes back on its next lookup)."""
        self._entries.pop(name, None)

    def registered(self) -> dict[str, T]:
        """The entries registered by now, by name (no import, no entry-point scan)."""
        parent = self._parent.registered() if self._parent is not None else {}
        return {**parent, **self._entries}

    def names(self) -> list[str]:
        """Every known name, sorted: registered, built-in and from entry points."""
        known = set(self._entries) | set(self.builtin)
        if self.group is not None:
            known |= {ep.name for ep in entry_points(group=self.group)}
        if self._parent is not None:
            known |= set(self._parent.names())
        return sorted(known)

    def find(self, name: str) -> T | None:
        """The entry under ``name``, importing its built-in module or entry point; else ``None``."""
        if name in self._entries:
            return self._entries[name]
        if name in self.builtin:
            importlib.import_module(self.builtin[name])
            if name in self._entries:
                return self._entries[name]
        if self.group is not None:
            for ep in entry_points(group=self.group, name=name):
                loaded = ep.load()
                if name not in self._entries:
                    adapted: T | None = loaded if self._adapt is None else self._adapt(name, loaded)
                    if adapted is not None:
                        self._entries[name] = adapted
                if name in self._entries:
                    return self._entries[name]
                break
        if self._parent is not None:
            return self._parent.find(name)
        return None

    def get(self, name: str) -> T:
        """The entry under ``name``.

        Raises:
            SpecError: The name is unknown; the message lists the known names.
        """
        found = self.find(name)
        if found is None:
            raise SpecError(self.unknown(name), field=self.field)
        return found

    def unknown(self, name: str) -> str:
        """The message for an unknown ``name``: close matches first, then every known name."""
        known = self.names()
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
        if not close:
            folded = name.lower().replace("_", "-")
            close = [k for k in known if k.lower().replace("_", "-") == folded]
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        return f"unknown {self.noun} {name!r}{hint}; known {self.kind}: {', '.join(known)}"

    def child(self) -> Registry[T]:
        """A registry of its own over this one: additions stay in it, lookups fall back here."""
        return Registry(
            self.kind,
            self.noun,
            field=self.field,
            entry_points=False,
            adapt=self._adapt,
            parent=self,
        )
