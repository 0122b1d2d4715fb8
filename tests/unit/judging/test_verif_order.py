"""``tool_order`` and ``read_before_edit``: which calls must come first, and the verdicts' words."""

import pytest
from pydantic import ValidationError

from adhere.judging.verifiers._order import ReadBeforeEditParams, ToolOrderParams
from tests.unit.judging.test_verif_support import act, ctx, instance, traj, verdict

EDIT = {"old_string": "a", "new_string": "b"}
FILES = {"a.py": "x", "b.py": "y", "c.py": "z"}


def context(*messages, subagents=None):
    return ctx(traj(*messages, subagents=subagents), instance(files=dict(FILES)))


def test_tool_order_params_take_one_or_several_non_blank_names() -> None:
    assert ToolOrderParams(before="read", after=["edit", "write"]).before == ["read"]
    for bad in ([], [" "], "", [3]):
        with pytest.raises(ValidationError, match="give a tool role or name"):
            ToolOrderParams(before=bad, after="edit")
    assert ReadBeforeEditParams() == ReadBeforeEditParams(
        writes_count_as_edits=True, shell_reads=True, shell_edits=False
    )


def test_tool_order_counts_every_after_call_and_names_the_roles() -> None:
    trial = context(
        act("", "Read", file_path="a.py"),
        act("", "Edit", file_path="a.py", **EDIT),
        act("", "Edit", file_path="b.py", **EDIT),
    )
    outcome = verdict("tool_order", trial, before="read", after="edit")
    assert outcome.result == "pass"
    assert outcome.reasoning == "all 2 edit calls came after a read call"
    one = verdict("tool_order", trial, before=["read", "search"], after=["Edit", "write"])
    assert one.reasoning == "all 2 Edit / write calls came after a read / search call"
    writes = context(
        act("", "Read", file_path="a.py"), act("", "Write", file_path="d.py", content="")
    )
    single = verdict("tool_order", writes, before="read", after="write")
    assert single.reasoning == "all 1 write call came after a read call"
    none = verdict("tool_order", trial, before="read", after=["skill", "patch"])
    assert (none.result, none.reasoning) == ("n/a", "no skill / patch call was made")


def test_tool_order_fails_at_the_first_call_too_early() -> None:
    trial = context(
        act("", "Edit", file_path="a.py", **EDIT),
        act("", "Read", file_path="a.py"),
        act("", "Edit", file_path="b.py", **EDIT),
    )
    outcome = verdict("tool_order", trial, before="read", after="edit")
    assert (outcome.result, outcome.evidence) == ("fail", 0)
    assert outcome.reasoning == "message 0: Edit before any read call"


def test_with_the_same_path_only_an_earlier_call_on_that_file_counts() -> None:
    trial = context(
        act("", "Read", file_path="a.py"),
        act("", "Read", file_path="/work/b.py"),
        act("", "Edit", file_path="a.py", **EDIT),
        act("", "Edit", file_path="c.py", **EDIT),
    )
    outcome = verdict("tool_order", trial, before="read", after="edit", same_path=True)
    assert (outcome.result, outcome.evidence) == ("fail", 6)
    assert outcome.reasoning == "message 6: Edit on c.py before any read call on the same file"
    passing = context(act("", "Read", file_path="a.py"), act("", "Edit", file_path="a.py", **EDIT))
    assert (
        verdict("tool_order", passing, before="read", after="edit", same_path=True).result == "pass"
    )
    # a call without a path cannot be on the same file as anything
    pathless = context(act("", "Read", file_path="a.py"), act("", "Bash", command="ls"))
    outcome = verdict("tool_order", pathless, before="read", after="run", same_path=True)
    assert outcome.reasoning == "message 2: Bash before any read call on the same file"


def test_names_match_whatever_their_case_and_separators() -> None:
    trial = context(act("", "run_shell_command", command="ls"), act("", "Read", file_path="a.py"))
    assert verdict("tool_order", trial, before="RunShellCommand", after="read").result == "pass"
    assert verdict("tool_order", trial, before="READ", after="run").result == "fail"  # roles too


def test_read_before_edit_names_every_unread_file_once() -> None:
    trial = context(
        act("", "Edit", file_path="a.py", **EDIT),
        act("", "Edit", file_path="a.py", **EDIT),
        act("", "Edit", file_path="b.py", **EDIT),
        act("", "Write", file_path="c.py", content="new"),
    )
    outcome = verdict("read_before_edit", trial)
    assert (outcome.result, outcome.evidence) == ("fail", 0)
    assert outcome.reasoning == (
        "message 0: Edit changed a.py without reading it first; "
        "also unread before editing: b.py, c.py"
    )
    assert outcome.details["unread"] == ["a.py", "b.py", "c.py"]


def test_read_before_edit_passes_naming_the_edited_files() -> None:
    trial = context(
        act("", "Read", file_path="b.py"),
        act("", "Read", file_path="a.py"),
        act("", "Edit", file_path="b.py", **EDIT),
        act("", "Edit", file_path="a.py", **EDIT),
        act("", "Edit", file_path="b.py", **EDIT),
    )
    outcome = verdict("read_before_edit", trial)
    assert outcome.result == "pass"
    assert outcome.reasoning == "every edited file was read or created first: a.py, b.py"


def test_a_deleted_file_written_again_is_new() -> None:
    patch = "*** Begin Patch\n*** Delete File: a.py\n*** End Patch"
    trial = context(
        act("", "apply_patch", input=patch), act("", "Write", file_path="a.py", content="x")
    )
    assert verdict("read_before_edit", trial).result == "n/a"


def test_shell_edits_need_a_read_only_when_asked() -> None:
    trial = context(
        act("", "Bash", command="sed -i 's/x/y/' a.py"), act("", "Bash", command="echo z >> b.py")
    )
    assert verdict("read_before_edit", trial).result == "n/a"
    outcome = verdict("read_before_edit", trial, shell_edits=True)
    assert outcome.result == "fail" and outcome.details["unread"] == ["a.py", "b.py"]
    read_first = context(
        act("", "Bash", command="cat a.py"), act("", "Bash", command="sed -i 's/x/y/' a.py")
    )
    assert verdict("read_before_edit", read_first, shell_edits=True).result == "pass"
    # an edit by a file tool needs a read whatever shell_edits says
    tool_edit = context(act("", "Edit", file_path="a.py", **EDIT))
    assert verdict("read_before_edit", tool_edit, shell_edits=False).result == "fail"


def test_overwriting_by_shell_counts_as_an_edit_only_with_shell_edits() -> None:
    trial = context(act("", "Bash", command="echo new > a.py"))
    assert verdict("read_before_edit", trial, writes_count_as_edits=True).result == "n/a"
    assert verdict("read_before_edit", trial, shell_edits=True).result == "fail"
    by_tool = context(act("", "Write", file_path="a.py", content="x"))
    assert (
        verdict("read_before_edit", by_tool, shell_edits=True, writes_count_as_edits=False).result
        == "n/a"
    )


def test_shell_reads_count_only_when_asked_and_tool_reads_always() -> None:
    tool_read = context(
        act("", "Read", file_path="a.py"), act("", "Edit", file_path="a.py", **EDIT)
    )
    assert verdict("read_before_edit", tool_read, shell_reads=False).result == "pass"


def test_a_sub_agent_s_reads_and_edits_do_not_count() -> None:
    sub = traj(act("", "Read", file_path="a.py"), act("", "Edit", file_path="b.py", **EDIT))
    trial = context(act("", "Edit", file_path="a.py", **EDIT), subagents=[sub])
    outcome = verdict("read_before_edit", trial)
    assert outcome.result == "fail" and outcome.details["unread"] == ["a.py"]


def test_unread_files_are_listed_in_the_order_they_were_edited() -> None:
    trial = context(
        act("", "Edit", file_path="c.py", **EDIT),
        act("", "Edit", file_path="b.py", **EDIT),
        act("", "Edit", file_path="a.py", **EDIT),
    )
    outcome = verdict("read_before_edit", trial)
    assert outcome.details["unread"] == ["c.py", "b.py", "a.py"]
    assert outcome.reasoning.endswith("also unread before editing: b.py, a.py")


def test_edits_after_a_deletion_are_still_judged() -> None:
    patch = "*** Begin Patch\n*** Delete File: a.py\n*** End Patch"
    trial = context(act("", "apply_patch", input=patch), act("", "Edit", file_path="b.py", **EDIT))
    outcome = verdict("read_before_edit", trial)
    assert (outcome.result, outcome.details["unread"]) == ("fail", ["b.py"])
