"""``skill_invoked`` and ``reply_matches``: what counts as a hit, and what the verdicts say."""

import pytest
from pydantic import ValidationError

from adhere.core import ToolSpec
from adhere.judging.verifiers._matches import ReplyMatchesParams
from adhere.judging.verifiers._skills import skill_name
from tests.unit.judging.test_verif_support import (
    CLAUDE_TOOLS,
    CODEX_TOOLS,
    act,
    ctx,
    instance,
    obj,
    say,
    traj,
    user,
    verdict,
)

S = {"type": "string"}


def test_skill_names_compare_without_case_slash_namespace_or_arguments() -> None:
    assert skill_name("/Changelog --since v1") == "changelog"
    assert skill_name("plugin:sub:Review") == "review"
    assert skill_name("  ") == "" and skill_name("") == ""


def test_no_expected_skill_is_n_a() -> None:
    context = ctx(traj(say("hi")))
    outcome = verdict("skill_invoked", context)
    assert (outcome.result, outcome.reasoning) == ("n/a", "the instance expects no skill")
    assert (
        verdict("skill_invoked", ctx(traj(say("hi")), instance(expected_skill=" "))).result == "n/a"
    )


def test_the_skill_tool_call_names_the_skill_under_any_of_its_keys() -> None:
    for key in ("skill", "skill_name", "skillName", "name", "command", "skill_id", "id"):
        trajectory = traj(act("", "Skill", **{key: "/pkg:Changelog now"}))
        outcome = verdict("skill_invoked", ctx(trajectory), skill="changelog")
        assert outcome.result == "pass", key
        assert outcome.reasoning == "message 0: skill 'changelog' invoked (Skill tool)"
        assert outcome.evidence == 0


def test_the_expected_skill_comes_from_the_instance_unless_given() -> None:
    trajectory = traj(act("", "Skill", skill="review"))
    assert (
        verdict("skill_invoked", ctx(trajectory, instance(expected_skill="Review"))).result
        == "pass"
    )
    other = verdict(
        "skill_invoked", ctx(trajectory, instance(expected_skill="Review")), skill="lint"
    )
    assert other.result == "fail"


def test_a_missing_skill_names_the_skills_used_and_how_reads_count() -> None:
    trajectory = traj(
        act("", "Skill", skill="lint"), act("", "Skill", skill="docs"), act("", "Skill", skill="")
    )
    outcome = verdict("skill_invoked", ctx(trajectory), skill="review")
    assert (outcome.result, outcome.evidence) == ("fail", 0)
    assert outcome.reasoning == "skill 'review' was not invoked; skills used: docs, lint"
    nothing = verdict("skill_invoked", ctx(traj(say("hi"), tools=CODEX_TOOLS)), skill="review")
    assert (
        nothing.reasoning
        == "skill 'review' was not invoked (reading SKILL.md counts); no skill was used"
    )
    assert nothing.evidence is None


def test_reading_skill_md_counts_when_no_skill_tool_is_offered() -> None:
    read = act("", "exec_command", cmd=["bash", "-lc", "cat .codex/skills/Review/SKILL.md"])
    codex = ctx(traj(read, tools=CODEX_TOOLS))
    outcome = verdict("skill_invoked", codex, skill="review")
    assert outcome.result == "pass"
    assert (
        outcome.reasoning
        == "message 0: skill 'review' invoked (read .codex/skills/Review/SKILL.md)"
    )
    assert verdict("skill_invoked", codex, skill="review", read_counts="never").result == "fail"
    claude = ctx(traj(act("", "Read", file_path="skills/review/SKILL.md")))  # a skill tool exists
    assert verdict("skill_invoked", claude, skill="review").result == "fail"
    assert verdict("skill_invoked", claude, skill="review", read_counts="always").result == "pass"
    other_file = ctx(traj(act("", "Read", file_path="skills/review/NOTES.md"), tools=CODEX_TOOLS))
    assert verdict("skill_invoked", other_file, skill="review").result == "fail"


def test_a_skill_tool_is_recognised_by_its_schema() -> None:
    tools = [ToolSpec(name="activate_skill", parameters=obj({"name": S}, ["name"]))]
    trajectory = traj(act("", "Read", file_path="skills/review/SKILL.md"), tools=tools)
    assert verdict("skill_invoked", ctx(trajectory), skill="review").result == "fail"  # not auto
    no_schema = [ToolSpec(name="activate_skill", parameters={})]
    trajectory = traj(act("", "Read", file_path="skills/review/SKILL.md"), tools=no_schema)
    assert verdict("skill_invoked", ctx(trajectory), skill="review").result == "fail"


def test_must_be_first_names_the_call_that_came_first() -> None:
    trajectory = traj(act("", "Read", file_path="a.py"), act("", "Skill", skill="review"))
    outcome = verdict("skill_invoked", ctx(trajectory), skill="review", must_be_first=True)
    assert (outcome.result, outcome.evidence) == ("fail", 0)
    assert outcome.reasoning == (
        "skill 'review' invoked at message 2 (Skill tool), but message 0 (Read) came first"
    )
    first = traj(act("", "Skill", skill="review"), act("", "Read", file_path="a.py"))
    assert verdict("skill_invoked", ctx(first), skill="review", must_be_first=True).result == "pass"
    assert verdict("skill_invoked", ctx(trajectory), skill="review").result == "pass"


def test_the_earliest_use_of_the_skill_is_cited() -> None:
    trajectory = traj(
        act("", "Skill", skill="lint"),
        act("", "Read", file_path="skills/review/SKILL.md"),
        act("", "Skill", skill="review"),
        tools=CLAUDE_TOOLS,
    )
    outcome = verdict("skill_invoked", ctx(trajectory), skill="review", read_counts="always")
    assert outcome.reasoning == "message 2: skill 'review' invoked (read skills/review/SKILL.md)"


def test_reply_matches_params_need_a_valid_pattern_or_a_phrase() -> None:
    with pytest.raises(ValidationError, match="give a pattern or a contains phrase"):
        ReplyMatchesParams()
    with pytest.raises(ValidationError, match="invalid regular expression"):
        ReplyMatchesParams(pattern="(")
    assert ReplyMatchesParams(contains="x").expect == "present"


def test_reply_matches_messages_name_the_reply_and_the_text_found() -> None:
    context = ctx(traj(say("Hello."), say("I am Ada, hi.")))
    present = verdict("reply_matches", context, pattern=r"I am \w+")
    assert present.reasoning == "message 1 holds /I am \\w+/: “I am Ada”"
    absent = verdict("reply_matches", context, contains="Ada", expect="absent")
    assert (absent.result, absent.evidence) == ("fail", 1)
    assert absent.reasoning == "message 1 holds 'Ada': “Ada”"
    clean = verdict("reply_matches", context, contains="Bob", expect="absent")
    assert (clean.result, clean.reasoning) == ("pass", "no reply in scope holds 'Bob'")
    missing = verdict("reply_matches", context, contains="Bob")
    assert (missing.result, missing.reasoning) == ("fail", "no assistant reply holds 'Bob'")


def test_each_reply_must_match_under_scope_each() -> None:
    context = ctx(traj(say("Summary: a"), say("no summary"), say("Summary: c")))
    outcome = verdict("reply_matches", context, pattern="^Summary:", scope="each")
    assert (outcome.result, outcome.evidence) == ("fail", 1)
    assert outcome.reasoning == "message 1 does not hold /^Summary:/: “no summary”"
    every = ctx(traj(say("Summary: a"), say("Summary: b")))
    passing = verdict("reply_matches", every, pattern="^Summary:", scope="each")
    assert passing.reasoning == "all 2 replies in scope hold /^Summary:/"


def test_a_phrase_is_literal_and_case_matters_unless_ignored() -> None:
    context = ctx(traj(say("Costs 3.50 (approx)")))
    assert verdict("reply_matches", context, contains="3.50 (approx)").result == "pass"
    assert verdict("reply_matches", context, contains="3x50").result == "fail"
    assert verdict("reply_matches", context, contains="COSTS").result == "fail"
    assert verdict("reply_matches", context, contains="COSTS", ignore_case=True).result == "pass"


def test_code_can_be_left_out_and_no_reply_is_n_a() -> None:
    context = ctx(traj(say("Use `secret_name` here.")))
    assert verdict("reply_matches", context, contains="secret", expect="absent").result == "fail"
    outcome = verdict(
        "reply_matches", context, contains="secret", expect="absent", exclude_code=True
    )
    assert outcome.result == "pass"
    none = verdict("reply_matches", ctx(traj(user("hi"))), contains="x")
    assert (none.result, none.reasoning) == ("n/a", "the assistant wrote no reply in scope")


def test_reply_matches_cites_the_first_reply_holding_the_pattern() -> None:
    """With several replies holding it, the verdict (pass under ``present``, fail under
    ``absent``) points at the earliest one, where a reader starts."""
    context = ctx(traj(say("Hi."), say("I am Ada."), say("I am Bob.")))
    present = verdict("reply_matches", context, pattern=r"I am \w+")
    assert present.result == "pass"
    assert present.reasoning == "message 1 holds /I am \\w+/: “I am Ada”"
    absent = verdict("reply_matches", context, pattern=r"I am \w+", expect="absent")
    assert (absent.result, absent.evidence) == ("fail", 1)
    assert absent.reasoning == "message 1 holds /I am \\w+/: “I am Ada”"


def test_only_a_skill_tool_stops_skill_md_reads_counting() -> None:
    """Under ``read_counts: auto`` a read of SKILL.md counts unless a *skill* tool was
    offered; read, write and shell tools are no skill tool."""
    no_skill_tool = [t for t in CLAUDE_TOOLS if t.name != "Skill"]
    trajectory = traj(act("", "Read", file_path="skills/review/SKILL.md"), tools=no_skill_tool)
    assert verdict("skill_invoked", ctx(trajectory), skill="review").result == "pass"


def test_only_skill_tool_calls_and_reads_of_skill_md_invoke_a_skill() -> None:
    # a shell command named like the skill is no skill call
    ran = traj(act("", "Bash", command="review --all"))
    assert verdict("skill_invoked", ctx(ran), skill="review").result == "fail"
    # writing or editing a SKILL.md is not reading it
    written = traj(
        act("", "Write", file_path="skills/review/SKILL.md", content="x"),
        act("", "Edit", file_path="skills/review/SKILL.md", old_string="x", new_string="y"),
        tools=CODEX_TOOLS + CLAUDE_TOOLS[:3],
    )
    assert verdict("skill_invoked", ctx(written), skill="review", read_counts="always").result == (
        "fail"
    )
