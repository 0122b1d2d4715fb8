"""The 22 PACIFIC reference implementations, their domains and their edge rules."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adhere.suites.pacific._instructions import (
    ELEMENTS,
    INSTRUCTIONS,
    INT_LIMIT,
    MAX_STR_LENGTH,
    Instruction,
    by_id,
    by_name,
    value_length,
)

DOCS = Path(__file__).resolve().parents[3] / "docs" / "pacific-instructions.md"

CASES: list[tuple[int, object, object]] = [
    # 1: 2s in base 3 of |n|, times 7, plus 3
    (1, 0, 3),
    (1, 2, 10),  # "2"
    (1, 8, 17),  # "22"
    (1, 5, 10),  # "12"
    (1, 9, 3),  # "100"
    (1, -8, 17),
    (1, 26, 24),  # "222"
    # 2: invert within a power-of-two width
    (2, 0, 1),
    (2, 1, 0),
    (2, 2, 1),
    (2, 3, 0),
    (2, 5, 10),
    (2, -5, 10),
    (2, 16, 0b1110_1111),  # 5 bits -> width 8
    (2, 255, 0),
    (2, 256, 0xFEFF),
    (2, 2**31, 2**31 - 1),
    (2, 2**32 - 1, 0),
    # 3: smallest prime strictly greater than n
    (3, -100, 2),
    (3, 0, 2),
    (3, 1, 2),
    (3, 2, 3),
    (3, 3, 5),
    (3, 13, 17),
    (3, 24, 29),
    (3, 2**31 - 1, 2**31 + 11),
    # 4: smallest perfect square strictly greater than n
    (4, 4, 9),
    (4, 5, 9),
    (4, 8, 9),
    (4, 9, 16),
    (4, 0, 1),
    (4, -1, 0),
    (4, -(2**31) + 1, 0),
    (4, 2**31 - 1, 46341**2),
    # 5: digits evaluated at 2
    (5, 0, 0),
    (5, 7, 7),
    (5, 123, 11),
    (5, -123, 11),
    (5, 101, 5),
    (
        5,
        2**31 - 1,
        2 * 512 + 1 * 256 + 4 * 128 + 7 * 64 + 4 * 32 + 8 * 16 + 3 * 8 + 6 * 4 + 4 * 2 + 7,
    ),
    # 6: digit letters
    (6, 405, "dDxXeE"),
    (6, -405, "dDxXeE"),
    (6, 0, "xX"),
    (6, 19, "aAiI"),
    # 7: first and last letters of digit names
    (7, 103, "OEZOTE"),
    (7, -103, "OEZOTE"),
    (7, 0, "ZO"),
    (7, 456789, "FRFESXSNETNE"),
    (7, 2, "TO"),
    # 8: element n mod 118, 0 means 118
    (8, 1, "Hydrogen"),
    (8, 6, "Carbon"),
    (8, 13, "Aluminium"),
    (8, 16, "Sulfur"),
    (8, 55, "Caesium"),
    (8, 79, "Gold"),
    (8, 117, "Tennessine"),
    (8, 118, "Oganesson"),
    (8, 0, "Oganesson"),
    (8, 119, "Hydrogen"),
    (8, -1, "Tennessine"),
    (8, -118, "Oganesson"),
    # 9: Roman numerals of n mod 10000
    (9, 1, "I"),
    (9, 4, "IV"),
    (9, 9, "IX"),
    (9, 14, "XIV"),
    (9, 40, "XL"),
    (9, 90, "XC"),
    (9, 400, "CD"),
    (9, 1994, "MCMXCIV"),
    (9, 2024, "MMXXIV"),
    (9, 3999, "MMMCMXCIX"),
    (9, 4000, "MMMM"),
    (9, 9999, "MMMMMMMMMCMXCIX"),
    (9, 0, "N"),
    (9, 10000, "N"),
    (9, 10001, "I"),
    (9, -1, "MMMMMMMMMCMXCIX"),
    # 10: day of week, Sunday = 0
    (10, 0, "sunday"),
    (10, 1, "monday"),
    (10, 6, "saturday"),
    (10, 7, "sunday"),
    (10, -1, "saturday"),
    (10, 10, "wednesday"),
    # 11: alternate case from lower, then reverse
    (11, "", ""),
    (11, "abcd", "DcBa"),
    (11, "Hello", "oLlEh"),
    (11, "ab c", "C Ba"),
    (11, "1a2B", "B2A1"),
    # 12: sort by ASCII
    (12, "", ""),
    (12, "banana", "aaabnn"),
    (12, "bA a1!", " !1Aab"),
    # 13: shift back with wrap
    (13, "IBM", "HAL"),
    (13, "abc", "zab"),
    (13, "Apple", "Zookd"),
    (13, "a-1 Z", "z-1 Y"),
    (13, "", ""),
    # 14: every second letter (letters only) bumped
    (14, "abcd", "acce"),
    (14, "a1b2c3d", "a1c2c3e"),
    (14, "az", "aa"),
    (14, "AZ", "AA"),
    (14, "xYz", "xZz"),
    (14, "a", "a"),
    (14, "12 34", "12 34"),
    # 15: three stable groups around m
    (15, "zebra", "ebazr"),
    (15, "mMm", "mMm"),
    (15, "Hello World!", "Hellld !oWor"),
    (15, "n1a", "a1n"),
    (15, "", ""),
    # 16, 17
    (16, "", "abcdeedcba"),
    (16, "X y", "abcdeX yedcba"),
    (17, "", ""),
    (17, "ab", "ababab"),
    # 18: Caesar +8
    (18, "abc", "ijk"),
    (18, "xyz", "fgh"),
    (18, "Hello, World!", "Pmttw, Ewztl!"),
    (18, "s", "a"),
    (18, "Z", "H"),
    # 19: vowels to gh, y is not a vowel
    (19, "education", "ghdghcghtghghn"),
    (19, "AEIOU", "ghghghghgh"),
    (19, "rhythm", "rhythm"),
    (19, "a1 e", "gh1 gh"),
    # 20: move the longest non-decreasing prefix to the end
    (20, "", ""),
    (20, "a", "a"),
    (20, "abc", "abc"),
    (20, "aab", "aab"),
    (20, "cab", "abc"),
    (20, "abca", "aabc"),
    (20, "ba", "ab"),
    (20, "Ab", "Ab"),
    (20, "bA", "Ab"),
    (20, " a!", "! a"),
    (20, "abdc", "cabd"),  # the drop is checked against the character just before it
    # 21: alphabet positions, case-insensitive, non-letters ignored
    (21, "", 0),
    (21, "abc", 6),
    (21, "ABC", 6),
    (21, "Zz", 52),
    (21, "a1 b!", 3),
    (21, "123", 0),
    # 22: ASCII sum
    (22, "", 0),
    (22, "A", 65),
    (22, "a b", 97 + 32 + 98),
    (22, "~", 126),
]


@pytest.mark.parametrize(("paper_id", "value", "expected"), CASES)
def test_reference_output(paper_id: int, value: object, expected: object) -> None:
    assert by_id(paper_id)(value) == expected


def test_every_instruction_has_a_case() -> None:
    assert {case[0] for case in CASES} == set(range(1, 23))


def test_registry_shape() -> None:
    assert len(INSTRUCTIONS) == 22
    assert [ins.paper_id for ins in INSTRUCTIONS] == list(range(1, 23))
    assert len({ins.name for ins in INSTRUCTIONS}) == 22
    for ins in INSTRUCTIONS:
        assert re.fullmatch(r"[a-z][a-z0-9_]*", ins.name)
        assert ins.in_type in ("int", "str")
        assert ins.out_type in ("int", "str")
        assert ins.summary
        assert by_id(ins.paper_id) is ins
        assert by_name(ins.name) is ins
    types = [(ins.in_type, ins.out_type) for ins in INSTRUCTIONS]
    assert types == (
        [("int", "int")] * 5 + [("int", "str")] * 5 + [("str", "str")] * 10 + [("str", "int")] * 2
    )


@pytest.mark.parametrize(
    ("paper_id", "name"),
    [
        (4, "next_perfect_square"),
        (13, "shift_back"),
        (9, "to_roman"),
        (7, "abs_digit_name"),
        (19, "replace_vowels_with_gh"),
    ],
)
def test_paper_names(paper_id: int, name: str) -> None:
    assert by_id(paper_id).name == name


@pytest.mark.parametrize("bad", [0, 23, -1])
def test_by_id_unknown(bad: int) -> None:
    with pytest.raises(ValueError, match="paper_id"):
        by_id(bad)


def test_by_name_unknown() -> None:
    with pytest.raises(ValueError, match="no_such"):
        by_name("no_such")


def test_elements_table() -> None:
    assert len(ELEMENTS) == 118
    assert len(set(ELEMENTS)) == 118
    assert all(re.fullmatch(r"[A-Z][a-z]+", name) for name in ELEMENTS)
    spot = {1: "Hydrogen", 26: "Iron", 50: "Tin", 74: "Tungsten", 92: "Uranium", 113: "Nihonium"}
    for number, name in spot.items():
        assert ELEMENTS[number - 1] == name


INT_IDS = [ins.paper_id for ins in INSTRUCTIONS if ins.in_type == "int"]
STR_IDS = [ins.paper_id for ins in INSTRUCTIONS if ins.in_type == "str"]


@pytest.mark.parametrize("paper_id", INT_IDS)
def test_int_domain(paper_id: int) -> None:
    ins = by_id(paper_id)
    bound = 2**32 if paper_id == 2 else INT_LIMIT
    assert ins.int_bound == bound
    for good in (0, 1, -1, bound - 1, -(bound - 1)):
        assert ins.accepts(good)
        ins(good)
    for bad in (bound, -bound, True, 1.0, "1", None):
        assert not ins.accepts(bad)
        with pytest.raises(ValueError, match=ins.name):
            ins(bad)


@pytest.mark.parametrize("paper_id", STR_IDS)
def test_str_domain(paper_id: int) -> None:
    ins = by_id(paper_id)
    printable = "".join(chr(code) for code in range(32, 127))
    for good in ("", printable, "z" * MAX_STR_LENGTH):
        assert ins.accepts(good)
        ins(good)
    for bad in ("z" * (MAX_STR_LENGTH + 1), "tab\there", "line\n", "caf\u00e9", 7, None, b"ab"):
        assert not ins.accepts(bad)
        with pytest.raises(ValueError):
            ins(bad)


@pytest.mark.parametrize("paper_id", [ins.paper_id for ins in INSTRUCTIONS])
def test_output_type(paper_id: int) -> None:
    ins = by_id(paper_id)
    sample: object = 12345 if ins.in_type == "int" else "Hello, World 42!"
    out = ins(sample)
    assert type(out) is (int if ins.out_type == "int" else str)


@pytest.mark.parametrize(
    ("value", "length"),
    [(0, 1), (1, 1), (2, 2), (255, 8), (256, 9), (-5, 3), (2**31 - 1, 31), ("", 0), ("abc", 3)],
)
def test_value_length(value: int | str, length: int) -> None:
    assert value_length(value) == length


def test_instruction_is_frozen() -> None:
    ins = by_id(1)
    assert isinstance(ins, Instruction)
    with pytest.raises(AttributeError):
        ins.name = "other"  # type: ignore[misc]


def test_docs_table_lists_every_instruction() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for ins in INSTRUCTIONS:
        assert re.search(rf"^\| {ins.paper_id} \| `{ins.name}` \|", text, re.MULTILINE), ins.name


def test_primes_are_found_by_trial_division() -> None:
    # the helper of instruction 3 (next_prime); 0, 1 and negatives are not prime
    from adhere.suites.pacific._instructions import _is_prime

    assert [n for n in range(-3, 50) if _is_prime(n)] == [
        2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47
    ]  # fmt: skip
