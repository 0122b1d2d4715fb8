import pytest

from adhere.suites.pacific import classify, parse_reply
from adhere.suites.pacific._parse import clean_answer


def test_finds_tags_in_order_and_by_index() -> None:
    text = "work...\n[ANSWER][1] 25 [\\ANSWER]\nthen [ANSWER][2]abc[\\ANSWER] done"
    parsed = parse_reply(text)
    assert parsed.answers == {1: ["25"], 2: ["abc"]}


@pytest.mark.parametrize(
    "text",
    [
        "[ANSWER][1] 7 [/ANSWER]",  # forward slash closing tag
        "[answer][1] 7 [\\answer]",  # lower case
        "[ANSWER] [1] 7 [\\ANSWER]",  # space between the two brackets
        "[ANSWER][ 1 ]\n7\n[\\ANSWER]",  # multi-line answer
    ],
)
def test_tolerated_tag_variants(text: str) -> None:
    assert parse_reply(text).answers == {1: ["7"]}


@pytest.mark.parametrize(
    ("raw", "clean"),
    [('"abc"', "abc"), ("'abc'", "abc"), ("`abc`", "abc"), ('"abc', '"abc'), ("  x ", "x")],
)
def test_clean_answer(raw: str, clean: str) -> None:
    assert clean_answer(raw) == clean


def test_categories() -> None:
    parsed = parse_reply(
        "[ANSWER][1] 9 [\\ANSWER][ANSWER][2] 10 [\\ANSWER][ANSWER][2] 11 [\\ANSWER]"
        "[ANSWER][3] nine [\\ANSWER][ANSWER][4] 405 [\\ANSWER][ANSWER][5] HAL [\\ANSWER]"
        "[ANSWER][7] 1 [\\ANSWER]"
    )
    assert classify(parsed, 1, 9).category == "correct"
    assert classify(parsed, 1, 8).category == "wrong"
    assert classify(parsed, 2, 10).category == "duplicate"
    assert classify(parsed, 3, 9).category == "type_mismatch"
    assert classify(parsed, 4, "dDxXeE").category == "type_mismatch"
    assert classify(parsed, 4, "405").category == "correct"  # numeric-looking string expected
    assert classify(parsed, 5, "HAL").category == "correct"
    assert classify(parsed, 5, "hal").category == "wrong"  # strings compare exactly
    assert classify(parsed, 6, 1).category == "missing"
    assert parsed.extra({1, 2, 3, 4, 5, 6}) == [7]


@pytest.mark.parametrize("got", ["12.0", "1e3", "0x10", "1,000", ""])
def test_non_decimal_integers_are_type_mismatches(got: str) -> None:
    parsed = parse_reply(f"[ANSWER][1]{got}[\\ANSWER]")
    assert classify(parsed, 1, 12).category == "type_mismatch"


def test_signed_and_padded_integers() -> None:
    parsed = parse_reply("[ANSWER][1] +012 [\\ANSWER][ANSWER][2] -3 [\\ANSWER]")
    assert classify(parsed, 1, 12).category == "correct"
    assert classify(parsed, 2, -3).category == "correct"


def test_garbage_has_no_answers() -> None:
    parsed = parse_reply("I am not sure. [ANSWER] 3 [\\ANSWER] [ANSWER][x] 1 [\\ANSWER]")
    assert parsed.answers == {}
    assert classify(parsed, 1, 3).category == "missing"
