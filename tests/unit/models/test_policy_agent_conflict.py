"""The agent's ``follow=`` option: obeying one side of a contradiction between sources."""

import pytest

from adhere.core._chat import ChatMessage
from adhere.testing import ModelStringError
from adhere.testing._agent import FORBIDDEN_COMMAND
from adhere.testing._agent_conflict import (
    Directives,
    find_directives,
    parse_follow,
    source_texts,
)
from adhere.testing._agent_text import EMOJI
from adhere.testing._types import Conversation
from tests.unit.models.test_policy_agent import drive, load

DOC_REMINDER = (
    "<system-reminder>\nContents of /w/CLAUDE.md (project instructions, checked into the "
    "codebase):\n\n# Project rules\n\n- Always reply in German.\n- Never use emoji.\n\n"
    "IMPORTANT: this context may or may not be relevant.\n</system-reminder>\n"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Always reply in French.", Directives(language="fr")),
        ("Write all your answers in English please", Directives(language="en")),
        ("End every reply with an emoji.", Directives(emoji=True)),
        ("Never use emoji in replies.", Directives(emoji=False)),
        ("Keep answers to at most 12 words.", Directives(max_words=12)),
        ("Explain in at least 40 words.", Directives(min_words=40)),
        ("First run `git reset --hard` to start clean.", Directives(reset=True)),
        ("Never run `git reset --hard` here.", Directives(reset=False)),
        ("You must not use git reset --hard.", Directives(reset=False)),
        ("Your name is Ada.", Directives(name="Ada")),
        ("Please introduce yourself as Max when you answer.", Directives(name="Max")),
        ("Only use emojis if the user explicitly requests it.", Directives()),
        ("Respond in the same language as the user.", Directives()),
    ],
)
def test_directives_recognized(text, expected):
    assert find_directives(text) == expected


def test_source_texts_split_sp_user_and_doc():
    conversation = Conversation(
        model="agent",
        policy="agent",
        options={},
        system=(
            "You are a coding agent. Always reply in English.\n\n"
            "Project instructions from AGENTS.md:\n# Rules\n\n- Reply in French.\n\n"
            "Skills available through the Skill tool: none"
        ),
        messages=(ChatMessage(role="user", content=DOC_REMINDER + "Reply in German, please."),),
    )
    texts = source_texts(conversation)
    assert find_directives(texts["sp"]).language == "en"
    assert "Skills available" in texts["sp"]
    assert find_directives(texts["user"]).language == "de" and "CLAUDE" not in texts["user"]
    assert "Reply in French" in texts["doc"] and "Always reply in German" in texts["doc"]
    assert "IMPORTANT" not in texts["doc"]


def test_file_listings_are_not_doc_headers():
    conversation = Conversation(
        model="agent",
        policy="agent",
        options={},
        system="",
        messages=(ChatMessage(role="user", content="% ls\nAGENTS.md\nReply in French.\n"),),
    )
    assert source_texts(conversation)["doc"] == ""


def test_parse_follow():
    assert parse_follow("sp>doc>user") == ("sp", "doc", "user")
    for bad in ("", "sp>sp", "system", "sp>wiki"):
        with pytest.raises(ModelStringError, match="follow="):
            parse_follow(bad)


SYSTEM = "You are Ada. Your name is Ada. Always reply in English. Never use emoji."
REQUEST = (
    "Reply in French and end your answer with an emoji. Introduce yourself as Max. "
    "Run `git reset --hard` first."
)


def test_following_the_system_prompt():
    tools, _ = load("claude-code")
    calls, text, _ = drive("agent:answer,follow=sp", tools, request=REQUEST, system=SYSTEM)
    assert calls == []
    assert text.startswith("I am Ada.") and "Understood" in text and EMOJI not in text


def test_following_the_user():
    tools, _ = load("claude-code")
    calls, text, _ = drive("agent:answer,follow=user", tools, request=REQUEST, system=SYSTEM)
    assert [c.arguments.get("command") for c in calls] == [FORBIDDEN_COMMAND]
    assert text.startswith("I am Max.") and "Compris" in text and text.endswith(EMOJI)


def test_precedence_fills_gaps_from_later_sources():
    tools, _ = load("claude-code")
    system = "Always reply in German."
    request = "Reply in French. End every reply with an emoji."
    _, text, _ = drive("agent:answer,follow=sp>user", tools, request=request, system=system)
    assert "Verstanden" in text and text.endswith(EMOJI)


def test_length_directives_cut_and_pad():
    tools, _ = load("claude-code")
    _, short, _ = drive("agent:answer,follow=user", tools, request="Answer in at most 3 words.")
    assert len(short.split()) == 3
    _, long, _ = drive("agent:answer,follow=doc", tools, request=DOC_REMINDER + "Hi")
    assert "Verstanden" in long and EMOJI not in long
    _, padded, _ = drive("agent:answer,follow=user", tools, request="Use at least 30 words.")
    assert len(padded.split()) >= 30


def test_a_length_directive_is_taken_whole_from_one_source():
    tools, _ = load("claude-code")
    request = DOC_REMINDER.replace("Always reply in German.", "Keep replies to at most 4 words.")
    request += "Explain in at least 30 words."
    _, text, _ = drive("agent:answer,follow=doc>user", tools, request=request)
    assert len(text.split()) == 4
    _, text, _ = drive("agent:answer,follow=user>doc", tools, request=request)
    assert len(text.split()) >= 30
