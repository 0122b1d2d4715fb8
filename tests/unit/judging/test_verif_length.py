"""``length_limit`` at its edges: inclusive limits, what counts, what the verdict says."""

import pytest
from pydantic import ValidationError

from adhere.judging.verifiers._length import LengthLimitParams, count_words
from tests.unit.judging.test_verif_support import ctx, say, traj, verdict


def test_a_limit_is_required_and_none_may_be_negative() -> None:
    with pytest.raises(ValidationError, match="give at least one of"):
        LengthLimitParams()
    for field in ("max_words", "max_lines", "max_chars", "min_words"):
        with pytest.raises(ValidationError, match="limits cannot be negative"):
            LengthLimitParams(**{field: -1})
        assert getattr(LengthLimitParams(**{field: 0}), field) == 0  # zero is a limit
    defaults = LengthLimitParams(max_words=1)
    assert (defaults.scope, defaults.exclude_code, defaults.include_reasoning) == (
        "each",
        False,
        False,
    )


def test_limits_are_inclusive() -> None:
    context = ctx(traj(say("one two three")))  # 3 words, 1 line, 13 characters
    for unit, count in (("max_words", 3), ("max_lines", 1), ("max_chars", 13)):
        assert verdict("length_limit", context, **{unit: count}).result == "pass", unit
        assert verdict("length_limit", context, **{unit: count - 1}).result == "fail", unit
    assert verdict("length_limit", context, min_words=3).result == "pass"
    assert verdict("length_limit", context, min_words=4).result == "fail"


def test_what_a_word_a_line_and_a_character_are() -> None:
    assert count_words("snake_case and x_1") == 5  # underscores split words
    assert count_words("日本語のテキスト") == 8  # each kana and Han character is a word
    assert count_words("it's — don't") == 2
    blank_lines = "a\n\n   \nb\n"
    assert verdict("length_limit", ctx(traj(say(blank_lines))), max_lines=2).result == "pass"
    padded = "  abc  \n"
    assert verdict("length_limit", ctx(traj(say(padded))), max_chars=3).result == "pass"


def test_reasoning_counts_only_when_asked() -> None:
    context = ctx(traj(say("short", reasoning="a long chain of thought about it")))
    assert verdict("length_limit", context, max_words=1).result == "pass"
    assert verdict("length_limit", context, max_words=1, include_reasoning=True).result == "fail"


def test_a_reply_over_a_limit_is_named_with_its_count() -> None:
    context = ctx(traj(say("one"), say("one two three four")))
    outcome = verdict("length_limit", context, max_words=3)
    assert outcome.result == "fail" and outcome.evidence == 1
    assert outcome.reasoning == "message 1 has 4 words, more than the limit of 3"
    assert outcome.details["counts"] == {"words": 4, "lines": 1, "chars": 18}
    together = verdict("length_limit", context, max_words=4, scope="all")
    assert together.reasoning == "the replies together have 5 words, more than the limit of 4"
    assert together.evidence == 1  # the last reply stands for all of them


def test_a_reply_under_the_minimum_is_named_with_its_count() -> None:
    context = ctx(traj(say("one two three"), say("one")))
    outcome = verdict("length_limit", context, min_words=2)
    assert outcome.result == "fail" and outcome.evidence == 1
    assert outcome.reasoning == "message 1 has 1 words, fewer than the minimum of 2"
    assert outcome.details["counts"] == {"words": 1, "lines": 1, "chars": 3}
    together = verdict("length_limit", context, min_words=5, scope="all")
    assert together.reasoning == "the replies together have 4 words, fewer than the minimum of 5"


def test_a_pass_says_what_was_checked_against_what() -> None:
    one = ctx(traj(say("one two three")))
    outcome = verdict("length_limit", one, max_words=5, max_chars=20)
    assert outcome.result == "pass"
    assert outcome.reasoning == "1 reply within the limits (3 words ≤ 5, 13 chars ≤ 20)"
    assert outcome.details["longest"] == {"words": 3, "lines": 1, "chars": 13}
    two = ctx(traj(say("one two three"), say("a\nb")))
    outcome = verdict("length_limit", two, max_lines=2, min_words=2)
    assert outcome.reasoning == "2 replies within the limits (2 lines ≤ 2, 2 words ≥ 2)"
    assert outcome.details["longest"] == {"words": 3, "lines": 2, "chars": 13}


def test_all_replies_together_are_cited_at_the_last_one() -> None:
    context = ctx(traj(say("one"), say("two"), say("three four")))
    outcome = verdict("length_limit", context, max_words=3, scope="all")
    assert outcome.result == "fail" and outcome.evidence == 2


def test_a_reply_of_no_words_counts_zero() -> None:
    outcome = verdict("length_limit", ctx(traj(say("🎉 !"))), max_words=5)
    assert outcome.reasoning == "1 reply within the limits (0 words ≤ 5)"


def test_more_than_the_minimum_passes() -> None:
    outcome = verdict("length_limit", ctx(traj(say("one two three"))), min_words=2)
    assert outcome.result == "pass" and outcome.reasoning.endswith("(3 words ≥ 2)")


def test_long_replies_are_compared_by_their_counts() -> None:
    context = ctx(traj(say("w " * 400), say("w " * 300)))
    outcome = verdict("length_limit", context, min_words=350)
    assert (outcome.result, outcome.evidence) == ("fail", 1)
    assert outcome.reasoning == "message 1 has 300 words, fewer than the minimum of 350"
