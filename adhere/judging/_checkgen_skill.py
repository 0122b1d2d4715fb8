"""The Skill.md rule of checklist generation: a Skill instance always gets its skill checks.

OctoBench creates a checklist category only when its instruction source is present in
the trajectory, with one exception (paper, Appendix D.3): for Skill instances the
``Skill.md`` category is always created, with checks for skill **invocation**, skill
**identity** (the skill invoked is the instance's ``expected_skill``) and **workflow**
adherence. A model proposing checks cannot be relied on for that (an agent that never
invoked the skill leaves no Skill.md text in its trajectory to propose from), so the
rule is applied here, deterministically, after the merge and whatever it returned:

* :func:`skill_rule_checks` gives the three required checks, worded as the published
  Skill rows word theirs (``Skill_called`` / ``Skill_correct_<skill>`` /
  ``Skill_flow_followed``): one check type ``compliance`` each.
* :func:`apply_skill_rule` puts them first in the ``Skill.md`` category (``SK-01`` …
  ``SK-03``). A merged Skill.md check that is the same check (the merger's own
  similarity, at the checklist's threshold) is folded into the required one: its
  rollouts count towards the required check's support and it is not listed twice.
  Every other proposed check stays, renumbered after them.
"""

from __future__ import annotations

from dataclasses import replace

from adhere.core import CheckKind
from adhere.judging._checkgen_merge import (
    GeneratedChecklist,
    MergedCheck,
    number_checks,
    similarity,
)

__all__ = ["SKILL_CATEGORY", "SKILL_RULE", "apply_skill_rule", "skill_rule_checks"]

SKILL_CATEGORY = "Skill.md"
SKILL_RULE = "Skill.md rule"
"""The ``required`` reason of the checks this module adds."""


def skill_rule_checks(expected_skill: str) -> tuple[MergedCheck, MergedCheck, MergedCheck]:
    """The invocation, identity and workflow checks for ``expected_skill`` (no ids yet).

    Raises:
        ValueError: ``expected_skill`` is blank.
    """
    skill = " ".join(expected_skill.split())
    if not skill:
        raise ValueError("expected_skill is blank; the Skill.md rule needs the skill's name")
    descriptions = (
        "Check whether the assistant actually invoked a skill with the Skill tool (or the "
        "scaffold's equivalent) while handling the task, rather than only mentioning a "
        "skill in text or ignoring the skills.",
        f'Check whether the skill the assistant invoked is exactly "{skill}", not another '
        "skill or a misspelled name.",
        f'Check whether, after invoking the "{skill}" skill, the assistant followed the '
        "workflow and guidance of its SKILL.md instead of ignoring them.",
    )
    first, second, third = (
        MergedCheck(
            check_id="",
            category=SKILL_CATEGORY,
            description=text,
            check_type=CheckKind.COMPLIANCE,
            support=0,
            rollouts=(),
            variants=0,
            required=SKILL_RULE,
        )
        for text in descriptions
    )
    return first, second, third


def apply_skill_rule(
    checklist: GeneratedChecklist, expected_skill: str | None
) -> GeneratedChecklist:
    """``checklist`` with the Skill.md rule applied (see the module docstring).

    ``expected_skill`` ``None`` (not a Skill instance) returns ``checklist`` unchanged.

    Raises:
        ValueError: ``expected_skill`` is blank.
    """
    if expected_skill is None:
        return checklist
    required = list(skill_rule_checks(expected_skill))
    kept: list[MergedCheck] = []
    for check in checklist.checks:
        if check.required == SKILL_RULE:  # applied before: kept if still required
            for n, wanted in enumerate(required):
                if wanted.description == check.description:
                    required[n] = check
            continue
        if check.category != SKILL_CATEGORY or check.required is not None:
            kept.append(check)
            continue
        scores = [similarity(check.description, r.description) for r in required]
        best = max(range(len(required)), key=lambda n: scores[n])
        if scores[best] < checklist.threshold:
            kept.append(check)
            continue
        into = required[best]
        rollouts = tuple(sorted({*into.rollouts, *check.rollouts}))
        required[best] = replace(
            into, rollouts=rollouts, support=len(rollouts), variants=into.variants + check.variants
        )
    return replace(
        checklist,
        checks=number_checks([*required, *kept]),
        expected_skill=" ".join(expected_skill.split()),
    )
