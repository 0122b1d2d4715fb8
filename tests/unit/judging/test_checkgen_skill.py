"""The Skill.md rule: a Skill instance always gets invocation, identity and workflow checks."""

import json

import pytest
import yaml

from adhere.core import CheckKind, Trajectory
from adhere.judging import (
    SKILL_RULE,
    ProposedCheck,
    ReferenceRollout,
    RolloutProposals,
    apply_skill_rule,
    generate_checklist,
    merge_proposals,
    render_checklist_yaml,
    skill_rule_checks,
)

C = CheckKind.COMPLIANCE


def proposals(*checks):
    return [RolloutProposals("r0", tuple(ProposedCheck(*c, C) for c in checks))]


def test_the_three_required_checks_name_the_expected_skill():
    invocation, identity, workflow = skill_rule_checks("  pdf ")
    assert all(c.category == "Skill.md" and c.check_type is C for c in (invocation, identity))
    assert all(c.required == SKILL_RULE for c in (invocation, identity, workflow))
    assert "invoked a skill" in invocation.description
    assert 'is exactly "pdf"' in identity.description
    assert '"pdf" skill' in workflow.description and "workflow" in workflow.description
    assert all(c.description.startswith("Check whether") for c in (invocation, workflow))
    with pytest.raises(ValueError, match="expected_skill is blank"):
        skill_rule_checks("  ")


def test_a_checklist_without_skill_checks_gets_the_skill_category_first_in_it():
    merged = merge_proposals(
        "inst",
        proposals(
            ("SP", "Check whether the assistant never uses emoji."),
            ("Tool schema", "Check whether the assistant passes absolute paths to Read."),
        ),
    )
    assert "Skill.md" not in merged.by_category()
    ruled = apply_skill_rule(merged, "xlsx")
    assert list(ruled.by_category()) == ["SP", "Skill.md", "Tool schema"]  # checklist order
    skill = ruled.by_category()["Skill.md"]
    assert [c.check_id for c in skill] == ["SK-01", "SK-02", "SK-03"]
    assert [c.description for c in skill] == [c.description for c in skill_rule_checks("xlsx")]
    assert all(c.support == 0 and c.rollouts == () for c in skill)
    others = [c for c in ruled.checks if c.category != "Skill.md"]
    assert others == [c for c in merged.checks]  # untouched, ids included
    assert ruled.expected_skill == "xlsx"
    assert 'Expected skill: "xlsx"' in ruled.to_data()["Skill.md"]["description"]


def test_proposed_skill_checks_stay_after_the_required_ones_and_duplicates_fold_in():
    identity = skill_rule_checks("docx")[1].description
    merged = merge_proposals(
        "inst",
        [
            RolloutProposals(
                "r0",
                (
                    ProposedCheck("Skill.md", "Check whether the assistant ran unpack.py.", C),
                    ProposedCheck("Skill.md", identity.replace("another", "another wrong"), C),
                ),
            ),
            RolloutProposals("r1", (ProposedCheck("Skill.md", identity, C),)),
        ],
    )
    ruled = apply_skill_rule(merged, "docx")
    skill = ruled.by_category()["Skill.md"]
    assert [c.check_id for c in skill] == ["SK-01", "SK-02", "SK-03", "SK-04"]
    assert skill[3].description == "Check whether the assistant ran unpack.py."
    assert skill[3].required is None
    # The proposed identity checks (exact and near) are folded into the required one.
    assert skill[1].description == identity
    assert skill[1].rollouts == ("r0", "r1") and skill[1].support == 2
    assert len(ruled.checks) == 4
    # Applying the rule again does not duplicate the required checks.
    assert apply_skill_rule(ruled, "docx").checks == ruled.checks


def test_no_expected_skill_leaves_the_checklist_as_it_is():
    merged = merge_proposals("inst", proposals(("SP", "Check whether it is in English.")))
    assert apply_skill_rule(merged, None) is merged


def test_required_checks_survive_min_support_and_are_marked_in_the_file():
    merged = merge_proposals(
        "inst",
        proposals(("SP", "Check whether it is in English.")),
        min_support=1,
    )
    text = render_checklist_yaml(apply_skill_rule(merged, "pptx"), model="m")
    assert "# required (Skill.md rule) · support 0/1" in text
    assert "# Skill.md rule: expected skill 'pptx'" in text
    data = yaml.safe_load(text)
    assert [c["check_id"] for c in data["Skill.md"]["checks"]] == ["SK-01", "SK-02", "SK-03"]


async def test_the_rule_holds_whatever_the_proposer_returns():
    """A proposer that never mentions skills still yields the Skill.md category."""

    async def ask(call):
        return json.dumps(
            {"checks": [{"category": "SP", "description": "No emoji.", "check_type": "compliance"}]}
        )

    rollouts = [ReferenceRollout(f"run/m/s/i/r{n}", Trajectory()) for n in range(2)]
    plain = await generate_checklist(ask, "i", rollouts, model="m")
    assert "Skill.md" not in plain.by_category()
    ruled = await generate_checklist(ask, "i", rollouts, model="m", expected_skill="pdf")
    assert [c.check_id for c in ruled.by_category()["Skill.md"]] == ["SK-01", "SK-02", "SK-03"]
    assert 'exactly "pdf"' in ruled.by_category()["Skill.md"][1].description
    assert ruled.by_category()["SP"] == plain.by_category()["SP"]
