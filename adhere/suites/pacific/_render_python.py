"""Python renderings of the 22 PACIFIC instructions.

Each entry is a self-contained function definition with type hints and no imports, so
all 22 (plus the ``is_prime`` helper of instruction 3) can share one module.
"""

from __future__ import annotations

import textwrap

from adhere.suites.pacific._tables import ELEMENTS


def _element_rows() -> str:
    quoted = ", ".join(f'"{name}"' for name in ELEMENTS) + ","
    return textwrap.fill(quoted, width=88, initial_indent=" " * 8, subsequent_indent=" " * 8)


PYTHON_SOURCES: dict[int, str] = {
    1: """
def ternary_twos_score(n: int) -> int:
    value = abs(n)
    twos = 0
    while value > 0:
        if value % 3 == 2:
            twos += 1
        value //= 3
    return twos * 7 + 3
""",
    2: """
def invert_padded_bits(n: int) -> int:
    value = abs(n)
    bits_needed = max(1, value.bit_length())
    width = 1
    while width < bits_needed:
        width *= 2
    mask = (1 << width) - 1
    return ~value & mask
""",
    3: """
def is_prime(n: int) -> bool:
    if n < 2:
        return False
    divisor = 2
    while divisor * divisor <= n:
        if n % divisor == 0:
            return False
        divisor += 1
    return True


def next_prime(n: int) -> int:
    candidate = max(n + 1, 2)
    while not is_prime(candidate):
        candidate += 1
    return candidate
""",
    4: """
def next_perfect_square(n: int) -> int:
    if n < 0:
        return 0
    low, high = 0, 1
    while high * high <= n:
        high *= 2
    while low < high:
        middle = (low + high) // 2
        if middle * middle > n:
            high = middle
        else:
            low = middle + 1
    return low * low
""",
    5: """
def digits_at_two(n: int) -> int:
    result = 0
    for digit in str(abs(n)):
        result = result * 2 + int(digit)
    return result
""",
    6: """
def abs_digit_letters(n: int) -> str:
    letters = "xabcdefghi"
    result = ""
    for digit in str(abs(n)):
        letter = letters[int(digit)]
        result += letter + letter.upper()
    return result
""",
    7: """
def abs_digit_name(n: int) -> str:
    names = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    result = ""
    for digit in str(abs(n)):
        name = names[int(digit)]
        result += name[0] + name[-1]
    return result.upper()
""",
    8: """
def element_name(n: int) -> str:
    elements = [
@ELEMENTS@
    ]
    number = n % 118
    if number == 0:
        number = 118
    return elements[number - 1]
""",
    9: """
def to_roman(n: int) -> str:
    value = n % 10000
    if value == 0:
        return "N"
    values = [1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1]
    symbols = ["M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"]
    result = ""
    for amount, symbol in zip(values, symbols):
        while value >= amount:
            result += symbol
            value -= amount
    return result
""",
    10: """
def weekday_name(n: int) -> str:
    days = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
    return days[n % 7]
""",
    11: """
def alternate_case_reversed(s: str) -> str:
    result = ""
    for index, char in enumerate(s):
        if index % 2 == 0:
            result += char.lower()
        else:
            result += char.upper()
    return result[::-1]
""",
    12: """
def sort_characters(s: str) -> str:
    return "".join(sorted(s))
""",
    13: """
def shift_back(s: str) -> str:
    result = ""
    for char in s:
        if char == "a":
            result += "z"
        elif char == "A":
            result += "Z"
        elif "a" <= char <= "z" or "A" <= char <= "Z":
            result += chr(ord(char) - 1)
        else:
            result += char
    return result
""",
    14: """
def bump_every_second_letter(s: str) -> str:
    result = ""
    letter_count = 0
    for char in s:
        if "a" <= char <= "z" or "A" <= char <= "Z":
            letter_count += 1
            if letter_count % 2 == 0:
                if char == "z":
                    char = "a"
                elif char == "Z":
                    char = "A"
                else:
                    char = chr(ord(char) + 1)
        result += char
    return result
""",
    15: """
def partition_around_m(s: str) -> str:
    before = ""
    middle = ""
    after = ""
    for char in s:
        lower = char.lower()
        if "a" <= lower < "m":
            before += char
        elif "m" < lower <= "z":
            after += char
        else:
            middle += char
    return before + middle + after
""",
    16: """
def wrap_with_abcde(s: str) -> str:
    return "abcde" + s + "edcba"
""",
    17: """
def repeat_three_times(s: str) -> str:
    return s + s + s
""",
    18: """
def caesar_shift_8(s: str) -> str:
    result = ""
    for char in s:
        if "a" <= char <= "z":
            result += chr((ord(char) - ord("a") + 8) % 26 + ord("a"))
        elif "A" <= char <= "Z":
            result += chr((ord(char) - ord("A") + 8) % 26 + ord("A"))
        else:
            result += char
    return result
""",
    19: """
def replace_vowels_with_gh(s: str) -> str:
    result = ""
    for char in s:
        if char in "aeiouAEIOU":
            result += "gh"
        else:
            result += char
    return result
""",
    20: """
def move_sorted_prefix_to_end(s: str) -> str:
    if s == "":
        return s
    length = 1
    while length < len(s) and s[length - 1] <= s[length]:
        length += 1
    return s[length:] + s[:length]
""",
    21: """
def letter_position_sum(s: str) -> int:
    total = 0
    for char in s:
        if "a" <= char <= "z":
            total += ord(char) - ord("a") + 1
        elif "A" <= char <= "Z":
            total += ord(char) - ord("A") + 1
    return total
""",
    22: """
def ascii_sum(s: str) -> int:
    total = 0
    for char in s:
        total += ord(char)
    return total
""",
}
"""Python source per paper id, before the element table is filled in (see ``python_source``)."""


def python_source(paper_id: int) -> str:
    """Return the Python rendering of one instruction.

    Args:
        paper_id: The instruction's paper number (1 to 22).

    Returns:
        The source, without leading or trailing blank lines.

    Raises:
        KeyError: If ``paper_id`` has no rendering.
    """
    return PYTHON_SOURCES[paper_id].replace("@ELEMENTS@", _element_rows()).strip("\n")
