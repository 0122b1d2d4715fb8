import dataclasses
import json

import pytest

from adhere.judging._judge_reply import ItemAnswer, ParsedReply, ReplyProblem, parse_reply

ASKED = {"a": False, "b": True, "c": False}


def entry(check_id, result="pass", **extra):
    return {"check_id": check_id, "result": result, "reasoning": "ok", **extra}


def reply(*entries):
    return json.dumps({"verdicts": list(entries)})


def kinds(parsed):
    return sorted((p.kind, p.check_id) for p in parsed.problems)


def test_bare_object_with_all_answers():
    parsed = parse_reply(
        "  " + reply(entry("a", evidence=1), entry("b", "n/a"), entry("c", "FAIL")) + "\n",
        ASKED,
        assistant_turns=2,
    )
    assert parsed.answers == {
        "a": ItemAnswer("pass", "ok", 1),
        "b": ItemAnswer("n/a", "ok", None),
        "c": ItemAnswer("fail", "ok", None),
    }
    assert parsed.problems == []


def test_one_fenced_block_with_prose_around_is_accepted():
    text = f"Here you go:\n```json\n{reply(entry('a'), entry('b'), entry('c'))}\n```\nBye."
    assert set(parse_reply(text, ASKED).answers) == {"a", "b", "c"}
    plain_fence = f"```\n{reply(entry('a'), entry('b'), entry('c'))}\n```"
    assert set(parse_reply(plain_fence, ASKED).answers) == {"a", "b", "c"}


@pytest.mark.parametrize(
    ("text", "kind", "words"),
    [
        ("", "empty", "empty"),
        ("The agent did fine on everything.", "no_json", "prose"),
        ('Sure! {"verdicts": []}', "no_json", "preceded by prose"),
        ('{"verdicts": [{"check_id": "a", "result": "pa', "truncated", "cut off"),
        ('{"verdicts": [{"check_id": "a", "result": "pass"}, ', "truncated", "cut off"),
        ('```json\n{"verdicts": [', "truncated", "never closed"),
        ("```json\n{}\n```\n```json\n{}\n```", "not_json", "2 fenced blocks"),
        ('{"verdicts": []} and more', "not_json", "after the JSON"),
        ('{"verdicts": [nope]}', "not_json", "invalid JSON"),
        ('{"results": []}', "shape", '{"verdicts": [...]}'),
        ("[1, 2]", "shape", '{"verdicts": [...]}'),
    ],
)
def test_unusable_replies_are_explained(text, kind, words):
    parsed = parse_reply(text, ASKED)
    assert parsed.answers == {}
    assert [p.kind for p in parsed.problems] == [kind]
    assert words in parsed.problems[0].message
    assert parsed.truncated == (kind == "truncated")
    assert set(parsed.reasons()) == {""}


def test_unknown_ids_are_reported_and_ignored():
    parsed = parse_reply(reply(entry("a"), entry("b"), entry("c"), entry("zzz")), ASKED)
    assert set(parsed.answers) == {"a", "b", "c"}
    assert kinds(parsed) == [("unknown_id", "zzz")]
    assert parsed.reasons() == {}


def test_duplicate_ids_are_a_conflict_and_count_as_missing():
    parsed = parse_reply(reply(entry("a"), entry("a", "fail"), entry("b"), entry("c")), ASKED)
    assert set(parsed.answers) == {"b", "c"}
    assert kinds(parsed) == [("duplicate_id", "a")]
    assert "2 times" in parsed.reasons()["a"]
    same_twice = parse_reply(reply(entry("a"), entry("a"), entry("b"), entry("c")), ASKED)
    assert "a" not in same_twice.answers


def test_bad_result_and_na_on_unconditional_items_are_invalid():
    parsed = parse_reply(reply(entry("a", "maybe"), entry("b", "n/a"), entry("c", "n/a")), ASKED)
    assert set(parsed.answers) == {"b"}
    assert kinds(parsed) == [("bad_result", "a"), ("na_not_allowed", "c")]
    assert "'maybe' is not one of pass, fail, n/a" in parsed.reasons()["a"]
    assert "only allowed for items with a condition" in parsed.reasons()["c"]


def test_missing_ids_and_bad_entries():
    parsed = parse_reply(reply(entry("a"), "junk", {"result": "pass"}), ASKED)
    assert set(parsed.answers) == {"a"}
    assert kinds(parsed) == [
        ("bad_entry", None),
        ("bad_entry", None),
        ("missing", "b"),
        ("missing", "c"),
    ]
    assert parsed.reasons() == {"b": "not answered", "c": "not answered"}
    bad_reasoning = parse_reply(reply(entry("a", reasoning=3), entry("b"), entry("c")), ASKED)
    assert kinds(bad_reasoning) == [("bad_entry", "a")]


@pytest.mark.parametrize("evidence", [-1, 5, 9, "A1", 1.5, True])
def test_bad_evidence_is_dropped_but_the_answer_kept(evidence):
    parsed = parse_reply(
        reply(entry("a", evidence=evidence), entry("b"), entry("c")), ASKED, assistant_turns=5
    )
    assert parsed.answers["a"] == ItemAnswer("pass", "ok", None)
    assert kinds(parsed) == [("bad_evidence", "a")]
    assert parsed.reasons() == {}


def test_missing_reasoning_is_empty():
    text = json.dumps({"verdicts": [{"check_id": "a", "result": "pass", "reasoning": None}]})
    assert parse_reply(text, {"a": False}).answers["a"] == ItemAnswer("pass", "", None)


def test_a_duplicated_id_does_not_hide_the_reply_s_other_problems():
    """Only the duplicated id's own problems give way to the duplicate; the rest stay."""
    text = reply(entry("a", "maybe"), entry("a"), entry("b", "wrong"), entry("zzz"))
    parsed = parse_reply(text, ASKED)
    assert parsed.answers == {}
    assert kinds(parsed) == [
        ("bad_result", "b"),
        ("duplicate_id", "a"),
        ("missing", "c"),
        ("unknown_id", "zzz"),
    ]
    assert set(parsed.reasons()) == {"a", "b", "c"}
    # whatever the order of the ids
    later = parse_reply(reply(entry("a", "wrong"), entry("c"), entry("c", "fail")), ASKED)
    assert kinds(later) == [("bad_result", "a"), ("duplicate_id", "c"), ("missing", "b")]


def test_entries_after_an_unknown_id_are_still_read():
    parsed = parse_reply(reply(entry("zzz"), entry("a"), entry("b"), entry("c")), ASKED)
    assert set(parsed.answers) == {"a", "b", "c"} and kinds(parsed) == [("unknown_id", "zzz")]


def test_reasons_skip_ignored_problems_and_keep_the_first_reason_per_id():
    parsed = ParsedReply(
        problems=[
            ReplyProblem("unknown_id", "not asked", "zzz"),
            ReplyProblem("bad_evidence", "dropped", "a"),
            ReplyProblem("missing", "not answered", "b"),
            ReplyProblem("bad_entry", "entry 3 is not an object", None),
            ReplyProblem("bad_result", "first", "c"),
            ReplyProblem("missing", "second", "c"),
        ]
    )
    assert parsed.reasons() == {"b": "not answered", "c": "first"}
    assert not parsed.truncated  # no problem of kind "truncated", whatever the others


@pytest.mark.parametrize(
    ("tail", "kind"),
    [
        ("", "truncated"),  # nothing left to read
        ("-", "truncated"),  # a number cut short
        ("1.", "truncated"),
        ("1e", "truncated"),
        ("1e-", "truncated"),
        ("t", "truncated"),  # a literal cut short
        ("tr", "truncated"),
        ("nul", "truncated"),
        ('"x', "truncated"),  # a string never closed
        ("1}]}.", "not_json"),  # one stray character after a complete object
        ("1}]}}", "not_json"),
        ("1}]} ok", "not_json"),
        ("1]]}", "not_json"),  # complete, but the brackets do not match
        ("yes}]}", "not_json"),
        ("1 2}]}", "not_json"),
    ],
)
def test_a_reply_cut_off_is_told_from_one_that_is_wrong(tail, kind):
    """A cut-off reply is retried in smaller batches; a wrong one is re-asked as is."""
    text = '{"verdicts": [{"check_id": "a", "result": "pass", "evidence": ' + tail
    parsed = parse_reply(text, ASKED)
    assert [p.kind for p in parsed.problems] == [kind]
    assert parsed.truncated == (kind == "truncated")


def test_parse_results_are_values():
    parsed = parse_reply(reply(entry("a"), entry("b"), entry("c")), ASKED)
    for value, attribute in ((parsed, "answers"), (parsed.answers["a"], "result")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, attribute, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ReplyProblem("missing", "x").kind = "empty"  # type: ignore[misc]
