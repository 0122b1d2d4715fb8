"""Merging proposed checks: harmonized wording, deduplication, support, ids, order."""

import pytest

from adhere.core import CheckKind
from adhere.judging import (
    DEFAULT_SIMILARITY,
    ProposedCheck,
    RolloutProposals,
    merge_proposals,
)
from adhere.judging._checkgen_categories import canonical_category
from adhere.judging._checkgen_merge import harmonize_description, normalize, similarity

C, T, IMPL, M = (
    CheckKind.COMPLIANCE,
    CheckKind.TESTING,
    CheckKind.IMPLEMENTATION,
    CheckKind.MODIFICATION,
)


def p(category, description, kind=C):
    return ProposedCheck(category, description, kind)


def rollout(label, *checks):
    return RolloutProposals(label, tuple(checks))


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            "Check whether the assistant runs the tests.",
            "Check whether the assistant runs the tests.",
        ),
        ("check if the assistant runs the tests", "Check whether the assistant runs the tests."),
        ("Verify that the agent  runs\nthe tests?", "Check whether the agent runs the tests."),
        ("The assistant runs the tests", "Check whether the assistant runs the tests."),
        ("Whether README.md is read first.", "Check whether README.md is read first."),
        ("Check: the assistant uses no emoji", "Check whether the assistant uses no emoji."),
        ("Ensure the answer is in French", "Check whether the answer is in French."),
        ("", "Check whether the instruction was followed."),
        (
            'Check whether the agent complied with: "Use pytest."',
            'Check whether the agent complied with: "Use pytest."',
        ),
        ('Check whether it used "pytest"', 'Check whether it used "pytest".'),
    ],
)
def test_harmonized_descriptions_start_with_check_whether(raw, expected):
    assert harmonize_description(raw) == expected


def test_normalized_form_drops_the_frame_and_folds_negations():
    tokens, parity = normalize("Check whether the assistant doesn't use emoji in its answers.")
    assert tokens == {"NOT", "use", "emoji", "answer"} and parity == 1
    assert normalize("Check if the agent never uses emoji in answers")[0] == tokens
    assert normalize("Check whether the assistant uses emoji in answers")[1] == 0


def test_similarity_is_a_jaccard_index_and_zero_for_opposite_polarity():
    a = "Check whether the assistant runs pytest after every code change."
    assert similarity(a, "Check if the agent runs pytest after every code change") == 1.0
    # six content words (run, pytest, after, every, code, change); one more: 6/7 merges
    assert similarity(a, a.replace("pytest", "pytest quietly")) == pytest.approx(6 / 7)
    # one swapped: 5/7 stays apart
    assert similarity(a, a.replace("pytest", "ruff")) == pytest.approx(5 / 7)
    assert similarity(a, a.replace("runs", "never runs")) == 0.0


def test_near_duplicates_merge_across_rollouts_with_support_counts():
    r1 = rollout(
        "run/m1/ref/i/r0",
        p("SP", "Check whether the assistant never uses emoji."),
        p("SP", "Check whether the assistant keeps answers under 120 words."),
        p("User query", "Check whether the assistant explains restock().", CheckKind.UNDERSTANDING),
    )
    r2 = rollout(
        "run/m2/ref/i/r0",
        p("SP", "check if the agent never uses emoji"),
        p("SP", "Check whether the assistant does not use emoji."),  # same rollout, same check
        p("User query", "Check whether the assistant explains restock()", CheckKind.UNDERSTANDING),
    )
    r3 = rollout("run/m3/ref/i/r0", p("SP", "The assistant never uses emoji"))
    checklist = merge_proposals("i", [r1, r2, r3])
    assert checklist.proposed == 7 and checklist.dropped == 0
    assert [(c.check_id, c.support) for c in checklist.checks] == [
        ("SP-01", 3),
        ("SP-02", 1),
        ("UQ-01", 2),
    ]
    emoji = checklist.checks[0]
    assert emoji.description == "Check whether the assistant never uses emoji."
    assert emoji.variants == 3
    assert emoji.rollouts == ("run/m1/ref/i/r0", "run/m2/ref/i/r0", "run/m3/ref/i/r0")
    assert checklist.rollouts == emoji.rollouts


def test_opposite_instructions_never_merge():
    checklist = merge_proposals(
        "i",
        [
            rollout("a", p("SP", "Check whether the assistant uses emoji.")),
            rollout("b", p("SP", "Check whether the assistant never uses emoji.")),
        ],
    )
    assert len(checklist.checks) == 2


def test_same_text_in_two_categories_stays_two_checks():
    text = "Check whether the assistant answers in English."
    checklist = merge_proposals("i", [rollout("a", p("SP", text), p("Agents.md", text))])
    assert [c.check_id for c in checklist.checks] == ["SP-01", "AM-01"]


def test_threshold_decides_what_merges():
    a = p("SP", "Check whether the assistant runs pytest after each change.")
    b = p("SP", "Check whether the assistant runs pytest quietly after each change.")
    proposals = [rollout("x", a), rollout("y", b)]
    assert len(merge_proposals("i", proposals).checks) == 1  # 4/5 = 0.8
    assert len(merge_proposals("i", proposals, threshold=0.9).checks) == 2


def test_complete_link_clustering_does_not_chain():
    base = "Check whether the assistant runs pytest with coverage after each change"
    # each step adds one word: neighbours are similar, the ends are not
    steps = [base, base + " locally", base + " locally twice", base + " locally twice quickly"]
    checklist = merge_proposals(
        "i", [rollout(f"r{n}", p("SP", s)) for n, s in enumerate(steps)], threshold=0.8
    )
    assert 1 < len(checklist.checks) < 4
    assert sum(c.support for c in checklist.checks) == 4


def test_min_support_drops_rare_checks_and_counts_them():
    proposals = [
        rollout("a", p("SP", "Check whether the assistant never uses emoji."), p("SP", "Rare.")),
        rollout("b", p("SP", "Check whether the assistant never uses emoji.")),
    ]
    checklist = merge_proposals("i", proposals, min_support=2)
    assert [c.description for c in checklist.checks] == [
        "Check whether the assistant never uses emoji."
    ]
    assert checklist.dropped == 1 and checklist.min_support == 2


def test_check_type_is_the_majority_with_ties_in_enum_order():
    text = "Check whether the assistant runs the tests."
    proposals = [rollout("a", p("SP", text, T)), rollout("b", p("SP", text, T))]
    proposals.append(rollout("c", p("SP", text, C)))
    assert merge_proposals("i", proposals).checks[0].check_type is T
    tie = [rollout("a", p("SP", text, M)), rollout("b", p("SP", text, IMPL))]
    assert (
        merge_proposals("i", tie).checks[0].check_type is IMPL
    )  # implementation before modification


def test_representative_is_the_most_proposed_wording():
    proposals = [
        rollout("a", p("SP", "Check whether the assistant never ever uses any emoji at all.")),
        rollout("b", p("SP", "Check whether the assistant never uses emoji.")),
        rollout("c", p("SP", "Check whether the assistant never ever uses any emoji at all.")),
    ]
    checklist = merge_proposals("i", proposals, threshold=0.5)
    assert checklist.checks[0].description.startswith("Check whether the assistant never ever")
    assert checklist.checks[0].support == 3


def test_categories_sorted_in_checklist_order_and_ids_unique():
    proposals = [
        rollout(
            "a",
            p("Tool schema", "Check whether file paths are absolute."),
            p("Memory", "Check whether the answer is in French."),
            p("User query", "Check whether restock is renamed to replenish.", M),
            p("Skill.md", "Check whether the changelog skill is used."),
            p("System reminder", "Check whether reminders stay private."),
            p("Agents.md", "Check whether pytest runs after each change.", T),
            p("SP", "Check whether no emoji is used."),
        )
    ]
    checklist = merge_proposals("i", proposals)
    assert [c.check_id for c in checklist.checks] == [
        "SP-01",
        "SR-01",
        "UQ-01",
        "AM-01",
        "SK-01",
        "MEM-01",
        "TS-01",
    ]
    assert list(checklist.by_category()) == [
        "SP",
        "System reminder",
        "User query",
        "Agents.md",
        "Skill.md",
        "Memory",
        "Tool schema",
    ]


def test_ids_are_stable_whatever_the_rollout_order():
    descriptions = [
        f"Check whether rule number {n} about {w} holds." for n, w in enumerate("abcdefghij")
    ]
    proposals = [
        rollout(f"r{k}", *(p("SP", d) for n, d in enumerate(descriptions) if (n + k) % 3))
        for k in range(4)
    ]
    first = merge_proposals("i", proposals)
    again = merge_proposals("i", list(reversed(proposals)))
    assert first == again
    ids = [c.check_id for c in first.checks]
    assert len(ids) == len(set(ids)) == 10
    supports = [c.support for c in first.checks]
    assert supports == sorted(supports, reverse=True)


def test_more_than_99_checks_get_three_digit_ids():
    checks = [p("SP", f"Check whether item {n:03d} {n * 7919 % 1000} holds.") for n in range(120)]
    found = merge_proposals("i", [rollout("a", *checks)])
    assert found.checks[0].check_id == "SP-001" and found.checks[-1].check_id == "SP-120"


def test_published_shape():
    checklist = merge_proposals(
        "i", [rollout("a", p("SP", "no emoji"), p("User query", "explains restock"))]
    )
    assert checklist.to_data() == {
        "SP": {
            "description": "Instructions of the system prompt.",
            "checks": [
                {
                    "check_id": "SP-01",
                    "description": "Check whether no emoji.",
                    "check_type": "compliance",
                }
            ],
        },
        "User query": {
            "description": "What the user asked, turn by turn.",
            "checks": [
                {
                    "check_id": "UQ-01",
                    "description": "Check whether explains restock.",
                    "check_type": "compliance",
                }
            ],
        },
    }


def test_bad_parameters_are_rejected():
    with pytest.raises(ValueError, match="threshold"):
        merge_proposals("i", [], threshold=0)
    with pytest.raises(ValueError, match="min_support"):
        merge_proposals("i", [], min_support=0)
    with pytest.raises(ValueError, match="twice"):
        merge_proposals("i", [rollout("a"), rollout("a")])
    assert DEFAULT_SIMILARITY == 0.8


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("sp", "SP"),
        ("System Prompt", "SP"),
        ("SystemReminder", "System reminder"),
        ("user_query", "User query"),
        ("AgentsMd", "Agents.md"),
        ("CLAUDE.md", "Agents.md"),
        ("skill-md", "Skill.md"),
        ("memory", "Memory"),
        ("ToolSchema", "Tool schema"),
        ("tools", "Tool schema"),
    ],
)
def test_category_spellings(spelling, name):
    assert canonical_category(spelling) == name


def test_unknown_category_lists_the_known_ones():
    with pytest.raises(ValueError, match="expected one of SP, System reminder"):
        canonical_category("Style")
