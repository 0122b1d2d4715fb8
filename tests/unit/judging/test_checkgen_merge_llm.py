"""The LLM merge: candidates, the merge prompt, strict reply parsing, fallback."""

import json

import pytest

from adhere.core import CheckKind, Trajectory
from adhere.errors import ModelReplyError
from adhere.judging import (
    MERGE_PROMPT_VERSION,
    ProposedCheck,
    ReferenceRollout,
    RolloutProposals,
    generate_checklist,
    llm_merge,
    merge_candidates,
    merge_proposals,
    parse_merge_reply,
    read_merge_candidates,
    render_merge_user,
)
from adhere.judging._checkgen_merge_prompt import MERGE_SYSTEM

C, T = CheckKind.COMPLIANCE, CheckKind.TESTING
EMOJI = "Check whether the assistant never uses emoji."
EMOJI_2 = "Check if no emoji appear in the assistant's answers"
TESTS = "Check whether the assistant ran pytest after each change."
ENGLISH = "Check whether the assistant answers in English."

PROPOSALS = [
    RolloutProposals(
        "run/a/s/i/r0",
        (ProposedCheck("SP", EMOJI, C), ProposedCheck("Agents.md", TESTS, T)),
    ),
    RolloutProposals(
        "run/b/s/i/r0",
        (
            ProposedCheck("SP", EMOJI, C),
            ProposedCheck("SP", EMOJI_2, C),
            ProposedCheck("SP", ENGLISH, C),
        ),
    ),
]


def reply(*checks):
    return json.dumps(
        {
            "checks": [
                {"category": c, "description": d, "check_type": k, "merges": m}
                for c, d, k, m in checks
            ]
        }
    )


GOOD = reply(
    ("SP", "No emoji are used by the assistant", "compliance", ["P1", "P2"]),
    ("SP", ENGLISH, "compliance", ["P3"]),
    ("CLAUDE.md", TESTS, "testing", ["P4"]),
)


def test_candidates_collapse_identical_proposals_and_are_keyed_in_a_fixed_order():
    found = merge_candidates(PROPOSALS)
    assert [(c.key, c.category, c.description, len(c.rollouts)) for c in found] == [
        ("P1", "SP", EMOJI, 2),
        ("P2", "SP", "Check whether no emoji appear in the assistant's answers.", 1),
        ("P3", "SP", ENGLISH, 1),
        ("P4", "Agents.md", TESTS, 1),
    ]
    assert merge_candidates(list(reversed(PROPOSALS))) == found


def test_the_prompt_lists_every_candidate_and_reads_back():
    candidates = merge_candidates(PROPOSALS)
    user = render_merge_user("inst", candidates, 2)
    assert "instance inst (2 recorded sessions)" in user
    assert f"P1 · SP · compliance · 2/2 rollouts · {EMOJI}" in user
    assert read_merge_candidates(user) == [
        (c.key, c.category, c.check_type.value, c.description) for c in candidates
    ]
    assert '"merges"' in MERGE_SYSTEM and "Do not drop a check" in MERGE_SYSTEM
    noted = render_merge_user("inst", candidates, 2, note="entry 0: missing field 'merges'")
    assert "Note on your previous reply:\nentry 0: missing field 'merges'" in noted
    with pytest.raises(ValueError, match="no .* section"):
        read_merge_candidates("Merge these please.")


def test_a_good_reply_parses():
    parsed = parse_merge_reply(f"```json\n{GOOD}\n```", merge_candidates(PROPOSALS))
    assert parsed.ok, parsed.problems
    assert [(d.category, d.check_type, d.merges) for d in parsed.checks] == [
        ("SP", C, ("P1", "P2")),
        ("SP", C, ("P3",)),
        ("Agents.md", T, ("P4",)),
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            reply(("SP", EMOJI, "compliance", ["P1", "P2", "P3"])),
            "candidates P4 are in no entry's 'merges' (every proposed check must be kept",
        ),
        (
            json.dumps(
                {"checks": [{"category": "SP", "description": EMOJI, "check_type": "compliance"}]}
            ),
            "entry 0: missing field 'merges'",
        ),
        (
            reply(
                ("SP", EMOJI, "compliance", []), ("SP", TESTS, "testing", ["P1", "P2", "P3", "P4"])
            ),
            "entry 0: field 'merges' is not a non-empty list of keys",
        ),
        (
            reply(("SP", EMOJI, "compliance", ["P1", "P2", "P3", "P4", "P9"])),
            "entry 0: field 'merges': unknown key 'P9' (the prompt has P1 … P4)",
        ),
        (
            reply(("SP", EMOJI, "compliance", ["P1", 2, "P3", "P4"])),
            "entry 0: field 'merges': 2 is not a key string",
        ),
        (
            reply(("Vibes", EMOJI, "compliance", ["P1", "P2", "P3", "P4"])),
            "entry 0: unknown category 'Vibes'",
        ),
        (
            reply(("SP", EMOJI, "style", ["P1", "P2", "P3", "P4"])),
            "entry 0: check_type 'style' is not one of",
        ),
        ("Here is the merged list, all good.", "the reply is prose"),
        (GOOD[: len(GOOD) // 2], "cut off"),
        ('{"checks": []}', "the checks list is empty"),
    ],
)
def test_unusable_merge_replies_say_why(text, problem):
    parsed = parse_merge_reply(text, merge_candidates(PROPOSALS))
    assert not parsed.ok and parsed.checks == []
    assert problem in parsed.summary()


async def test_llm_merge_reasks_with_a_note_and_computes_support_from_the_keys():
    calls = []
    replies = iter([reply(("SP", EMOJI, "compliance", ["P1", "P2", "P3"])), GOOD])

    async def ask(call):
        calls.append(call)
        return next(replies)

    merged = await llm_merge(ask, "inst", PROPOSALS, model="m")
    assert len(calls) == 2 and calls[1].attempt == 2
    assert "candidates P4 are in no entry's 'merges'" in calls[1].user
    assert calls[0].id != calls[1].id and calls[0].judge == "checkgen"
    assert merged.merge == "llm" and merged.proposed == 5
    assert [(c.check_id, c.description, c.support, c.variants) for c in merged.checks] == [
        ("SP-01", "Check whether no emoji are used by the assistant.", 2, 2),
        ("SP-02", ENGLISH, 1, 1),
        ("AM-01", TESTS, 1, 1),
    ]
    assert merged.checks[0].rollouts == ("run/a/s/i/r0", "run/b/s/i/r0")
    # min_support drops (and counts) checks the model kept but few rollouts proposed.
    replies = iter([GOOD])
    strict = await llm_merge(ask, "inst", PROPOSALS, model="m", min_support=2)
    assert [c.check_id for c in strict.checks] == ["SP-01"] and strict.dropped == 2


async def test_llm_merge_without_a_usable_reply_is_an_error_naming_each_attempt():
    async def ask(call):
        if call.attempt == 1:
            raise TimeoutError("slow")
        return "no JSON here"

    with pytest.raises(ModelReplyError) as info:
        await llm_merge(ask, "inst", PROPOSALS, model="m", max_attempts=2)
    text = str(info.value)
    assert "instance inst: no usable merge from m after 2 attempts" in text
    assert "attempt 1: the call failed: TimeoutError: slow" in text
    assert "attempt 2: the reply is prose" in text


async def test_a_failed_llm_merge_falls_back_to_the_deterministic_merge_and_says_so():
    by_label = {p.rollout: p for p in PROPOSALS}

    def proposal_reply(rollout):
        checks = by_label[rollout].checks
        return json.dumps(
            {
                "checks": [
                    {
                        "category": c.category,
                        "description": c.description,
                        "check_type": c.check_type.value,
                    }
                    for c in checks
                ]
            }
        )

    async def ask(call):
        if "BEGIN PROPOSED CHECKS" in call.user:
            return "I merged them in my head."
        rollout = next(label for label in by_label if label in call.user)
        return proposal_reply(rollout)

    # Each rollout's one user message is its label, so the proposer can tell them apart.
    rollouts = [
        ReferenceRollout(
            p.rollout,
            Trajectory.model_validate({"messages": [{"role": "user", "content": p.rollout}]}),
        )
        for p in PROPOSALS
    ]
    fell_back = await generate_checklist(ask, "inst", rollouts, model="m", merge="llm")
    plain = await generate_checklist(ask, "inst", rollouts, model="m")
    assert fell_back.merge == "deterministic" and plain.merge_note is None
    assert fell_back.merge_note is not None
    assert fell_back.merge_note.startswith("the LLM merge failed, the deterministic merge was used")
    assert "the reply is prose" in fell_back.merge_note
    assert fell_back.checks == plain.checks == merge_proposals("inst", PROPOSALS).checks
    with pytest.raises(ValueError, match="merge must be one of deterministic, llm"):
        await generate_checklist(ask, "inst", rollouts, model="m", merge="vote")  # type: ignore[arg-type]


def test_the_merge_prompt_has_its_own_version():
    assert MERGE_PROMPT_VERSION == "checkgen-merge-v1"
