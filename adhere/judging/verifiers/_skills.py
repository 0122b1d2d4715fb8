"""``skill_invoked``: the agent used the skill the instance expects.

A skill counts as invoked when

- a skill tool is called with its name: ``Skill`` (``skill``), ``skill`` (``name``),
  ``activate_skill`` (``name``), ``use_skill`` …, or ``SlashCommand``
  (``command: "/name args"``); names compare without case, and a namespace prefix
  (``plugin:name``) or a leading ``/`` is ignored;
- or — when no offered tool plays the skill role (Codex, for one, lists skills as
  files instead) — the agent reads the skill's file, a path ending in
  ``skills/<name>/SKILL.md``, with a read tool or ``cat``/``head``/``sed -n``.
  ``read_counts: always`` lets such reads count even when a skill tool exists;
  ``never`` never does.
"""

from __future__ import annotations

import re
from typing import Literal

from adhere.judging._verify import Outcome, VerifierParams, VerifyContext, verifier
from adhere.judging.verifiers._activity import describe, trial_activity
from adhere.judging.verifiers._calls import Call, role_of

__all__ = ["SkillInvokedParams", "skill_name"]

_NAME_KEYS = ("skill", "skill_name", "skillName", "name", "command", "skill_id", "id")
_SKILL_FILE = re.compile(r"(?:^|/)skills/([^/]+)/SKILL\.md$", re.IGNORECASE)


def skill_name(value: str) -> str:
    """A skill name as compared: lower case, no ``/``, namespace or arguments."""
    word = value.strip().lstrip("/").split()[0] if value.strip() else ""
    return word.rsplit(":", 1)[-1].lower()


def _invoked(call: Call) -> str | None:
    for key in _NAME_KEYS:
        value = call.arguments.get(key)
        if isinstance(value, str) and value.strip():
            return skill_name(value)
    return None


class SkillInvokedParams(VerifierParams):
    """Parameters of ``skill_invoked``.

    Attributes:
        skill: The expected skill (default: ``instance.metadata["expected_skill"]``).
        read_counts: When reading ``skills/<name>/SKILL.md`` counts as invoking it:
            ``auto`` (only when no skill tool was offered), ``always`` or ``never``.
        must_be_first: The skill must be invoked before any other tool call.
    """

    skill: str | None = None
    read_counts: Literal["auto", "always", "never"] = "auto"
    must_be_first: bool = False


@verifier("skill_invoked", params=SkillInvokedParams)
def skill_invoked(
    ctx: VerifyContext,
    *,
    skill: str | None,
    read_counts: Literal["auto", "always", "never"],
    must_be_first: bool,
) -> Outcome:
    """The expected skill was invoked (with the skill tool, or by reading its SKILL.md)."""
    expected_raw = skill or ctx.instance.metadata.get("expected_skill")
    if not isinstance(expected_raw, str) or not expected_raw.strip():
        return Outcome("n/a", "the instance expects no skill")
    expected = skill_name(expected_raw)
    has_tool = any(
        role_of(t.name, _schema_args(t.parameters)) == "skill" for t in ctx.trajectory.tools
    )
    reads_count = read_counts == "always" or (read_counts == "auto" and not has_tool)
    trial = trial_activity(ctx)
    used: list[tuple[Call, str, str]] = []  # call, skill, how
    for call in trial.calls:
        if call.role == "skill" and (name := _invoked(call)):
            used.append((call, name, f"{call.name} tool"))
    if reads_count:
        for action in trial.files:
            match = _SKILL_FILE.search(action.path) if action.kind == "read" else None
            if match:
                used.append((action.call, skill_name(match.group(1)), f"read {action.path}"))
    used.sort(key=lambda u: trial.position(u[0]))
    hits = [u for u in used if u[1] == expected]
    if not hits:
        others = describe(sorted({u[1] for u in used}))
        seen = f"; skills used: {others}" if used else "; no skill was used"
        how = " (reading SKILL.md counts)" if reads_count else ""
        return Outcome(
            "fail",
            f"skill {expected!r} was not invoked{how}{seen}",
            evidence=used[0][0].evidence if used else None,
        )
    call, _, how = hits[0]
    if must_be_first and trial.calls and trial.calls[0].order != call.order:
        first = trial.calls[0]
        return Outcome(
            "fail",
            f"skill {expected!r} invoked at {call.where} ({how}), but {first.where} "
            f"({first.name}) came first",
            evidence=first.evidence,
        )
    return Outcome(
        "pass", f"{call.where}: skill {expected!r} invoked ({how})", evidence=call.evidence
    )


def _schema_args(schema: dict[str, object]) -> dict[str, object]:
    """A tool's parameter names as a stand-in argument mapping (for role detection)."""
    properties = schema.get("properties")
    return dict.fromkeys(properties, "") if isinstance(properties, dict) else {}
