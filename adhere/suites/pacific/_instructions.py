"""The 22 PACIFIC instructions and their Python reference implementations.

Each instruction maps one value (an ``int`` or a ``str``) to another. A PACIFIC sample
chains several of them; the expected answer for every step is computed by calling the
reference implementation defined here, so these functions are the ground truth that
the Java, C++, Python and natural-language renderings in ``_render`` must agree with.

Domains, chosen so that 64-bit Java and C++ code never overflows:

* integer inputs: ``-INT_LIMIT < n < INT_LIMIT`` (``INT_LIMIT = 2**31``), except
  instruction 2 (``invert_padded_bits``), which accepts ``|n| < 2**32``;
* string inputs: printable ASCII (codes 32 to 126), at most ``MAX_STR_LENGTH``
  characters.

Edge rules where the paper is silent:

* negative inputs are replaced by their absolute value in instructions 1, 2, 5, 6, 7;
* instruction 3 returns the smallest prime strictly greater than ``n`` (2 when
  ``n < 2``); instruction 4 the smallest perfect square strictly greater than ``n``
  (0 when ``n`` is negative);
* instructions 8, 9 and 10 use the floor modulo, so negative inputs wrap around;
  element index 0 means element 118 (Oganesson) and Roman numeral 0 is ``"N"``;
  thousands beyond 3000 are written as repeated ``"M"``;
* the string instructions leave non-letters unchanged; instruction 14 counts letters
  only; instruction 15 keeps ``m``/``M`` and non-letters in the middle group.
"""

from __future__ import annotations

import math

from adhere.suites.pacific._instruction_type import (
    _LETTERS,
    _LOWER,
    _REGISTERED,
    _UPPER,
    _VOWELS,
    INT_LIMIT,
    MAX_STR_LENGTH,
    WIDE_INT_LIMIT,
    Instruction,
    ValueType,
    _instruction,
    value_length,
)
from adhere.suites.pacific._tables import DIGIT_NAMES, ELEMENTS, ROMAN_TABLE, WEEKDAYS


@_instruction(1, "int", "int", "count the 2s in base 3 of |n|, times 7, plus 3")
def ternary_twos_score(n: int) -> int:
    """Count the digits 2 in base 3 of ``|n|``, multiply by 7 and add 3."""
    value = abs(n)
    twos = 0
    while value > 0:
        value, digit = divmod(value, 3)
        if digit == 2:
            twos += 1
    return twos * 7 + 3


@_instruction(
    2,
    "int",
    "int",
    "invert every bit of |n| in the smallest power-of-two width that holds it",
    int_bound=WIDE_INT_LIMIT,
)
def invert_padded_bits(n: int) -> int:
    """Invert ``|n|`` within the smallest power-of-two bit width that holds it.

    The width is the smallest power of two at least ``|n|.bit_length()`` (zero needs
    one bit); every bit of that width is flipped and the result read as unsigned.
    """
    value = abs(n)
    needed = max(1, value.bit_length())
    width = 1
    while width < needed:
        width *= 2
    return value ^ ((1 << width) - 1)


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    if n % 2 == 0:
        return n == 2
    divisor = 3
    while divisor * divisor <= n:
        if n % divisor == 0:
            return False
        divisor += 2
    return True


@_instruction(3, "int", "int", "smallest prime greater than n")
def next_prime(n: int) -> int:
    """Return the smallest prime strictly greater than ``n`` (2 for any ``n < 2``)."""
    candidate = max(n + 1, 2)
    while not _is_prime(candidate):
        candidate += 1
    return candidate


@_instruction(4, "int", "int", "smallest perfect square greater than n")
def next_perfect_square(n: int) -> int:
    """Return the smallest perfect square strictly greater than ``n`` (0 when ``n < 0``)."""
    if n < 0:
        return 0
    root = math.isqrt(n) + 1
    return root * root


@_instruction(5, "int", "int", "decimal digits of |n| as polynomial coefficients, evaluated at 2")
def digits_at_two(n: int) -> int:
    """Read the decimal digits of ``|n|`` as polynomial coefficients and evaluate at 2.

    The most significant digit is the coefficient of the highest power.
    """
    return sum(int(digit) * 2**power for power, digit in enumerate(reversed(str(abs(n)))))


@_instruction(6, "int", "str", "each digit of |n| as its letter, lower then upper, 0 as xX")
def abs_digit_letters(n: int) -> str:
    """Spell each digit of ``|n|`` as its alphabet letter, lower then upper case.

    Digit d (1 to 9) becomes the d-th letter; 0 becomes ``x``. ``405 -> "dDxXeE"``.
    """
    out = []
    for digit in str(abs(n)):
        letter = "x" if digit == "0" else _LOWER[int(digit) - 1]
        out.append(letter + letter.upper())
    return "".join(out)


@_instruction(7, "int", "str", "each digit of |n| as first+last letters of its name, upper case")
def abs_digit_name(n: int) -> str:
    """Write, for each digit of ``|n|``, the first and last letters of its English name.

    The letters are upper case: ``103 -> "OEZOTE"``.
    """
    return "".join(
        (DIGIT_NAMES[int(digit)][0] + DIGIT_NAMES[int(digit)][-1]).upper() for digit in str(abs(n))
    )


@_instruction(8, "int", "str", "element name for atomic number n mod 118 (0 means 118)")
def element_name(n: int) -> str:
    """Name the element whose atomic number is ``n mod 118`` (floor modulo; 0 means 118)."""
    index = n % 118
    return ELEMENTS[(index if index else 118) - 1]


@_instruction(9, "int", "str", "n mod 10000 in Roman numerals")
def to_roman(n: int) -> str:
    """Write ``n mod 10000`` (floor modulo) in Roman numerals.

    Zero is ``"N"``; thousands are repeated ``"M"`` (``9999 -> "MMMMMMMMMCMXCIX"``).
    """
    value = n % 10000
    if value == 0:
        return "N"
    out = []
    for amount, symbol in ROMAN_TABLE:
        count, value = divmod(value, amount)
        out.append(symbol * count)
    return "".join(out)


@_instruction(10, "int", "str", "lower-case day of the week with index n mod 7, Sunday = 0")
def weekday_name(n: int) -> str:
    """Name the day of the week with index ``n mod 7`` (floor modulo), Sunday = 0."""
    return WEEKDAYS[n % 7]


# --- string instructions ------------------------------------------------------------


def _shift_letter(char: str, offset: int) -> str:
    if char in _LETTERS:
        alphabet = _LOWER if char.islower() else _UPPER
        return alphabet[(alphabet.index(char) + offset) % 26]
    return char


@_instruction(11, "str", "str", "alternate case by position from lower, then reverse")
def alternate_case_reversed(s: str) -> str:
    """Lower-case even positions, upper-case odd positions, then reverse the string.

    Positions count every character from 0; non-letters keep their position but do not
    change.
    """
    alternated = "".join(
        char.lower() if index % 2 == 0 else char.upper() for index, char in enumerate(s)
    )
    return alternated[::-1]


@_instruction(12, "str", "str", "sort the characters by ASCII code")
def sort_characters(s: str) -> str:
    """Sort the characters by ASCII code."""
    return "".join(sorted(s, key=ord))


@_instruction(13, "str", "str", "replace each letter by the previous one, wrapping a to z")
def shift_back(s: str) -> str:
    """Replace each letter by the previous one, wrapping ``a -> z`` and ``A -> Z``.

    Non-letters are unchanged: ``"IBM" -> "HAL"``.
    """
    return "".join(_shift_letter(char, -1) for char in s)


@_instruction(14, "str", "str", "replace every second letter by the next letter of the alphabet")
def bump_every_second_letter(s: str) -> str:
    """Replace the 2nd, 4th, 6th, ... letter by the next letter of the alphabet.

    Only letters are counted; case is kept and ``z``/``Z`` wrap to ``a``/``A``.
    """
    out = []
    letters_seen = 0
    for char in s:
        if char in _LETTERS:
            letters_seen += 1
            if letters_seen % 2 == 0:
                char = _shift_letter(char, 1)
        out.append(char)
    return "".join(out)


@_instruction(15, "str", "str", "stable partition: letters before m first, letters after m last")
def partition_around_m(s: str) -> str:
    """Stable three-way partition around ``m``, case-insensitive.

    Letters a to l come first, then ``m``/``M`` and every non-letter, then letters
    n to z; each group keeps its original order.
    """
    before = [c for c in s if c in _LETTERS and c.lower() < "m"]
    middle = [c for c in s if c not in _LETTERS or c.lower() == "m"]
    after = [c for c in s if c in _LETTERS and c.lower() > "m"]
    return "".join(before + middle + after)


@_instruction(16, "str", "str", 'surround with "abcde" before and "edcba" after')
def wrap_with_abcde(s: str) -> str:
    """Put ``"abcde"`` before the string and ``"edcba"`` after it."""
    return "abcde" + s + "edcba"


@_instruction(17, "str", "str", "the string three times")
def repeat_three_times(s: str) -> str:
    """Concatenate three copies of the string."""
    return s * 3


@_instruction(18, "str", "str", "Caesar cipher with key 8")
def caesar_shift_8(s: str) -> str:
    """Shift each letter forward by 8 in the alphabet, wrapping and keeping case."""
    return "".join(_shift_letter(char, 8) for char in s)


@_instruction(19, "str", "str", 'replace each vowel by "gh"')
def replace_vowels_with_gh(s: str) -> str:
    """Replace each vowel (a, e, i, o, u in either case; not y) by ``"gh"``."""
    return "".join("gh" if char in _VOWELS else char for char in s)


@_instruction(20, "str", "str", "move the longest non-decreasing prefix to the end")
def move_sorted_prefix_to_end(s: str) -> str:
    """Move the longest prefix whose ASCII codes never decrease to the end.

    The empty string and a string that never decreases come back unchanged.
    """
    cut = 1
    while cut < len(s) and ord(s[cut - 1]) <= ord(s[cut]):
        cut += 1
    return s[cut:] + s[:cut]


@_instruction(21, "str", "int", "sum of the alphabet positions of the letters, case-insensitive")
def letter_position_sum(s: str) -> int:
    """Add the alphabet positions of the letters (a/A = 1 ... z/Z = 26); skip the rest."""
    return sum(_LOWER.index(char.lower()) + 1 for char in s if char in _LETTERS)


@_instruction(22, "str", "int", "sum of the ASCII codes")
def ascii_sum(s: str) -> int:
    """Add the ASCII codes of all characters."""
    return sum(ord(char) for char in s)


INSTRUCTIONS: tuple[Instruction, ...] = tuple(sorted(_REGISTERED, key=lambda ins: ins.paper_id))
"""All 22 instructions, ordered by ``paper_id``."""

_BY_ID = {instruction.paper_id: instruction for instruction in INSTRUCTIONS}
_BY_NAME = {instruction.name: instruction for instruction in INSTRUCTIONS}


def by_id(paper_id: int) -> Instruction:
    """Look up an instruction by its paper number.

    Args:
        paper_id: A number from 1 to 22.

    Returns:
        The instruction with that number.

    Raises:
        ValueError: If no instruction has that number.
    """
    try:
        return _BY_ID[paper_id]
    except KeyError:
        raise ValueError(
            f"no PACIFIC instruction has paper_id {paper_id!r}; valid ids are 1 to "
            f"{len(INSTRUCTIONS)}"
        ) from None


def by_name(name: str) -> Instruction:
    """Look up an instruction by its snake_case name.

    Args:
        name: The instruction's ``name``, for example ``"next_perfect_square"``.

    Returns:
        The instruction with that name.

    Raises:
        ValueError: If no instruction has that name.
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(
            f"no PACIFIC instruction is named {name!r}; known names: {', '.join(_BY_NAME)}"
        ) from None


__all__ = [
    "INSTRUCTIONS",
    "INT_LIMIT",
    "MAX_STR_LENGTH",
    "WIDE_INT_LIMIT",
    "Instruction",
    "ValueType",
    "by_id",
    "by_name",
    "value_length",
]
