"""Which CLI versions a scaffold runs: its pin, the others adhere claims, the uninstallable.

Pure data, read from a scaffold class without building it, so a plan can say which
version each trial will run before anything is installed:

* ``pinned`` — what runs unless a Rollout asks for another version;
* ``tested`` — versions adhere's adapter is tested with (the pin first): their flags,
  system-prompt handling and tool names are covered by tests, so an instance naming
  one of them (``version: fromInstance``) runs it;
* ``unavailable`` — versions known not to be installable, with the reason (e.g. not
  on npm): asked for explicitly they are an error; named by an instance they are
  replaced by the pin and the plan says so.

In-process scaffolds (``chat``, ``reference``) have no versions: theirs is
:data:`BUILTIN`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["BUILTIN", "VersionSupport"]

BUILTIN = "builtin"
"""The version of a scaffold that is part of adhere (nothing to install)."""


@dataclass(frozen=True)
class VersionSupport:
    """The versions of one scaffold (see the module docstring).

    Attributes:
        pinned: The version installed unless asked otherwise (:data:`BUILTIN` for
            in-process scaffolds).
        tested: Versions adhere's adapter is tested with, the pin first.
        unavailable: Versions that cannot be installed → why not.
        package: Where versions come from (e.g. ``npm @anthropic-ai/claude-code``),
            for messages; empty for in-process scaffolds.
    """

    pinned: str
    tested: tuple[str, ...] = ()
    unavailable: Mapping[str, str] = field(default_factory=dict)
    package: str = ""

    @property
    def installs(self) -> bool:
        """Whether the scaffold installs a CLI at all (in-process ones do not)."""
        return self.pinned != BUILTIN

    def is_tested(self, version: str) -> bool:
        """Whether ``version`` is the pin or one of the tested versions."""
        return version == self.pinned or version in self.tested
