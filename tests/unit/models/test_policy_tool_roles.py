"""Role matching on the tools six real agent CLIs offer (captured fixtures); argument building."""

import json
from pathlib import Path

import pytest

from adhere.core._chat import ToolSpec
from adhere.testing._tool_roles import build_arguments, match_roles, words
from adhere.wire._exchange import FREEFORM_KEY

FIXTURES = Path(__file__).parent / "fixtures"


def load_tools(cli):
    data = json.loads((FIXTURES / f"tools-{cli}.json").read_text())
    return tuple(ToolSpec(name=t["name"], parameters=t["parameters"]) for t in data["tools"])


# Which tool each CLI gets for each role (None: no tool plays it).
TABLE = {
    "claude-code": dict(read="Read", write="Write", edit="Edit", run="Bash", skill="Skill"),
    "kilo": dict(read="read", write="write", edit="edit", run="bash", skill="skill"),
    "droid": dict(read="Read", write="Create", edit="Edit", run="Execute", skill="Skill"),
    "codex": dict(run="exec_command", patch="apply_patch"),
    "codex-unknown-model": dict(run="exec_command"),
    "qwen-code": dict(
        read="read_file", write="write_file", edit="edit", run="run_shell_command", skill="skill"
    ),
    "gemini-cli": dict(
        read="read_file",
        write="write_file",
        edit="replace",
        run="run_shell_command",
        skill="activate_skill",
    ),
}


@pytest.mark.parametrize("cli", sorted(TABLE))
def test_roles_of_each_cli(cli):
    roles = match_roles(load_tools(cli))
    assert {role: found.tool.name for role, found in roles.items()} == TABLE[cli]


def test_slots_name_each_clis_parameters():
    slots = {
        cli: {r: dict(f.slots) for r, f in match_roles(load_tools(cli)).items()} for cli in TABLE
    }
    assert slots["kilo"]["edit"] == {"path": "filePath", "old": "oldString", "new": "newString"}
    assert slots["droid"]["edit"] == {"path": "file_path", "old": "old_str", "new": "new_str"}
    assert slots["codex"]["run"] == {"command": "cmd"}
    assert slots["gemini-cli"]["skill"] == {"skill": "name"}
    assert slots["claude-code"]["skill"] == {"skill": "skill"}


def test_required_parameters_are_filled_from_the_schema():
    droid = match_roles(load_tools("droid"))["run"]
    arguments = build_arguments(droid, {"command": "ls"}, directory="/w")
    assert arguments == {
        "command": "ls",
        "summary": "Run the requested command",  # fits Droid's pattern: capitalised, 4 words
        "riskLevelReason": "Run the requested command",
        "riskLevel": "low",  # first enum value
    }
    gemini = match_roles(load_tools("gemini-cli"))["edit"]
    arguments = build_arguments(gemini, {"path": "/w/a.md", "old": "x", "new": "y"})
    assert arguments["instruction"] == "Edit the requested file"
    assert arguments["old_string"] == "x" and arguments["file_path"] == "/w/a.md"
    claude = match_roles(load_tools("claude-code"))["read"]
    assert build_arguments(claude, {"path": "/w/a.md"}) == {"file_path": "/w/a.md"}


def test_freeform_patch_tool_takes_one_string():
    patch = match_roles(load_tools("codex"))["patch"]
    assert patch.freeform and FREEFORM_KEY in patch.tool.parameters
    assert build_arguments(patch, {"input": "*** Begin Patch"}) == {"input": "*** Begin Patch"}


def test_fillers_by_type_and_name():
    tool = ToolSpec(
        name="shell",
        parameters={
            "type": "object",
            "properties": {
                "command": {"type": "array", "items": {"type": "string"}},
                "workdir": {"type": "string"},
                "timeout_ms": {"type": "integer", "minimum": 1000},
                "limit": {"type": "integer", "exclusiveMinimum": 0},
                "login": {"type": ["boolean", "null"]},
                "env": {"type": "object"},
                "extra": {"type": "array"},
                "mode": {"type": "string", "default": "fast"},
                "kind": {"const": "x"},
            },
            "required": [
                "command",
                "workdir",
                "timeout_ms",
                "limit",
                "login",
                "env",
                "extra",
                "mode",
                "kind",
            ],
        },
    )
    found = match_roles([tool])["run"]
    assert build_arguments(found, {"command": "ls -la"}, directory="/w") == {
        "command": ["bash", "-lc", "ls -la"],
        "workdir": "/w",
        "timeout_ms": 1000,
        "limit": 1,
        "login": False,
        "env": {},
        "extra": [],
        "mode": "fast",
        "kind": "x",
    }
    assert build_arguments(found, {"command": "ls"})["workdir"] == "."


def spec(name, *params, required=None):
    properties = {param: {"type": "string"} for param in params}
    return ToolSpec(
        name=name,
        parameters={"type": "object", "properties": properties, "required": required or []},
    )


@pytest.mark.parametrize(
    ("tool", "role"),
    [
        (spec("BashOutput", "command"), None),
        (spec("KillShell", "command"), None),
        (spec("NotebookEdit", "notebook_path", "new_source"), None),
        (spec("view_image", "path"), None),
        (spec("read_many_files", "paths"), None),
        (spec("list_directory", "path"), None),
        (spec("read_background_output", "pid"), None),
        (spec("write_stdin", "chars"), None),
        (spec("create_goal", "objective"), None),
        (spec("Write", "file_path"), None),  # a writer needs a content parameter
        (spec("read", "file_path", "content"), None),  # a reader's name, a writer's shape
        (spec("str_replace_editor", "path", "old_str", "new_str"), "edit"),
        (spec("ReadFile", "absolute_path"), "read"),
        (spec("view", "path"), "read"),
        (spec("run_terminal_cmd", "command"), "run"),
        (spec("execute_bash", "cmd"), "run"),
        (spec("use_skill", "skill_name"), "skill"),
        (spec("create_file", "path", "file_text"), "write"),
    ],
)
def test_names_and_parameters_decide_the_role(tool, role):
    roles = match_roles([tool])
    assert [found for found in roles] == ([role] if role else [])


def test_exact_names_beat_word_matches_and_the_first_offered_wins():
    tools = [spec("read_text", "path"), spec("Read", "file_path"), spec("read", "path")]
    assert match_roles(tools)["read"].tool.name == "Read"


def test_name_words():
    assert words("run_shell_command") == ["run", "shell", "command"]
    assert words("ReadFile") == ["read", "file"]
    assert words("filePath") == ["file", "path"]
    assert words("HTTPServer-v2") == ["http", "server", "v", "2"]
