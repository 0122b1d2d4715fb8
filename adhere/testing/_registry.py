"""Policies by name: a registry of factories, each building a policy from its options."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from adhere.testing._model_string import ModelString, PolicyNotFound, PolicyOptions
from adhere.testing._scripts import ScriptStep
from adhere.testing._types import AnswerKey, Policy, ReplaySource

__all__ = ["PolicyContext", "PolicyFactory", "PolicyRegistry"]

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")


@dataclass(frozen=True)
class PolicyContext:
    """What the server can give a policy besides its options.

    Attributes:
        answer_key: Perfect answers from the suite layer (``oracle``, ``noisy``).
        replay: Recorded replies (``replay``).
        scripts: Scripted turns by name (``script``).
    """

    answer_key: AnswerKey | None = None
    replay: ReplaySource | None = None
    scripts: Mapping[str, Sequence[ScriptStep]] = field(default_factory=dict)


PolicyFactory = Callable[[PolicyOptions, PolicyContext], Policy]
"""Builds a policy: reads the options it accepts and takes what it needs from the context.

It raises ``ModelStringError`` for bad option values and ``PolicyNotFound`` when the
context lacks what it needs (no answer key, no such script).
"""


class PolicyRegistry:
    """Maps policy names to factories; :func:`default_registry` holds the built-ins."""

    def __init__(self) -> None:
        self._factories: dict[str, PolicyFactory] = {}

    def register(self, name: str, factory: PolicyFactory, *, replace: bool = False) -> None:
        """Add a policy under ``name``.

        Raises:
            ValueError: ``name`` is not a valid policy name, or is taken and
                ``replace`` is false.
        """
        if not _NAME.fullmatch(name):
            raise ValueError(f"invalid policy name {name!r}")
        if name in self._factories and not replace:
            raise ValueError(f"policy {name!r} is already registered")
        self._factories[name] = factory

    def names(self) -> list[str]:
        """Registered policy names, sorted."""
        return sorted(self._factories)

    def __contains__(self, name: object) -> bool:
        return name in self._factories

    def create(self, model: ModelString, context: PolicyContext) -> Policy:
        """Build the policy a parsed model string selects.

        Raises:
            PolicyNotFound: No policy of that name (or the factory's resource is missing).
            ModelStringError: An option is unknown or has a bad value.
        """
        factory = self._factories.get(model.policy)
        if factory is None:
            known = ", ".join(self.names()) or "none"
            raise PolicyNotFound(f"unknown policy {model.policy!r} (known: {known})")
        options = PolicyOptions(model.policy, model.options, model.flags)
        policy = factory(options, context)
        options.check_all_read()
        return policy
