"""What a trial did, as the verifiers see it: shell runs and the files each call touched."""

import dataclasses

import pytest

from adhere.core import Trajectory
from adhere.judging.verifiers._activity import FileAction, describe, trial_activity
from tests.unit.judging.test_verif_support import CODEX_TOOLS, act, call, ctx, say, traj

PATCH = "*** Begin Patch\n*** Add File: new.py\n+x\n*** Update File: old.py\n@@\n-a\n+b\n"
PATCH += "*** Delete File: gone.py\n*** End Patch\n"


def actions(trajectory: Trajectory, **kwargs) -> list[tuple[str, str, bool]]:
    activity = trial_activity(ctx(trajectory), **kwargs)
    return [(a.kind, a.path, a.via_shell) for a in activity.files]


def test_describe_lists_up_to_five_paths_then_how_many_more() -> None:
    paths = [f"f{n}.py" for n in range(8)]
    assert describe([]) == ""
    assert describe(paths[:1]) == "f0.py"
    assert describe(paths[:5]) == "f0.py, f1.py, f2.py, f3.py, f4.py"
    assert describe(paths[:6]) == "f0.py, f1.py, f2.py, f3.py, f4.py and 1 more"
    assert describe(paths) == "f0.py, f1.py, f2.py, f3.py, f4.py and 3 more"
    assert describe(paths[:3], limit=2) == "f0.py, f1.py and 1 more"
    eleven = [f"g{n}.py" for n in range(11)]
    assert describe(eleven).endswith("g4.py and 6 more")


def test_file_tools_read_write_and_edit_not_through_a_shell() -> None:
    trajectory = traj(
        act("", "Read", file_path="a.py"),
        act("", "Write", file_path="b.py", content="x"),
        act("", "Edit", file_path="c.py", old_string="a", new_string="b"),
        act("", "str_replace_based_edit_tool", command="view", path="d.py"),
        act("", "str_replace_based_edit_tool", command="create", path="e.py", file_text="x"),
        act("", "str_replace_based_edit_tool", command="str_replace", path="f.py"),
    )
    assert actions(trajectory) == [
        ("read", "a.py", False),
        ("write", "b.py", False),
        ("edit", "c.py", False),
        ("read", "d.py", False),
        ("write", "e.py", False),
        ("edit", "f.py", False),
    ]
    # An editor tool's "command" argument is an editor command, not a shell command.
    assert trial_activity(ctx(trajectory)).shell == ()


def test_a_patch_tool_adds_changes_and_deletes_files() -> None:
    trajectory = traj(act("", "apply_patch", input=PATCH), tools=CODEX_TOOLS)
    assert actions(trajectory) == [
        ("write", "new.py", False),
        ("edit", "old.py", False),
        ("delete", "gone.py", False),
    ]


def test_a_tool_that_is_no_file_tool_touches_no_file_whatever_its_text() -> None:
    trajectory = traj(act("", "TodoWrite", todos=PATCH), act("", "Grep", pattern=PATCH))
    assert actions(trajectory) == []


def test_shell_commands_read_and_write_files_and_patch_through_heredocs() -> None:
    heredoc = f"apply_patch <<'EOF'\n{PATCH}EOF"
    envelope_only = "cat <<'EOF' | patcher\n*** Begin Patch\n*** Add File: via.py\n+x\nEOF"
    plain = "cat <<'EOF' > notes.txt\n*** Add File: not-a-patch.py\nEOF"
    other = "ansible <<'EOF'\n*** Add File: not-either.py\nEOF"  # no patch program
    trajectory = traj(
        act("", "Bash", command="cat a.py | head -3 > top.txt"),
        act("", "Bash", command=heredoc),
        act("", "Bash", command=envelope_only),
        act("", "Bash", command=plain),
        act("", "Bash", command=other),
    )
    assert actions(trajectory) == [
        ("read", "a.py", True),
        ("write", "top.txt", True),
        ("write", "new.py", True),
        ("edit", "old.py", True),
        ("delete", "gone.py", True),
        ("write", "via.py", True),  # a patch envelope in any heredoc
        ("write", "notes.txt", True),  # a heredoc that is no patch: only the redirection
    ]


def test_a_shell_run_is_matched_by_its_commands_not_by_what_only_prints() -> None:
    trajectory = traj(
        act("", "Bash", command='bash -c "pytest -q" && echo done'),
        act("", "Bash", command="printf '%s' x > out.txt; ruff check ."),
        act("", "Bash", command="echo only"),
    )
    runs = trial_activity(ctx(trajectory)).shell
    # The shell whose script was read is replaced by that script's commands.
    assert runs[0].texts() == ["pytest -q"]
    assert runs[1].texts() == ["ruff check ."]
    assert runs[2].texts() == []  # prints only
    assert [r.text for r in runs] == [
        'bash -c "pytest -q" && echo done',
        "printf '%s' x > out.txt; ruff check .",
        "echo only",
    ]


def test_sub_agents_calls_count_only_when_asked() -> None:
    sub = traj(act("", "Read", file_path="sub.py"))
    trajectory = traj(act("", "Read", file_path="main.py"), subagents=[sub])
    assert actions(trajectory) == [("read", "main.py", False)]
    assert actions(trajectory, subagents=True) == [
        ("read", "main.py", False),
        ("read", "sub.py", False),
    ]
    activity = trial_activity(ctx(trajectory), subagents=True)
    assert [activity.position(c) for c in activity.calls] == [0, 1]


def test_activity_records_are_values() -> None:
    made = call("Read", file_path="a.py")
    activity = trial_activity(ctx(traj(say("", made))))
    (action,) = activity.files
    assert action == FileAction("read", "a.py", activity.calls[0])  # not via a shell by default
    for value, field in ((action, "path"), (activity, "files")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, field, None)
    shell = trial_activity(ctx(traj(act("", "Bash", command="ls")))).shell[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        shell.text = ""  # type: ignore[misc]
