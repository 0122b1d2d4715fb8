"""Strict parsing of checklist-generation replies, and re-asking until one is usable."""

import json

import pytest

from adhere.core import ChatMessage, CheckKind, Source, SourceSpan, Trajectory
from adhere.errors import ModelReplyError
from adhere.judging import ReferenceRollout, parse_checkgen_reply, propose_checks
from adhere.judging._checkgen_prompt import CHECKGEN_SYSTEM

GOOD = {
    "checks": [
        {"category": "SP", "description": "Check whether no emoji.", "check_type": "compliance"},
        {
            "category": "CLAUDE.md",
            "description": " Check whether tests run. ",
            "check_type": "Testing",
        },
    ]
}


def test_a_bare_object_and_a_fenced_block_are_accepted():
    for text in (json.dumps(GOOD), f"Here you go.\n```json\n{json.dumps(GOOD)}\n```\n"):
        parsed = parse_checkgen_reply(text)
        assert parsed.ok, parsed.problems
        assert [(c.category, c.description, c.check_type) for c in parsed.checks] == [
            ("SP", "Check whether no emoji.", CheckKind.COMPLIANCE),
            ("Agents.md", "Check whether tests run.", CheckKind.TESTING),
        ]


def test_extra_keys_are_ignored():
    data = {"checks": [{**GOOD["checks"][0], "rationale": "the SP says so"}], "notes": "x"}
    assert parse_checkgen_reply(json.dumps(data)).ok


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("", "empty"),
        ("I think the agent should not use emoji.", "prose"),
        ("Sure: " + json.dumps(GOOD), "preceded by prose"),
        (json.dumps(GOOD)[:40], "stops before it is complete"),
        (json.dumps(GOOD) + " and more", "text after the JSON"),
        ("```json\n{}\n```\n```json\n{}\n```", "2 fenced blocks"),
        (json.dumps({"verdicts": []}), '{"checks": [...]}'),
        (json.dumps({"checks": []}), "empty"),
        (json.dumps({"checks": ["x"]}), "entry 0: not an object"),
        (json.dumps({"checks": [{"category": "SP", "description": "d"}]}), "missing 'check_type'"),
        (
            json.dumps(
                {"checks": [{"category": "Style", "description": "d", "check_type": "compliance"}]}
            ),
            "unknown category 'Style'",
        ),
        (
            json.dumps(
                {"checks": [{"category": "SP", "description": "  ", "check_type": "compliance"}]}
            ),
            "description is not a non-empty string",
        ),
        (
            json.dumps({"checks": [{"category": "SP", "description": "d", "check_type": "style"}]}),
            "check_type 'style' is not one of compliance",
        ),
        (
            json.dumps({"checks": [{"category": 3, "description": "d", "check_type": "testing"}]}),
            "category is not a string",
        ),
    ],
)
def test_unusable_replies_say_why(reply, problem):
    parsed = parse_checkgen_reply(reply)
    assert not parsed.ok and parsed.checks == []
    assert problem in parsed.summary()


def test_one_bad_entry_makes_the_whole_reply_unusable():
    data = {"checks": [GOOD["checks"][0], {**GOOD["checks"][1], "check_type": "vibes"}]}
    parsed = parse_checkgen_reply(json.dumps(data))
    assert parsed.checks == [] and parsed.problems == [
        "entry 1: check_type 'vibes' is not one of compliance, implementation, modification, "
        "understanding, testing, configuration"
    ]


TRAJ = Trajectory(
    system="Never use emoji.",
    messages=[
        ChatMessage(role="user", content="Explain restock()."),
        ChatMessage(role="assistant", content="It adds units."),
    ],
    sources=[
        SourceSpan(source=Source.SYSTEM_PROMPT, message_index=-1, start=0, end=16),
        SourceSpan(source=Source.USER_QUERY, message_index=0, start=0, end=18, label="turn 1"),
    ],
)
ROLLOUT = ReferenceRollout("run/m/reference/i/r0", TRAJ)


class Scripted:
    """An ``ask`` that plays replies (or raises) in order and keeps the calls."""

    def __init__(self, *replies):
        self.replies = list(replies)
        self.calls = []

    async def __call__(self, call):
        self.calls.append(call)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply


async def test_bad_replies_are_asked_again_with_a_note():
    ask = Scripted("Let me think.", RuntimeError("HTTP 503"), json.dumps(GOOD))
    proposals = await propose_checks(ask, ROLLOUT, model="m", max_attempts=3)
    assert proposals.rollout == ROLLOUT.label and len(proposals.checks) == 2
    assert [c.attempt for c in ask.calls] == [1, 2, 3]
    assert all(c.system == CHECKGEN_SYSTEM and c.judge == "checkgen" for c in ask.calls)
    assert "Note on your previous reply" not in ask.calls[0].user
    assert "attempt 2 of 3" in ask.calls[1].user and "the reply is prose" in ask.calls[1].user
    assert "RuntimeError: HTTP 503" in ask.calls[2].user
    assert len({c.id for c in ask.calls}) == 3


async def test_no_usable_reply_is_an_error_naming_the_rollout():
    ask = Scripted("no", json.dumps({"checks": []}))
    with pytest.raises(ModelReplyError) as caught:
        await propose_checks(ask, ROLLOUT, model="m", max_attempts=2)
    message = str(caught.value)
    assert "rollout run/m/reference/i/r0" in message and "after 2 attempts" in message
    assert "attempt 1: the reply is prose" in message
    assert "attempt 2: the checks list is empty" in message


async def test_at_least_one_attempt():
    with pytest.raises(ValueError, match="max_attempts"):
        await propose_checks(Scripted(), ROLLOUT, model="m", max_attempts=0)
