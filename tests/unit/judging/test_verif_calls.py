"""Tool calls and their roles, whatever the CLI names its tools; paths named by calls and patches.

The expectations are the role table of ``adhere.judging.verifiers._calls``'s contract,
checked with the tool names real agent CLIs use.
"""

import dataclasses

import pytest

from adhere.core import ChatMessage, ToolCall
from adhere.judging.verifiers._calls import (
    Call,
    call_paths,
    calls,
    name_key,
    patch_actions,
    role_of,
)
from tests.unit.judging.test_verif_support import call, say, traj

CMD = {"command": "ls"}
PATH = {"path": "a.py"}


@pytest.mark.parametrize(
    "name",
    [
        "Bash", "bash", "shell", "sh", "Execute", "exec", "exec_command", "run_shell_command",
        "shell_command", "run_command", "execute_command", "terminal", "run_terminal_cmd",
        "run_in_terminal", "local_shell", "PowerShell", "bash_tool", "ExecuteShell",
    ],
)  # fmt: skip
def test_shell_tools_with_a_command_run(name) -> None:
    assert role_of(name, CMD) == "run"
    assert role_of(name, {"cmd": ["bash", "-lc", "ls"]}) == "run"
    assert role_of(name, {"description": "no command"}) == "other"
    assert role_of(name, {"command": 3}) == "other"  # a command is a string or a list


@pytest.mark.parametrize(
    "name", ["BashOutput", "KillShell", "shell_stop", "exec_status", "read_terminal", "list_shells"]
)
def test_tools_about_a_shell_that_run_nothing_are_other(name) -> None:
    assert role_of(name, CMD) == "other"


@pytest.mark.parametrize(
    ("name", "role"),
    [
        ("Read", "read"), ("read_file", "read"), ("view", "read"), ("view_file", "read"),
        ("cat", "read"), ("open_file", "read"), ("read_text_file", "read"), ("ReadNotes", "read"),
        ("Write", "write"), ("write_file", "write"), ("create", "write"), ("create_file", "write"),
        ("write_to_file", "write"), ("save_file", "write"), ("write_new_file", "write"),
        ("Edit", "edit"), ("edit_file", "edit"), ("replace", "edit"), ("replace_in_file", "edit"),
        ("str_replace", "edit"), ("search_replace", "edit"), ("search_and_replace", "edit"),
        ("apply_diff", "edit"), ("MultiEdit", "edit"), ("NotebookEdit", "edit"),
        ("smart_edit", "edit"),
    ],
)  # fmt: skip
def test_file_tools_with_a_path_read_write_or_edit(name, role) -> None:
    assert role_of(name, PATH) == role
    # Without a path, no file action (a name with the word "search" is then a search).
    alone = "search" if "search" in name else "other"
    assert role_of(name, {"content": "x"}) == alone


@pytest.mark.parametrize(
    "key", ["file_path", "filePath", "path", "absolute_path", "target_file", "file", "filename",
            "notebook_path", "target_path", "full_path", "relative_path", "paths", "file_paths",
            "files"],
)  # fmt: skip
def test_every_path_argument_makes_a_file_tool_a_file_action(key) -> None:
    assert role_of("Read", {key: "a.py"}) == "read"


@pytest.mark.parametrize(
    "name",
    ["read_dir", "ReadDirectory", "read_image", "web_read", "read_url", "read_output",
     "read_board", "read_memory", "TodoRead", "read_todos", "read_mcp_resource",
     "recall_read", "read_background"],
)  # fmt: skip
def test_reading_what_is_no_workspace_file_is_other(name) -> None:
    assert role_of(name, PATH) == "other"


@pytest.mark.parametrize(
    ("name", "role"),
    [
        ("write_todos", "other"), ("write_stdin", "other"), ("write_memory", "other"),
        ("board_write", "other"), ("write_plan", "other"), ("write_notes", "other"),
        ("edit_todo", "other"), ("edit_plan", "other"), ("edit_config", "other"),
        ("edit_image", "other"),
    ],
)  # fmt: skip
def test_writes_and_edits_of_no_workspace_file_are_other(name, role) -> None:
    """A write by name needs the word file (or an exact write tool) to be a file write."""
    assert role_of(name, PATH) == role


@pytest.mark.parametrize(
    ("name", "arguments", "role"),
    [
        ("apply_patch", {"input": "x"}, "patch"),
        ("patch", {"patch": "x"}, "patch"),
        ("Skill", {"skill": "s"}, "skill"),
        ("use_skill", {"name": "s"}, "skill"),
        ("load_skill", {"name": "s"}, "skill"),
        ("SlashCommand", {"command": "/x"}, "skill"),
        ("list_skills", {}, "other"),
        ("skill_creator", {}, "other"),
        ("install_skill", {}, "other"),
        ("create_skill", {}, "other"),
        ("Glob", {"pattern": "*"}, "search"),
        ("LS", PATH, "search"),
        ("find", {}, "search"),
        ("grep_search", {}, "search"),
        ("glob_search", {}, "search"),
        ("search_files", {}, "search"),
        ("find_files", {}, "search"),
        ("list_directory", PATH, "search"),
        ("listdir", {}, "search"),
        ("list_files", {}, "search"),
        ("codebase_search", {}, "search"),
        ("ripgrep", {}, "search"),
        ("search_web", {}, "other"),
        ("background_process", {"command": "npm run dev"}, "run"),
        ("process", {"command": "npm run dev"}, "run"),
        ("background_process", {"cmd": "npm run dev"}, "other"),
        ("background_task", {"prompt": "x"}, "other"),
    ],
)
def test_patches_skills_searches_and_background_processes(name, arguments, role) -> None:
    assert role_of(name, arguments) == role


@pytest.mark.parametrize(
    ("name", "command", "role"),
    [
        ("str_replace_based_edit_tool", "view", "read"),
        ("str_replace_editor", "create", "write"),
        ("text_editor", "str_replace", "edit"),
        ("editor", "insert", "edit"),
        ("editor", "write", "edit"),  # any command but view and create edits
        ("editor", "append", "edit"),
        ("editor", "VIEW", "read"),
        ("file_editor", "view", "read"),  # the word editor, a command and a path
        ("file_editor", "create", "write"),
    ],
)
def test_editor_tools_play_the_role_of_their_command(name, command, role) -> None:
    assert role_of(name, {"command": command, "path": "a.py"}) == role


def test_a_word_editor_without_a_command_or_a_path_is_no_editor() -> None:
    assert role_of("file_editor", {"command": "view"}) == "other"
    assert role_of("file_editor", {"path": "a.py"}) == "other"
    assert role_of("file_editor_tool", {"command": "create", "path": "a.py"}) == "write"


def test_names_become_one_lower_case_word() -> None:
    assert name_key("run_shell_command") == name_key("RunShellCommand") == "runshellcommand"
    assert name_key("HTTPServer2") == "httpserver2"


def test_calls_are_listed_in_order_main_conversation_first() -> None:
    a, b, c = call("Read", path="a.py"), call("Bash", command="ls"), call("Read", path="c.py")
    sub = traj(say("", c))
    trajectory = traj(
        ChatMessage(role="user", content="go", tool_calls=[call("Bash", command="rm -rf /")]),
        say("", a, b),
        subagents=[sub],
    )
    found = calls(trajectory, subagents=True)
    assert [(x.name, x.index, x.subagent, x.order) for x in found] == [
        ("Read", 1, None, 0),
        ("Bash", 1, None, 1),
        ("Read", 0, 0, 2),
    ]
    assert [x.role for x in found] == ["read", "run", "read"]
    assert (found[0].where, found[0].evidence) == ("message 1", 1)
    assert (found[2].where, found[2].evidence) == ("sub-agent 0, message 0", None)
    assert [x.name for x in calls(trajectory)] == ["Read", "Bash"]  # sub-agents when asked


def test_a_call_is_a_value_in_order_zero_unless_listed() -> None:
    made = Call(0, "Read", {"path": "a"}, "id", "read")
    assert (made.order, made.subagent) == (0, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.role = "edit"  # type: ignore[misc]


def test_call_paths_read_every_path_argument_and_skip_blanks_and_non_strings() -> None:
    made = Call(
        0,
        "Read",
        {
            "filePath": "a.py",
            "target_file": " ",
            "paths": ["b.py", 3, "", "c.py"],
            "files": "not-a-list.py",
            "path": None,
            "other": "z.py",
        },
        "id",
        "read",
    )
    assert call_paths(made) == ["a.py", "b.py", "c.py"]
    patch = Call(0, "apply_patch", {"input": "*** Add File: n.py\n+x\n"}, "id", "patch")
    assert call_paths(patch) == ["n.py"]


def test_patch_envelopes_add_update_delete_and_move() -> None:
    envelope = (
        "*** Begin Patch\n*** Add File: new.py\n+x\n*** Update File: old.py  \n"
        "*** Move to: moved.py\n@@\n-a\n+b\n*** Delete File: gone.py\n*** End Patch\n"
    )
    assert patch_actions(envelope) == [
        ("write", "new.py"),
        ("edit", "old.py"),
        ("delete", "gone.py"),
        ("write", "moved.py"),
    ]


def test_unified_diffs_add_change_and_delete_files() -> None:
    diff = (
        "--- a/old.py\t2024-01-01\n+++ b/old.py\t2024-01-02\n@@ -1 +1 @@\n-a\n+b\n"
        "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+x\n"
        "--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-y\n"
        "--- plain.py\n+++ plain.py\n"
    )
    assert patch_actions(diff) == [
        ("edit", "old.py"),
        ("write", "new.py"),
        ("delete", "gone.py"),
        ("edit", "plain.py"),
    ]
    assert patch_actions("no patch here") == []


def test_a_tool_message_s_calls_are_not_the_agent_s() -> None:
    made = ToolCall(id="t1", name="Bash", arguments={"command": "ls"})
    trajectory = traj(ChatMessage(role="tool", content="x", tool_call_id="t0", tool_calls=[made]))
    assert calls(trajectory) == []
