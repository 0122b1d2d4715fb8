"""The scripted ``checkgen`` policy (a test double) answering the generation prompt directly."""

import pytest

from adhere.core import SYSTEM_INDEX, ChatMessage, Source, SourceSpan, Trajectory
from adhere.errors import UnknownConversation
from adhere.judging import ReferenceRollout, generate_checklist, parse_checkgen_reply
from adhere.judging._checkgen_merge import normalize
from adhere.judging._checkgen_prompt import (
    CHECKGEN_SYSTEM,
    InstructionBlock,
    instruction_blocks,
    render_checkgen_user,
    render_turns,
)
from adhere.testing import ModelStringError, PolicyContext, default_registry, parse_model_string
from adhere.testing._checkgen_policy import sentences
from adhere.wire import Conversation

SYSTEM = (
    "You are a helpful agent. Never use emoji. Always answer in English.\n"
    "- Keep answers short; the weather is nice.\n"
    "Only edit files under src/. You must run pytest after each change."
)
QUERY = "Rename restock to replenish. Then explain what sell() does."


def trajectory(answer: str) -> Trajectory:
    return Trajectory(
        system=SYSTEM,
        messages=[
            ChatMessage(role="user", content=QUERY),
            ChatMessage(role="assistant", content=answer),
        ],
        sources=[
            SourceSpan(
                source=Source.SYSTEM_PROMPT, message_index=SYSTEM_INDEX, start=0, end=len(SYSTEM)
            ),
            SourceSpan(source=Source.USER_QUERY, message_index=0, start=0, end=len(QUERY)),
        ],
    )


def policy(model):
    return default_registry().create(parse_model_string(model), PolicyContext())


def respond(model, traj, note=None):
    user = render_checkgen_user(instruction_blocks(traj), render_turns(traj), note=note)
    conversation = Conversation(
        model=model,
        policy="checkgen",
        options={},
        system=CHECKGEN_SYSTEM,
        messages=(ChatMessage(role="user", content=user),),
    )
    return policy(model).respond(conversation).text


def test_sentences_with_instruction_words_become_checks():
    block = InstructionBlock("SP", "system prompt", SYSTEM)
    assert sentences(block) == [
        "Never use emoji.",
        "Always answer in English.",
        "Keep answers short;",
        "Only edit files under src/.",
        "You must run pytest after each change.",
    ]
    query = InstructionBlock("User query", "message 0", QUERY)
    assert sentences(query) == ["Rename restock to replenish.", "Then explain what sell() does."]


def test_without_variation_every_sentence_gives_one_valid_check():
    parsed = parse_checkgen_reply(respond("checkgen:drop=0,vary=0", trajectory("Done.")))
    assert parsed.ok, parsed.problems
    found = {(c.category, c.description, c.check_type.value) for c in parsed.checks}
    assert found == {
        ("SP", 'Check whether the assistant complied with: "Never use emoji."', "compliance"),
        (
            "SP",
            'Check whether the assistant complied with: "Always answer in English."',
            "compliance",
        ),
        ("SP", 'Check whether the assistant complied with: "Keep answers short;"', "compliance"),
        (
            "SP",
            'Check whether the assistant complied with: "Only edit files under src/."',
            "modification",
        ),
        (
            "SP",
            'Check whether the assistant complied with: "You must run pytest after each change."',
            "testing",
        ),
        (
            "User query",
            'Check whether the assistant complied with: "Rename restock to replenish."',
            "modification",
        ),
        (
            "User query",
            'Check whether the assistant complied with: "Then explain what sell() does."',
            "understanding",
        ),
    }


def test_rollouts_give_overlapping_but_different_lists_deterministically():
    replies = [respond("checkgen:seed=3", trajectory(f"Answer {n}.")) for n in range(6)]
    assert replies[0] == respond("checkgen:seed=3", trajectory("Answer 0."))
    parsed = [parse_checkgen_reply(r) for r in replies]
    assert all(p.ok for p in parsed)
    texts = [{c.description for c in p.checks} for p in parsed]
    assert len({frozenset(t) for t in texts}) == 6  # wording, order or selection differ
    same = [{normalize(c.description) for c in p.checks} for p in parsed]
    assert all(same[0] & other for other in same[1:])  # but the checks overlap
    assert all(len(s) <= 7 for s in same) and len(set().union(*same)) == 7


async def test_merging_the_policys_lists_recovers_every_instruction_once():
    model = "checkgen:seed=5"
    policy_ = policy(model)

    async def ask(call):
        conversation = Conversation(
            model=model,
            policy="checkgen",
            options={},
            system=call.system,
            messages=(ChatMessage(role="user", content=call.user),),
        )
        return policy_.respond(conversation).text

    rollouts = [ReferenceRollout(f"run/m/s/i/r{n}", trajectory(f"Answer {n}.")) for n in range(5)]
    checklist = await generate_checklist(ask, "i", rollouts, model=model)
    assert len(checklist.checks) == 7  # 5 SP sentences + 2 user-query sentences
    assert [c.check_id for c in checklist.checks][:2] == ["SP-01", "SP-02"]
    assert all(c.description.startswith("Check whether the ") for c in checklist.checks)
    assert any(c.variants > 1 for c in checklist.checks)  # paraphrases were merged
    assert any(c.support < 5 for c in checklist.checks)  # some were dropped by some rollouts
    assert max(c.support for c in checklist.checks) == 5


def test_garbled_replies_change_with_the_request():
    traj = trajectory("Done.")
    results = [
        parse_checkgen_reply(respond("checkgen:garble=0.5", traj, note=f"attempt {n}")).ok
        for n in range(20)
    ]
    assert True in results and False in results
    assert not parse_checkgen_reply(respond("checkgen:garble=1", traj)).ok


def test_other_prompts_and_bad_options_are_refused():
    conversation = Conversation(
        model="checkgen",
        policy="checkgen",
        options={},
        system="",
        messages=(ChatMessage(role="user", content="Hello"),),
    )
    with pytest.raises(UnknownConversation, match="checklist-generation prompts only"):
        policy("checkgen").respond(conversation)
    with pytest.raises(ModelStringError):
        policy("checkgen:drop=2")
    with pytest.raises(ModelStringError):
        policy("checkgen:colour=red")


def merge_respond(model, candidates, rollouts=2):
    from adhere.judging import render_merge_user
    from adhere.judging._checkgen_merge_prompt import MERGE_SYSTEM

    conversation = Conversation(
        model=model,
        policy="checkgen",
        options={},
        system=MERGE_SYSTEM,
        messages=(ChatMessage(role="user", content=render_merge_user("i", candidates, rollouts)),),
    )
    return policy(model).respond(conversation).text


def test_as_the_merging_model_it_groups_by_instruction_sentence_and_keeps_every_key():
    from adhere.core import CheckKind
    from adhere.judging import ProposedCheck, RolloutProposals, merge_candidates, parse_merge_reply

    c = CheckKind.COMPLIANCE
    proposals = [
        RolloutProposals(
            "r0",
            (
                ProposedCheck(
                    "SP", 'Check whether the assistant complied with: "Never use emoji."', c
                ),
                ProposedCheck("SP", "Check whether the answer is short.", c),
            ),
        ),
        RolloutProposals(
            "r1",
            (
                ProposedCheck("SP", 'Check if the agent has complied with: "Never use emoji."', c),
                ProposedCheck(
                    "SP",
                    'Check whether the assistant complied with: "Always answer in English."',
                    c,
                ),
            ),
        ),
    ]
    candidates = merge_candidates(proposals)
    parsed = parse_merge_reply(merge_respond("checkgen", candidates), candidates)
    assert parsed.ok, parsed.problems
    by_description = {d.description: d.merges for d in parsed.checks}
    emoji = [c.key for c in candidates if "emoji" in c.description]
    assert len(emoji) == 2
    assert by_description == {
        'Check whether the assistant complied with: "Never use emoji."': tuple(emoji),
        'Check whether the assistant complied with: "Always answer in English."': tuple(
            c.key for c in candidates if "English" in c.description
        ),
        "Check whether the answer is short.": tuple(
            c.key for c in candidates if "short" in c.description
        ),
    }
    # mergefault=1: every merge reply is unusable (cut off, or a group left out).
    faulty = parse_merge_reply(merge_respond("checkgen:mergefault=1", candidates), candidates)
    assert not faulty.ok
    assert "cut off" in faulty.summary() or "in no entry's 'merges'" in faulty.summary()
