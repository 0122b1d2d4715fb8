"""The Instruction type, value lengths, domains and the registration decorator."""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

ValueType = Literal["int", "str"]

INT_LIMIT: int = 2**31
"""Chain integers stay in ``0 <= n < INT_LIMIT``; int inputs satisfy ``|n| < INT_LIMIT``."""

WIDE_INT_LIMIT: int = 2**32
"""Instruction 2 accepts the wider domain ``|n| < WIDE_INT_LIMIT``."""

MAX_STR_LENGTH: int = 200
"""Longest string any string instruction accepts."""

_LOWER = string.ascii_lowercase
_UPPER = string.ascii_uppercase
_LETTERS = frozenset(string.ascii_letters)
_VOWELS = frozenset("aeiouAEIOU")


@dataclass(frozen=True)
class Instruction:
    """One PACIFIC instruction: a typed, documented function of one value.

    Attributes:
        paper_id: The paper's number for the instruction, 1 to 22.
        name: The snake_case function name used in prompts and reports.
        in_type: Type of the accepted value, ``"int"`` or ``"str"``.
        out_type: Type of the returned value, ``"int"`` or ``"str"``.
        fn: The Python reference implementation.
        summary: One-line English meaning, for documentation and reports.
        int_bound: For integer inputs, the exclusive bound on ``|n|``.
    """

    paper_id: int
    name: str
    in_type: ValueType
    out_type: ValueType
    fn: Callable[[Any], Any]
    summary: str
    int_bound: int = INT_LIMIT

    def accepts(self, value: object) -> bool:
        """Tell whether a value lies in this instruction's documented domain.

        Args:
            value: Any object.

        Returns:
            True for an ``int`` (not a ``bool``) with ``|value| < int_bound`` when the
            instruction takes integers; for a string of printable ASCII no longer than
            ``MAX_STR_LENGTH`` when it takes strings; False otherwise.
        """
        if self.in_type == "int":
            return (
                isinstance(value, int)
                and not isinstance(value, bool)
                and -self.int_bound < value < self.int_bound
            )
        return (
            isinstance(value, str)
            and len(value) <= MAX_STR_LENGTH
            and all(32 <= ord(char) <= 126 for char in value)
        )

    def __call__(self, value: object) -> int | str:
        """Apply the reference implementation.

        Args:
            value: A value in the instruction's domain.

        Returns:
            The instruction's output, of type ``out_type``.

        Raises:
            ValueError: If ``value`` is outside the domain (see ``accepts``).
        """
        if not self.accepts(value):
            raise ValueError(
                f"instruction {self.paper_id} ({self.name}) does not accept {value!r}: "
                f"expected {self._domain_text()}"
            )
        result: int | str = self.fn(value)
        return result

    def _domain_text(self) -> str:
        if self.in_type == "int":
            return f"an int n with |n| < {self.int_bound}"
        return f"a printable-ASCII str of at most {MAX_STR_LENGTH} characters"


def value_length(value: int | str) -> int:
    """Measure a chain value: bits for integers, characters for strings.

    Args:
        value: An integer or a string.

    Returns:
        ``abs(value).bit_length()`` for integers (1 for zero), ``len(value)`` for strings.
    """
    if isinstance(value, str):
        return len(value)
    return max(1, abs(value).bit_length())


_F = TypeVar("_F", bound=Callable[..., Any])
_REGISTERED: list[Instruction] = []


def _instruction(
    paper_id: int,
    in_type: ValueType,
    out_type: ValueType,
    summary: str,
    *,
    int_bound: int = INT_LIMIT,
) -> Callable[[_F], _F]:
    """Record the decorated reference implementation as the instruction ``paper_id``."""

    def register(fn: _F) -> _F:
        _REGISTERED.append(
            Instruction(paper_id, fn.__name__, in_type, out_type, fn, summary, int_bound)
        )
        return fn

    return register


# --- integer instructions -----------------------------------------------------------
