"""Reading agent conversations: turns, requests, working directories, tool results, skills."""

import json
from pathlib import Path

import pytest

from adhere.core._chat import ChatMessage, ToolCall, ToolSpec
from adhere.testing._agent_context import (
    current_turn,
    file_lines,
    mentioned_file,
    resolve_path,
    strip_wrappers,
    working_directory,
)
from adhere.testing._agent_skills import choose_skill, listed_skills, skill_file
from adhere.wire import Conversation

FIXTURES = Path(__file__).parent / "fixtures"


def conv(*messages, system=""):
    return Conversation(
        model="agent", policy="agent", options={}, system=system, messages=tuple(messages)
    )


def user(text):
    return ChatMessage(role="user", content=text)


def assistant(text="", *calls):
    return ChatMessage(role="assistant", content=text, tool_calls=calls)


def call(ident="c1", name="Read"):
    return ToolCall(id=ident, name=name, arguments={})


def tool(text, ident="c1"):
    return ChatMessage(role="tool", content=text, tool_call_id=ident)


def test_turn_of_a_fresh_request_strips_the_wrappers():
    reminder = "<system-reminder>\nContents of CLAUDE.md: use notes.txt\n</system-reminder>\n\n"
    turn = current_turn(conv(user(reminder + "Read `src/app.py` please")))
    assert turn.request == "Read `src/app.py` please"
    assert turn.steps == () and turn.results == ()


def test_reminders_between_tool_results_do_not_start_a_turn():
    turn = current_turn(
        conv(
            user("Edit README.md"),
            assistant("Reading.", call()),
            tool("1\t# Title"),
            user("<system-reminder>Todo list is empty</system-reminder>"),
        )
    )
    assert turn.request == "Edit README.md"
    assert len(turn.steps) == 1 and turn.results == (("1\t# Title",),)


def test_a_canned_opening_exchange_and_a_finished_loop_start_new_turns():
    # Qwen Code: context, "Got it.", then the request.
    opening = conv(user("This is the Qwen Code. Context…"), assistant("Got it."), user("Run ls"))
    assert current_turn(opening).request == "Run ls"
    second = conv(
        user("Read a.md"),
        assistant("Reading.", call()),
        tool("x"),
        assistant("The first line of a.md is: x"),
        user("<environment_details>cwd</environment_details>"),
        user("Now read b.md"),
    )
    turn = current_turn(second)
    assert turn.request == "Now read b.md" and turn.steps == ()


def test_wrappers_of_each_cli_are_removed():
    text = (
        "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nUse x.py\n</INSTRUCTIONS>\n"
        "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>\n"
        "<session_context>tree: a.py</session_context>\n"
        '<system-reminder data="1">see b.py</system-reminder>\n'
        "<environment_details>\nWorking directory: /w\n</environment_details>\nhello"
    )
    assert strip_wrappers(text) == "hello"


@pytest.mark.parametrize(
    "cli",
    ["claude-code", "codex", "droid", "gemini-cli", "kilo", "qwen-code"],
)
def test_working_directory_in_each_clis_words(cli):
    excerpt = json.loads((FIXTURES / f"tools-{cli}.json").read_text())["cwd_excerpt"]
    assert working_directory(conv(user(excerpt))) == "/tmp/policy-probe/work"
    assert working_directory(conv(user("hi"), system=excerpt)) == "/tmp/policy-probe/work"


def test_no_working_directory():
    assert working_directory(conv(user("hello"))) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Read README.md and tell me its first line", "README.md"),
        ("Please look at `src/app.py`, not docs/other.md", "src/app.py"),
        ("fix the bug in /abs/path/main.rs.", "/abs/path/main.rs"),
        ("see ./notes/todo.txt?", "./notes/todo.txt"),
        ("version 2.1.197 of https://example.com/x and me@example.com", None),
        ("nothing here", None),
        ("`ls -la` then edit pkg/mod.go", "pkg/mod.go"),
    ],
)
def test_mentioned_file(text, expected):
    assert mentioned_file(text) == expected


def test_resolve_path():
    assert resolve_path("README.md", "/w") == "/w/README.md"
    assert resolve_path("./a/../b.py", "/w") == "/w/b.py"
    assert resolve_path("/abs.txt", "/w") == "/abs.txt"
    assert resolve_path("README.md", None) == "README.md"


@pytest.mark.parametrize(
    ("result", "first"),
    [
        ("1\t# Probe\n2\t\n3\tText\n4\t", "# Probe"),  # Claude Code
        ("     1→# Probe\n     2→Text", "# Probe"),
        (
            "<path>/w/README.md</path>\n<type>file</type>\n<content>\n1: # Probe\n2: \n"
            "3: Text\n\n(End of file - total 3 lines)\n</content>",
            "# Probe",
        ),  # Kilo
        ("<file>\n00001| # Probe\n00002| Text\n</file>", "# Probe"),
        ("# Probe\n\nText\n", "# Probe"),  # Droid, Qwen Code, Gemini CLI
        (
            "Chunk ID: 8f\nWall time: 0.0 seconds\nProcess exited with code 0\n"
            "Original token count: 12\nOutput:\n# Probe\n\nText\n",
            "# Probe",
        ),  # Codex exec_command
        ("Command: ls\nDirectory: (root)\nOutput: a.md  b.md\nExit Code: 0", "a.md  b.md"),
        ("<untrusted_context>\nOutput: a.md\nb.md\n</untrusted_context>", "a.md"),
        ('{"output": "# Probe\\nText", "metadata": {"exit_code": 0}}', "# Probe"),
        ("# Title\nOutput: is not a preamble here\n", "# Title"),
        ("42\nfoo", "42"),
        ("", None),
    ],
)
def test_file_lines_of_each_result_shape(result, first):
    lines = file_lines(result)
    assert (lines[0] if lines else None) == first


CLAUDE_SKILLS = (
    "The following skills are available for use with the Skill tool:\n\n"
    "- greeting: Greets the user politely.\n- deep-research: Research harness.\n\nMore text."
)
DROID_SKILLS = (
    "<system-reminder>\nAvailable skills (invoke by exact name when its description matches):\n"
    "greeting: Greets the user politely.\nagent-browser: Automates browsers.\n</system-reminder>"
)
CODEX_SKILLS = (
    "## Skills\n### Skill roots\n- `r0` = `/w/.codex/skills`\n- `r2` = `/w/.agents/skills`\n"
    "### Available skills\n- imagegen: Make images. (file: r1/imagegen/SKILL.md)\n"
    "- greeting: Greets the user politely. (file: r2/greeting/SKILL.md)\n"
    "### How to use skills\n- Discovery: The list above is the skills available here."
)
BLOCK_SKILLS = (
    "Use the skill tool.\n<available_skills>\n  <skill>\n    <name>\n greeting\n</name>\n"
    "    <location>/w/.kilocode/skills/greeting/SKILL.md</location>\n  </skill>\n"
    "  <skill><name>kilo-config</name></skill>\n</available_skills>"
)


@pytest.mark.parametrize(
    ("text", "names"),
    [
        (CLAUDE_SKILLS, ["greeting", "deep-research"]),
        (DROID_SKILLS, ["greeting", "agent-browser"]),
        (CODEX_SKILLS, ["imagegen", "greeting"]),
        (BLOCK_SKILLS, ["greeting", "kilo-config"]),
        ("No skills are available.", []),
    ],
)
def test_listed_skills_in_each_shape(text, names):
    assert listed_skills(text) == names


def test_choose_skill_prefers_the_request_then_the_first_listed():
    tools = [
        ToolSpec(
            name="activate_skill",
            parameters={"properties": {"name": {"type": "string", "enum": ["creator", "pdf"]}}},
        )
    ]
    listed = conv(user("hello"), system=CODEX_SKILLS)
    assert choose_skill(listed, "Use the pdf skill", tools) == "pdf"
    assert choose_skill(listed, "please run skill named x-ray now", tools) == "x-ray"
    assert choose_skill(listed, "greet me with /greeting", tools) == "greeting"
    assert choose_skill(listed, "hello", tools) == "imagegen"
    assert choose_skill(conv(user("hello")), "hello", tools) == "creator"
    assert choose_skill(conv(user("hello")), "hello", []) is None


def test_skill_file_expands_codex_roots_and_finds_absolute_locations():
    assert skill_file(conv(user("x"), system=CODEX_SKILLS), "greeting") == (
        "/w/.agents/skills/greeting/SKILL.md"
    )
    assert skill_file(conv(user(BLOCK_SKILLS)), "greeting") == (
        "/w/.kilocode/skills/greeting/SKILL.md"
    )
    assert skill_file(conv(user(CODEX_SKILLS)), "imagegen") is None  # root r1 is not listed
    assert skill_file(conv(user("x")), "greeting") is None
