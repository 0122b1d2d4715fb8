"""Parsing the ``model`` string that selects a policy: ``NAME`` or ``NAME:key=value,…``.

A bare first item is short for ``name=…`` (``script:hello`` is ``script:name=hello``);
later bare items are flags (``agent:edit,emoji``), which only policies that read
them accept. The generic fault options (``fail_first``, ``fail_status``, ``retry_after``,
``delay``, ``rps``, ``hold_after``, ``release``) are accepted by every policy and removed
before the policy sees its options.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from adhere.errors import SpecError

__all__ = [
    "Faults",
    "ModelString",
    "ModelStringError",
    "PolicyNotFound",
    "PolicyOptions",
    "parse_model_string",
]

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")
_KEY = re.compile(r"[a-z][a-z0-9_]*")
_FLAG = re.compile(r"[a-z][a-z0-9_-]*")
_GENERIC = ("fail_first", "fail_status", "retry_after", "delay", "rps", "hold_after", "release")


class ModelStringError(SpecError):
    """The model string is malformed, or an option is unknown or has a bad value (HTTP 400)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, field="model")


class PolicyNotFound(SpecError):
    """The model string names no registered policy or script (HTTP 404)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, field="model")


@dataclass(frozen=True)
class Faults:
    """Test-double fault injection, from the generic options of a model string.

    Attributes:
        fail_first: The first this many requests per conversation fail.
        fail_status: HTTP status of those failures.
        retry_after: Seconds sent in their ``Retry-After`` header.
        delay: Seconds to sleep before answering any request.
        rps: A server-side rate limit for this model string (requests per second, a
            token bucket holding one second's worth); requests over it get 429 with
            ``Retry-After``. 0 means no limit.
        hold_after: Answer this many requests for this model string, then hold every
            later one until the file ``release`` exists (forever without one): a
            test stops a run mid-way at a known point, without timing.
        release: The file whose existence lets held requests go.
    """

    fail_first: int = 0
    fail_status: int = 503
    retry_after: float = 0.0
    delay: float = 0.0
    rps: float = 0.0
    hold_after: int | None = None
    release: str = ""


@dataclass(frozen=True)
class ModelString:
    """A parsed model string.

    Attributes:
        text: The string as sent.
        policy: Policy name.
        options: The policy's own options (bare first item stored as ``name``).
        faults: The generic fault options.
        flags: Bare items after the first, e.g. ``emoji`` in ``agent:edit,emoji``.
    """

    text: str
    policy: str
    options: Mapping[str, str]
    faults: Faults
    flags: frozenset[str] = frozenset()


def parse_model_string(text: str) -> ModelString:
    """Parse ``NAME`` or ``NAME:key=value,key=value`` strictly.

    Raises:
        ModelStringError: Empty or malformed string, duplicate or badly formed option,
            or a bad value of a generic option.
    """
    if not text:
        raise ModelStringError("the model string is empty")
    name, colon, rest = text.partition(":")
    if not _NAME.fullmatch(name):
        raise ModelStringError(
            f"policy name {name!r} must start with a letter and use letters, digits, "
            "'_', '.' or '-' (form: NAME or NAME:key=value,...)"
        )
    options: dict[str, str] = {}
    flags: set[str] = set()
    if colon:
        if not rest:
            raise ModelStringError(f"nothing after ':' in {text!r}")
        for position, item in enumerate(rest.split(",")):
            key, equals, value = item.partition("=")
            if not equals and position > 0:
                if not _FLAG.fullmatch(item):
                    raise ModelStringError(
                        f"option {item!r} in {text!r} must be key=value or a flag "
                        "(lower-case letters, digits, '_', '-')"
                    )
                if item in flags:
                    raise ModelStringError(f"flag {item!r} is given twice in {text!r}")
                flags.add(item)
                continue
            if not equals:
                key, value = "name", item
            if not _KEY.fullmatch(key):
                raise ModelStringError(
                    f"option name {key!r} in {text!r} must be lower-case letters, digits, '_'"
                )
            if not value:
                raise ModelStringError(f"option {key!r} in {text!r} has an empty value")
            if key in options:
                raise ModelStringError(f"option {key!r} is given twice in {text!r}")
            options[key] = value
    generic = PolicyOptions(name, {key: options.pop(key) for key in _GENERIC if key in options})
    faults = Faults(
        fail_first=generic.integer("fail_first", 0, minimum=0),
        fail_status=generic.integer("fail_status", 503, minimum=400, maximum=599),
        retry_after=generic.number("retry_after", 0.0, minimum=0.0),
        delay=generic.number("delay", 0.0, minimum=0.0, maximum=600.0),
        rps=generic.number("rps", 0.0, minimum=0.0),
        hold_after=(
            generic.integer("hold_after", minimum=0) if "hold_after" in generic.values else None
        ),
        release=generic.text("release", ""),
    )
    return ModelString(text, name, MappingProxyType(options), faults, frozenset(flags))


class PolicyOptions:
    """A policy's options with typed getters; remembers which ones were read.

    A factory reads the options it accepts; any left unread afterwards are unknown
    and make the model string invalid (see :meth:`check_all_read`).
    """

    def __init__(
        self, policy: str, values: Mapping[str, str], flags: frozenset[str] = frozenset()
    ) -> None:
        self.policy = policy
        self._values = dict(values)
        self._flags = flags
        self._read: set[str] = set()
        self._flags_read: set[str] = set()

    @property
    def values(self) -> Mapping[str, str]:
        """All options as given."""
        return MappingProxyType(self._values)

    def text(self, key: str, default: str | None = None) -> str:
        """Option ``key`` as a string; required when ``default`` is ``None``."""
        value = self._lookup(key, required=default is None)
        if value is None:
            assert default is not None
            return default
        return value

    def integer(
        self,
        key: str,
        default: int | None = None,
        *,
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> int:
        """Option ``key`` as an integer within ``[minimum, maximum]``."""
        raw = self._lookup(key, required=default is None)
        if raw is None:
            assert default is not None
            return default
        try:
            value = int(raw)
        except ValueError:
            raise self._bad(key, raw, "an integer") from None
        self._check_range(key, raw, value, minimum, maximum)
        return value

    def number(
        self,
        key: str,
        default: float | None = None,
        *,
        minimum: float | None = None,
        maximum: float | None = None,
    ) -> float:
        """Option ``key`` as a finite number within ``[minimum, maximum]``."""
        raw = self._lookup(key, required=default is None)
        if raw is None:
            assert default is not None
            return default
        try:
            value = float(raw)
        except ValueError:
            raise self._bad(key, raw, "a number") from None
        if not math.isfinite(value):
            raise self._bad(key, raw, "a finite number")
        self._check_range(key, raw, value, minimum, maximum)
        return value

    def flag(self, name: str) -> bool:
        """Whether the bare flag ``name`` was given (asking marks it as accepted)."""
        self._flags_read.add(name)
        return name in self._flags

    def check_all_read(self) -> None:
        """Raise :class:`ModelStringError` naming options and flags no getter asked for."""
        stray = sorted(self._flags - self._flags_read)
        if stray:
            accepted = ", ".join(sorted(self._flags_read)) or "none"
            names = ", ".join(repr(flag) for flag in stray)
            raise ModelStringError(
                f"unknown flag {names} for policy {self.policy!r} (accepted flags: {accepted}; "
                "options are written key=value)"
            )
        unknown = sorted(set(self._values) - self._read)
        if unknown:
            accepted = ", ".join(sorted(self._read)) or "none"
            names = ", ".join(repr(key) for key in unknown)
            raise ModelStringError(
                f"unknown option {names} for policy {self.policy!r} (accepted: {accepted}; "
                f"every policy also takes {', '.join(_GENERIC)})"
            )

    def _lookup(self, key: str, *, required: bool) -> str | None:
        self._read.add(key)
        value = self._values.get(key)
        if value is None and required:
            raise ModelStringError(f"policy {self.policy!r} needs option {key!r}")
        return value

    def _check_range(
        self, key: str, raw: str, value: float, minimum: float | None, maximum: float | None
    ) -> None:
        if minimum is not None and value < minimum:
            raise self._bad(key, raw, f"at least {minimum:g}")
        if maximum is not None and value > maximum:
            raise self._bad(key, raw, f"at most {maximum:g}")

    def _bad(self, key: str, raw: str, expected: str) -> ModelStringError:
        return ModelStringError(
            f"option {key!r} of policy {self.policy!r} must be {expected}, got {raw!r}"
        )
