"""GuideBench answer normalization at its edges: what is read, what is refused and why."""

import dataclasses
from decimal import Decimal

import pytest

from adhere.suites.guidebench import normalize
from adhere.suites.guidebench._normalize import Normalized, canonical_number

OPTIONS = ("A", "B", "C", "D")


def norm(kind, raw, options=OPTIONS) -> tuple[str | None, tuple[str, ...], str]:
    found = normalize(kind, raw, options)
    return found.value, found.steps, found.error


@pytest.mark.parametrize(
    ("value", "text"),
    [("695.0", "695"), ("497.50", "497.5"), ("1E+3", "1000"), ("-0.0", "0"), ("0", "0"),
     ("0.000", "0"), ("12.345", "12.345"), ("-3.10", "-3.1")],
)  # fmt: skip
def test_canonical_numbers_have_no_exponent_trailing_zeros_or_point(value, text) -> None:
    assert canonical_number(Decimal(value)) == text


@pytest.mark.parametrize("raw", [True, None, ["A"], {"a": 1}])
def test_values_that_are_no_label_are_refused_by_type(raw) -> None:
    for kind in ("numeric", "binary", "relevance", "option"):
        assert norm(kind, raw) == (None, (), f"answer is {type(raw).__name__}, not a label")


def test_full_width_letters_and_digits_are_read_edge_to_edge() -> None:
    assert norm("numeric", "０９") == ("9", ("full-width characters", "numeric format"), "")
    assert norm("option", "Ａ") == ("A", ("full-width characters",), "")
    assert norm("option", "Ｄ") == ("D", ("full-width characters",), "")
    assert norm("option", "ａ") == ("A", ("full-width characters", "case"), "")
    assert norm("option", "Ｚ", ("Z",)) == ("Z", ("full-width characters",), "")
    assert norm("option", "ｚ", ("Z",)) == ("Z", ("full-width characters", "case"), "")
    # just outside the full-width ranges: "／" and "＠" stay as they are
    assert norm("numeric", "１／２")[0] is None


def test_quotes_and_trailing_stops_are_peeled_layer_by_layer() -> None:
    assert norm("option", "“「B」”。") == ("B", ("whitespace/quotes",), "")
    assert norm("numeric", "**170**!") == ("170", ("whitespace/quotes",), "")
    assert norm("numeric", "170！") == ("170", ("whitespace/quotes",), "")
    assert norm("numeric", "170") == ("170", (), "")


def test_numbers_from_json_and_text() -> None:
    assert norm("numeric", 170) == ("170", ("number→string",), "")
    assert norm("numeric", 2.5) == ("2.5", ("number→string",), "")
    assert norm("numeric", 1e21) == (
        "1000000000000000000000",
        ("number→string", "numeric format"),
        "",
    )
    assert norm("numeric", "+170") == ("170", ("numeric format",), "")
    assert norm("numeric", "RMB 1,000") == ("1000", ("unit", "numeric format"), "")
    assert norm("numeric", "12块钱") == ("12", ("unit",), "")


def test_what_is_not_a_number_says_so_shortened() -> None:
    long = "about " + "9" * 60
    value, steps, error = norm("numeric", long)
    assert value is None and error == f"not a number: {long[:40]!r}"
    assert norm("numeric", "1,00") == (None, (), "not a number: '1,00'")
    assert norm("numeric", "") == (None, (), "not a number: ''")
    # JSON's NaN and Infinity are floats, but no answer
    assert norm("numeric", float("nan")) == (None, ("number→string",), "not a number: nan")
    assert norm("numeric", float("-inf")) == (None, ("number→string",), "not a number: -inf")


def test_binary_answers() -> None:
    assert norm("binary", 1) == ("1", (), "")
    assert norm("binary", 0.0) == ("0", ("numeric format",), "")
    assert norm("binary", 0.5) == (None, (), "0.5 is not 0 or 1")
    assert norm("binary", 2) == (None, (), "2 is not 0 or 1")
    assert norm("binary", " 0 ") == ("0", ("whitespace/quotes", "string→int"), "")
    assert norm("binary", "0.0") == ("0", ("string→int", "numeric format"), "")
    for name, value in (("是同品", "1"), ("非同品", "0"), ("不同品", "0"), ("不是同品", "0")):
        assert norm("binary", name) == (value, ("label name only",), "")
    assert norm("binary", "yes") == (None, (), "not 0 or 1: 'yes'")


def test_relevance_answers() -> None:
    assert norm("relevance", 0) == ("0", ("number→string", "label digit only"), "")
    assert norm("relevance", 3) == (None, (), "3 is not a relevance grade")
    assert norm("relevance", 1.0) == (None, (), "1.0 is not a relevance grade")
    assert norm("relevance", "弱相关") == ("1", ("label name only",), "")
    assert norm("relevance", "1") == ("1", ("label digit only",), "")
    assert norm("relevance", "1（强相关）") == (None, (), "grade 1 does not match the name 强相关")
    assert norm("relevance", "2(强相关）") == ("2", ("half-width parentheses",), "")
    assert norm("relevance", "2（强相关)") == ("2", ("half-width parentheses",), "")
    assert norm("relevance", "2 (强相关)") == (
        "2",
        ("half-width parentheses", "whitespace/quotes"),
        "",
    )
    assert norm("relevance", " 2（强相关）") == ("2", ("whitespace/quotes",), "")
    assert norm("relevance", "很相关") == (None, (), "not a relevance label: '很相关'")


def test_option_answers() -> None:
    assert norm("option", 1) == (None, (), "1 is not an option letter")
    assert norm("option", "E") == (None, (), "E is not one of the options ('A', 'B', 'C', 'D')")
    assert norm("option", "A B") == (None, (), "not an option letter: 'A B'")  # text needs a stop
    assert norm("option", "!!") == (None, ("whitespace/quotes",), "not an option letter: '!!'")
    assert norm("option", "A. 遵循规定") == ("A", ("option text",), "")
    assert norm("option", "a. 遵循规定") == ("A", ("case", "option text"), "")
    assert norm("option", "(A)：遵循规定") == ("A", ("option text", "option decoration"), "")
    assert norm("option", "(A) 遵循规定")[0] is None  # text after a letter needs a stop
    assert norm("option", "答案B") == ("B", ("option decoration",), "")
    assert norm("option", "option c") == ("C", ("case", "option decoration"), "")
    assert norm("option", "【c】") == ("C", ("case", "option decoration"), "")
    assert norm("option", "b") == ("B", ("case",), "")


def test_a_normalization_is_a_value() -> None:
    found = normalize("option", "A", OPTIONS)
    assert found == Normalized("A")
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.value = "B"  # type: ignore[misc]


def test_every_refusal_shows_the_first_forty_characters() -> None:
    long = "z" * 50
    assert norm("binary", long)[2] == f"not 0 or 1: {long[:40]!r}"
    assert norm("relevance", long)[2] == f"not a relevance label: {long[:40]!r}"
    assert norm("option", "(" + long)[2] == f"not an option letter: {('(' + long)[:40]!r}"
    assert norm("option", "A " + long)[2] == f"not an option letter: {('A ' + long)[:40]!r}"


def test_one_full_width_digit_is_read_as_such() -> None:
    assert norm("numeric", "９") == ("9", ("full-width characters",), "")
    assert norm("numeric", "０") == ("0", ("full-width characters",), "")


def test_a_leading_quote_alone_is_peeled_too() -> None:
    assert norm("option", "“B") == ("B", ("whitespace/quotes",), "")


def test_a_unit_removed_is_a_step_even_when_no_number_is_left() -> None:
    assert norm("numeric", "1¥é") == (None, ("unit",), "not a number: '1¥é'")


def test_option_letters_across_lines_and_in_any_case_of_prefix() -> None:
    assert norm("option", "Option B") == ("B", ("option decoration",), "")
    assert norm("option", "A. 遵循\n规定") == ("A", ("option text",), "")


def test_a_letter_with_a_full_stop_before_its_text_is_no_decoration() -> None:
    assert norm("option", "A. xy") == ("A", ("option text",), "")
    assert norm("option", "A: xy") == ("A", ("option text", "option decoration"), "")
