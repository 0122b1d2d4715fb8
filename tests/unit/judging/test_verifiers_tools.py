from adhere.core import ChatMessage, ToolCall, ToolSpec
from adhere.judging.verifiers._paths import PathResolver
from tests.unit.judging.test_verif_support import (
    CODEX_TOOLS,
    KILO_TOOLS,
    ROOT,
    act,
    call,
    ctx,
    instance,
    obj,
    result,
    say,
    traj,
    verdict,
)

EDIT = {"old_string": "a", "new_string": "b"}

# --- paths -----------------------------------------------------------------------------


def test_root_is_inferred_from_absolute_paths_of_known_files():
    resolver = PathResolver.infer(
        [f"{ROOT}/inventory.py", "/etc/hosts", "relative.py"], ["inventory.py", "tests/t.py"]
    )
    assert resolver.roots == (ROOT,)
    assert resolver.rel(f"{ROOT}/tests/../inventory.py") == "inventory.py"
    assert resolver.rel(f"{ROOT}//tests/t.py") == "tests/t.py"
    assert resolver.rel("./inventory.py") == "inventory.py"
    assert resolver.rel("/etc/hosts") == "/etc/hosts"


def test_explicit_root_wins_even_without_known_files():
    resolver = PathResolver.infer(["/app/new.py"], [], ["/app/"])
    assert resolver.rel("/app/new.py") == "new.py"


# --- tool_order and read_before_edit ---------------------------------------------------


def test_read_before_edit_absolute_and_relative_paths_agree():
    trajectory = traj(
        act("Reading.", "Read", file_path="inventory.py"),
        act("Editing.", "Edit", file_path=f"{ROOT}/inventory.py", **EDIT),
    )
    outcome = verdict("read_before_edit", ctx(trajectory))
    assert outcome.result == "pass" and "inventory.py" in outcome.reasoning


def test_read_before_edit_fails_on_the_unread_file():
    trajectory = traj(
        act("Reading.", "read", filePath=f"{ROOT}/inventory.py"),
        act("Editing.", "edit", filePath=f"{ROOT}/inventory.py", oldString="a", newString="b"),
        act("Editing.", "edit", filePath=f"{ROOT}/utils.py", oldString="a", newString="b"),
        tools=KILO_TOOLS,
    )
    inst = instance(files={"inventory.py": "x", "utils.py": "y"})
    outcome = verdict("read_before_edit", ctx(trajectory, inst))
    assert outcome.result == "fail" and outcome.evidence == 4 and "utils.py" in outcome.reasoning


def test_read_before_edit_created_files_need_no_read():
    trajectory = traj(
        act("Creating.", "Write", file_path=f"{ROOT}/new.py", content="x = 1\n"),
        act("Editing.", "Edit", file_path="new.py", **EDIT),
        files={"new.py": "x = 2\n"},
    )
    assert verdict("read_before_edit", ctx(trajectory)).result == "pass"


def test_read_before_edit_overwriting_an_existing_file_counts_as_edit():
    trajectory = traj(act("Overwriting.", "Write", file_path="inventory.py", content="y"))
    assert verdict("read_before_edit", ctx(trajectory)).result == "fail"
    assert verdict("read_before_edit", ctx(trajectory), writes_count_as_edits=False).result == "n/a"


def test_read_before_edit_shell_reads_and_patches():
    patch = "*** Begin Patch\n*** Update File: inventory.py\n@@\n-x = 1\n+x = 2\n*** End Patch"
    trajectory = traj(
        act("Reading.", "exec_command", cmd=["bash", "-lc", "sed -n '1,80p' inventory.py"]),
        act("Patching.", "apply_patch", input=patch),
        tools=CODEX_TOOLS,
    )
    assert verdict("read_before_edit", ctx(trajectory)).result == "pass"
    assert verdict("read_before_edit", ctx(trajectory), shell_reads=False).result == "fail"


def test_read_before_edit_na_when_nothing_edited():
    trajectory = traj(act("Reading.", "Read", file_path="inventory.py"), say("It adds units."))
    assert verdict("read_before_edit", ctx(trajectory)).result == "n/a"


def test_tool_order_by_role_and_by_name():
    trajectory = traj(
        act("Searching.", "Grep", pattern="restock"),
        act("Editing.", "Edit", file_path="inventory.py", **EDIT),
        act("Reading.", "Read", file_path="inventory.py"),
    )
    outcome = verdict("tool_order", ctx(trajectory), before="read", after="edit")
    assert outcome.result == "fail" and outcome.evidence == 2
    assert verdict(
        "tool_order", ctx(trajectory), before=["read", "search"], after="edit"
    ).result == ("pass")
    assert verdict("tool_order", ctx(trajectory), before="grep", after="Edit").result == "pass"
    assert verdict("tool_order", ctx(trajectory), before="read", after="skill").result == "n/a"


def test_tool_order_same_path():
    trajectory = traj(
        act("Reading.", "Read", file_path="utils.py"),
        act("Editing.", "Edit", file_path="inventory.py", **EDIT),
    )
    assert verdict("tool_order", ctx(trajectory), before="read", after="edit").result == "pass"
    outcome = verdict("tool_order", ctx(trajectory), before="read", after="edit", same_path=True)
    assert outcome.result == "fail" and "inventory.py" in outcome.reasoning


# --- tool_args_valid -------------------------------------------------------------------


def test_tool_args_valid_pass_and_schema_violations():
    good = traj(act("Reading.", "Read", file_path="a.py", limit=10))
    assert verdict("tool_args_valid", ctx(good)).result == "pass"
    bad = traj(
        act("Reading.", "Read", file_path="a.py"),
        act("Reading.", "Read", file_path=3, limit="ten"),
        act("Editing.", "Edit", file_path="a.py", old_string="x"),
    )
    outcome = verdict("tool_args_valid", ctx(bad))
    assert outcome.result == "fail" and outcome.evidence == 2
    problems = outcome.details["problems"]
    assert any("arguments.file_path" in p and "not of type 'string'" in p for p in problems)
    assert any("arguments.limit" in p for p in problems)
    assert any("'new_string' is a required property" in p for p in problems)


def test_tool_args_valid_unoffered_tools_and_raw_arguments():
    unoffered = traj(act("Planning.", "TodoWrite", todos=[]))
    outcome = verdict("tool_args_valid", ctx(unoffered))
    assert outcome.result == "fail" and "never offered" in outcome.reasoning
    assert verdict("tool_args_valid", ctx(unoffered), allow_unoffered=True).result == "pass"
    raw = traj(act("Reading.", "Read", _raw='{"file_path": "a.py"'))
    assert "not valid JSON" in verdict("tool_args_valid", ctx(raw)).reasoning


def test_tool_args_valid_scope_and_na():
    trajectory = traj(act("Reading.", "Read", file_path=1), act("Running.", "Bash", command="ls"))
    assert verdict("tool_args_valid", ctx(trajectory), tools=["Bash"]).result == "pass"
    assert verdict("tool_args_valid", ctx(traj(say("hi")))).result == "n/a"


def test_tool_args_valid_skips_broken_schemas_and_checks_subagents():
    tools = [ToolSpec(name="Odd", parameters={"type": "object", "properties": {"a": {"type": 5}}})]
    trajectory = traj(act("Calling.", "Odd", a=1), tools=tools)
    outcome = verdict("tool_args_valid", ctx(trajectory))
    assert outcome.result == "pass" and "schema invalid" in outcome.reasoning
    sub = traj(act("Reading.", "read", filePath=7), tools=KILO_TOOLS)
    main = traj(say("Delegating.", call("Agent", prompt="x")), subagents=[sub])
    main = main.model_copy(
        update={"tools": [ToolSpec(name="Agent", parameters=obj({"prompt": {}}))]}
    )
    assert verdict("tool_args_valid", ctx(main)).result == "pass"
    outcome = verdict("tool_args_valid", ctx(main), include_subagents=True)
    assert (
        outcome.result == "fail" and outcome.evidence is None and "sub-agent 0" in outcome.reasoning
    )


# --- no_invented_results ---------------------------------------------------------------


def test_no_invented_results_pass():
    trajectory = traj(act("Reading.", "Read", file_path="a.py"), say("It holds x = 1."))
    outcome = verdict("no_invented_results", ctx(trajectory))
    assert outcome.result == "pass" and "all 1 tool result" in outcome.reasoning


def test_fabricated_tool_result_block_fails():
    fake = (
        "Let me check the tests.\n<function_results>\n<result>\n"
        "<output>3 passed in 0.01s</output>\n</result>\n</function_results>\nAll tests pass."
    )
    outcome = verdict("no_invented_results", ctx(traj(say(fake))))
    assert outcome.result == "fail" and outcome.evidence == 0
    assert "<function_results>" in outcome.reasoning
    for text in (
        "<tool_result>exit 0</tool_result>",
        '{"type": "tool_result", "content": "ok"}',
        "<|tool_response|> ok",
        "[TOOL_RESULTS] ok",
    ):
        assert verdict("no_invented_results", ctx(traj(say(text)))).result == "fail", text


def test_quoted_markup_in_code_is_allowed():
    text = "The CLI wraps outputs as `<tool_result>`:\n```xml\n<tool_result>ok</tool_result>\n```"
    assert verdict("no_invented_results", ctx(traj(say(text)))).result == "pass"


def test_tool_result_without_a_call_fails():
    orphan = ChatMessage(role="tool", content="3 passed", tool_call_id="call_made_up", name="Bash")
    made = call("Read", file_path="a.py")
    early = ChatMessage(role="tool", content="early", tool_call_id="call_late", name="Bash")
    late = ToolCall(id="call_late", name="Bash", arguments={"command": "ls"})
    trajectory = traj(say("Reading.", made), result(made), orphan, early, say("Now.", late))
    outcome = verdict("no_invented_results", ctx(trajectory))
    assert outcome.result == "fail" and outcome.evidence == 2
    assert len(outcome.details["problems"]) == 2  # the answer that came before its call too


def test_no_invented_results_na_without_assistant_output():
    assert verdict("no_invented_results", ctx(traj())).result == "n/a"


# --- skill_invoked ---------------------------------------------------------------------


def test_skill_invoked_with_the_skill_tool():
    inst = instance(expected_skill="changelog")
    trajectory = traj(act("Using the skill.", "Skill", skill="changelog"), say("Recorded."))
    outcome = verdict("skill_invoked", ctx(trajectory, inst))
    assert outcome.result == "pass" and outcome.evidence == 0
    kilo = traj(act("Loading.", "skill", name="Changelog"), tools=KILO_TOOLS)
    assert verdict("skill_invoked", ctx(kilo, inst)).result == "pass"
    namespaced = traj(act("Loading.", "Skill", skill="team-plugin:changelog"))
    assert verdict("skill_invoked", ctx(namespaced, inst)).result == "pass"


def test_skill_invoked_wrong_or_missing_skill_fails():
    inst = instance(expected_skill="changelog")
    wrong = traj(act("Using.", "Skill", skill="release-notes"))
    outcome = verdict("skill_invoked", ctx(wrong, inst))
    assert (
        outcome.result == "fail" and "release-notes" in outcome.reasoning and outcome.evidence == 0
    )
    nothing = traj(act("Editing.", "Edit", file_path="CHANGELOG.md", **EDIT))
    assert verdict("skill_invoked", ctx(nothing, inst)).result == "fail"


def test_skill_invoked_param_overrides_metadata_and_na_without_expectation():
    trajectory = traj(act("Using.", "Skill", skill="pdf"))
    assert verdict("skill_invoked", ctx(trajectory), skill="pdf").result == "pass"
    assert verdict("skill_invoked", ctx(trajectory)).result == "n/a"


def test_reading_skill_md_counts_only_without_a_skill_tool():
    inst = instance(expected_skill="changelog")
    path = f"{ROOT}/.codex/skills/changelog/SKILL.md"
    codex = traj(act("Reading the skill.", "exec_command", cmd=["cat", path]), tools=CODEX_TOOLS)
    outcome = verdict("skill_invoked", ctx(codex, inst))
    assert outcome.result == "pass" and "SKILL.md" in outcome.reasoning
    assert verdict("skill_invoked", ctx(codex, inst), read_counts="never").result == "fail"
    claude = traj(act("Reading.", "Read", file_path=".claude/skills/changelog/SKILL.md"))
    assert verdict("skill_invoked", ctx(claude, inst)).result == "fail"
    assert verdict("skill_invoked", ctx(claude, inst), read_counts="always").result == "pass"


def test_skill_must_be_first():
    inst = instance(expected_skill="changelog")
    trajectory = traj(
        act("Reading.", "Read", file_path="CHANGELOG.md"), act("Using.", "Skill", skill="changelog")
    )
    assert verdict("skill_invoked", ctx(trajectory, inst)).result == "pass"
    outcome = verdict("skill_invoked", ctx(trajectory, inst), must_be_first=True)
    assert outcome.result == "fail" and outcome.evidence == 0
