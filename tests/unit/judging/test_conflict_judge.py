"""The conflict-attribution judge: prompt, strict reply parsing, re-asks, cache, tally."""

import json

import pytest

from adhere.core import ChatMessage, Trajectory, Verdict
from adhere.judging import (
    CONFLICT_CHECK_ID,
    ConflictQuestion,
    ConflictReplyError,
    ConflictSide,
    JudgeCall,
    MemoryVerdictCache,
    judge_conflict,
    parse_conflict_reply,
    read_conflict_question,
    render_conflict_user,
)
from adhere.metrics import ConflictRun, attributed, side_tally

QUESTION = ConflictQuestion(
    kind="SP vs UserQuery",
    scenario="language",
    a=ConflictSide("SP", "Always reply in English.", "The answer is in English."),
    b=ConflictSide("UserQuery", "Reply in French.", "The answer is in French."),
)


def trajectory(answer: str = "It sums the cart.") -> Trajectory:
    return Trajectory(
        system="Always reply in English.",
        messages=[
            ChatMessage(role="user", content="Explain total(). Reply in French."),
            ChatMessage(role="assistant", content=answer),
        ],
    )


def test_prompt_carries_transcript_and_both_sides_and_reads_back():
    user = render_conflict_user("THE TRANSCRIPT", QUESTION)
    assert "THE TRANSCRIPT" in user and "Reply in French." in user
    assert read_conflict_question(user) == QUESTION
    with pytest.raises(ValueError, match="no '===== BEGIN CONFLICT"):
        read_conflict_question("no conflict here")


@pytest.mark.parametrize(
    ("reply", "followed"),
    [
        ('{"followed": "A", "reasoning": "English."}', "A"),
        ('{"followed": "b", "reasoning": "French."}', "B"),
        ('Sure.\n```json\n{"followed": "both", "reasoning": ""}\n```', "both"),
        ('{"followed": "Neither"}', "neither"),
        ('  {"followed": "unclear", "reasoning": "x"}  ', "unclear"),
    ],
)
def test_usable_replies(reply, followed):
    assert parse_conflict_reply(reply).followed == followed


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("", "empty"),
        ("The agent followed A.", "prose"),
        ('{"followed": "A", "reasoning": "cut', "cut off"),
        ('{"followed": "A"} and more', "text after"),
        ('{"side": "A"}', '{"followed"'),
        ('{"followed": "SP"}', "expected one of"),
        ('{"followed": 1}', "not a string"),
        ('{"followed": "A", "reasoning": 3}', "reasoning"),
        ('{"followed": "A", "confidence": 0.9}', "unexpected field"),
        ('["A"]', '{"followed"'),
    ],
)
def test_unusable_replies_say_why(reply, message):
    with pytest.raises(ConflictReplyError, match=message):
        parse_conflict_reply(reply)


class Scripted:
    """An ``ask`` answering from a list of replies (an exception is raised)."""

    def __init__(self, *replies):
        self.replies = list(replies)
        self.calls: list[JudgeCall] = []

    async def __call__(self, call: JudgeCall) -> str:
        self.calls.append(call)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply


async def test_reasks_after_unusable_replies_and_failed_calls():
    ask = Scripted("prose", TimeoutError("slow"), '{"followed": "B", "reasoning": "French."}')
    verdict = await judge_conflict(ask, QUESTION, trajectory(), judge_name="j", model="m")
    assert verdict.check_id == CONFLICT_CHECK_ID and verdict.result == "n/a"
    assert verdict.details["followed"] == "B" and verdict.details["source"] == "UserQuery"
    assert verdict.details["attempts"] == 3 and verdict.decided_by == "judge:j"
    assert "previous reply could not be used" in ask.calls[1].user
    assert len({c.id for c in ask.calls}) == 3
    assert attributed(verdict) == "second"


async def test_no_usable_answer_is_an_error_never_a_side_and_not_cached():
    cache = MemoryVerdictCache()
    ask = Scripted('{"followed": "SP"}', "prose", '{"followed": ')
    verdict = await judge_conflict(
        ask, QUESTION, trajectory(), judge_name="j", model="m", cache=cache, max_attempts=3
    )
    assert verdict.result == "error" and attributed(verdict) == "undecided"
    assert len(verdict.details["problems"]) == 3 and len(cache) == 0


async def test_cache_hit_makes_no_call_and_is_restamped():
    cache = MemoryVerdictCache()
    first = Scripted('{"followed": "A", "reasoning": "English."}')
    await judge_conflict(first, QUESTION, trajectory(), judge_name="x", model="m", cache=cache)
    again = Scripted()
    hit = await judge_conflict(
        again, QUESTION, trajectory(), judge_name="y", model="m", cache=cache
    )
    assert not again.calls and hit.details["cached"] and hit.decided_by == "judge:y"
    other = Scripted('{"followed": "B"}')
    changed = await judge_conflict(
        other, QUESTION, trajectory("Il additionne."), judge_name="y", model="m", cache=cache
    )
    assert len(other.calls) == 1 and changed.details["followed"] == "B"


def attribution(answer: str | None) -> Verdict:
    if answer is None:
        return Verdict(check_id=CONFLICT_CHECK_ID, result="error", decided_by="judge:j")
    return Verdict(
        check_id=CONFLICT_CHECK_ID, result="n/a", decided_by="judge:j", details={"followed": answer}
    )


CONFLICT = {
    "scenario": "language",
    "type": "SP vs UserQuery",
    "sides": [{"source": "SP", "check": "sp"}, {"source": "UserQuery", "check": "uq"}],
}


def test_tally_counts_both_neither_unclear_errors_and_failed_trials_as_undecided():
    answers = [
        ("A", "A", "ok"),
        ("A", "B", "ok"),
        ("B", "both", "ok"),
        ("neither", None, "ok"),
        ("unclear", "A", "ok"),
        ("A", "A", "error"),  # a trial that failed: undecided for every judge
    ]
    runs = [
        ConflictRun(
            {"model": "m"}, status, CONFLICT, [], {"j1": attribution(a), "j2": attribution(b)}
        )
        for a, b, status in answers
    ]
    runs.append(ConflictRun({"model": "m"}, "ok", CONFLICT, [], {"j1": attribution("B")}))
    tally = side_tally(runs, ["model"])[("m", "SP vs UserQuery")]
    # j1: A, A, B, neither, unclear, (error trial), B → first 2, second 2, undecided 3
    assert (tally["j1"].first, tally["j1"].second, tally["j1"].undecided) == (2, 2, 3)
    # j2: A, B, both, error, A, (error trial), missing → first 2, second 1, undecided 4
    assert (tally["j2"].first, tally["j2"].second, tally["j2"].undecided) == (2, 1, 4)
    assert tally["j2"].share("first") == pytest.approx(2 / 3)
    assert tally["j1"].runs == 7


def test_conflict_block_is_json_the_policy_can_read():
    user = render_conflict_user("T", QUESTION)
    block = user.split("===== BEGIN CONFLICT =====\n", 1)[1].split("\n===== END CONFLICT", 1)[0]
    assert json.loads(block)["A"]["source"] == "SP"
