"""Policies by name: a registry of factories, each building a policy from its options."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from adhere._registry import Registry
from adhere.testing._model_string import ModelString, PolicyNotFound, PolicyOptions
from adhere.testing._scripts import ScriptStep
from adhere.testing._types import AnswerKey, Policy, ReplaySource

__all__ = ["PolicyContext", "PolicyFactory", "PolicyRegistry", "policy"]

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


_POLICIES: Registry[PolicyFactory] = Registry(
    "policies",
    "policy",
    field="model",
    builtin=dict.fromkeys(
        (
            "agent",
            "checkgen",
            "judge",
            "noisy",
            "oracle",
            "replay",
            "script",
            "vericode-selector",
        ),
        "adhere.testing._builtin",
    ),
)
"""Every server's policies: the built-ins and those of the ``adhere.policies`` entry points."""


def policy(name: str) -> Callable[[PolicyFactory], PolicyFactory]:
    """Decorator registering a policy factory under ``name`` for every server."""
    if not _NAME.fullmatch(name):
        raise ValueError(f"invalid policy name {name!r}")
    return _POLICIES.decorator(name)


class PolicyRegistry:
    """Maps policy names to factories; :func:`default_registry` holds the built-ins.

    A registry of one server: what it registers stays its own. Lookups are
    :class:`adhere._registry.Registry`'s.

    Args:
        builtins: Whether the built-in policies (and those of the ``adhere.policies``
            entry points) are known too; without, the registry starts empty.
    """

    def __init__(self, *, builtins: bool = False) -> None:
        self._policies: Registry[PolicyFactory] = (
            _POLICIES.child() if builtins else Registry("policies", "policy", entry_points=False)
        )

    def register(self, name: str, factory: PolicyFactory, *, replace: bool = False) -> None:
        """Add a policy under ``name``.

        Raises:
            ValueError: ``name`` is not a valid policy name, or is taken and
                ``replace`` is false.
        """
        if not _NAME.fullmatch(name):
            raise ValueError(f"invalid policy name {name!r}")
        self._policies.register(name, factory, replace=replace)

    def names(self) -> list[str]:
        """Known policy names, sorted."""
        return self._policies.names()

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.names()

    def factory(self, name: str) -> PolicyFactory:
        """The factory of the policy ``name``.

        Raises:
            PolicyNotFound: No policy of that name.
        """
        found = self._policies.find(name)
        if found is None:
            known = ", ".join(self.names()) or "none"
            raise PolicyNotFound(f"unknown policy {name!r} (known: {known})")
        return found

    def create(self, model: ModelString, context: PolicyContext) -> Policy:
        """Build the policy a parsed model string selects.

        Raises:
            PolicyNotFound: No policy of that name (or the factory's resource is missing).
            ModelStringError: An option is unknown or has a bad value.
        """
        factory = self.factory(model.policy)
        options = PolicyOptions(model.policy, model.options, model.flags)
        policy = factory(options, context)
        options.check_all_read()
        return policy
