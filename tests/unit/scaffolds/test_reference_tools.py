"""The reference agent's tools with plain data: confinement, edits, skills, Bash."""

import os

import pytest

from adhere.scaffolds._reference import PREAMBLE, system_prompt
from adhere.scaffolds._reference_tools import Toolbox, ToolError, confine, edit_text, list_skills


@pytest.fixture
def work(tmp_path):
    root = tmp_path / "work"
    root.mkdir()
    (root / "a.txt").write_text("one\ntwo\nthree\n")
    return root


@pytest.fixture
def box(work, tmp_path):
    return Toolbox(work, tmp_path / "home", bash_timeout=5)


def test_confine_accepts_paths_inside(work):
    assert confine(work, "a.txt") == work.resolve() / "a.txt"
    assert confine(work, str(work / "sub" / "new.txt")) == work.resolve() / "sub" / "new.txt"
    assert confine(work, "sub/../a.txt") == work.resolve() / "a.txt"
    assert confine(work, ".") == work.resolve()


@pytest.mark.parametrize("path", ["../x.txt", "/etc/passwd", "sub/../../x", ""])
def test_confine_rejects_paths_outside(work, path):
    with pytest.raises(ToolError):
        confine(work, path)


def test_confine_resolves_symlinks(work, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    os.symlink(outside, work / "link.txt")
    with pytest.raises(ToolError, match="outside the workspace"):
        confine(work, "link.txt")


def test_edit_text_semantics():
    assert edit_text("a b a", "b", "c") == ("a c a", 1)
    assert edit_text("a b a", "a", "x", replace_all=True) == ("x b x", 2)
    with pytest.raises(ToolError, match="occurs 2 times"):
        edit_text("a b a", "a", "x")
    with pytest.raises(ToolError, match="not found"):
        edit_text("abc", "z", "y")
    with pytest.raises(ToolError, match="empty"):
        edit_text("abc", "", "y")
    with pytest.raises(ToolError, match="the same"):
        edit_text("abc", "b", "b")


async def test_read_write_edit(box, work):
    assert await box.call("Read", {"file_path": "a.txt"}, budget=10) == "one\ntwo\nthree\n"
    sliced = await box.call("Read", {"file_path": "a.txt", "offset": 2, "limit": 1}, budget=10)
    assert sliced == "two\n"
    written = await box.call("Write", {"file_path": "d/new.txt", "content": "héllo"}, budget=10)
    assert written == "Wrote 6 bytes to d/new.txt"
    assert (work / "d" / "new.txt").read_text() == "héllo"
    edited = await box.call(
        "Edit", {"file_path": "a.txt", "old_string": "two", "new_string": "2"}, budget=10
    )
    assert edited == "Replaced 1 occurrence(s) in a.txt"
    assert (work / "a.txt").read_text() == "one\n2\nthree\n"


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("Read", {"file_path": "missing.txt"}, "does not exist"),
        ("Read", {"file_path": "../outside.txt"}, "outside the workspace"),
        ("Read", {"file_path": "a.txt", "offset": 0}, "positive integer"),
        ("Read", {}, "'file_path' must be a string"),
        ("Write", {"file_path": "/tmp/x", "content": "x"}, "outside the workspace"),
        ("Edit", {"file_path": "a.txt", "old_string": "zzz", "new_string": "y"}, "not found"),
        ("Skill", {"name": "../etc"}, "invalid skill name"),
        ("Skill", {"name": "absent"}, "no skill named 'absent' (available: none)"),
        ("Fly", {}, "unknown tool 'Fly'"),
    ],
)
async def test_tool_errors_go_back_as_text(box, name, arguments, message):
    result = await box.call(name, arguments, budget=10)
    assert result.startswith("Error: ")
    assert message in result


async def test_skill_reads_skill_md_from_either_directory(box, work):
    (work / ".claude/skills/alpha").mkdir(parents=True)
    (work / ".claude/skills/alpha/SKILL.md").write_text("Alpha steps.")
    (work / "skills/beta").mkdir(parents=True)
    (work / "skills/beta/SKILL.md").write_text("Beta steps.")
    (work / "skills/alpha").mkdir(parents=True)
    (work / "skills/alpha/SKILL.md").write_text("Shadowed.")
    assert sorted(list_skills(work)) == ["alpha", "beta"]
    assert await box.call("Skill", {"name": "alpha"}, budget=10) == "Alpha steps."
    assert await box.call("Skill", {"name": "beta"}, budget=10) == "Beta steps."


async def test_bash_runs_a_separate_process_in_the_workspace(box, work, tmp_path, monkeypatch):
    monkeypatch.setenv("ADHERE_PARENT_SECRET", "leak")
    command = "pwd; echo $HOME; echo ${ADHERE_PARENT_SECRET:-none}; exit 4"
    result = await box.call("Bash", {"command": command}, budget=10)
    assert result == f"exit code: 4\n{work.resolve()}\n{tmp_path / 'home'}\nnone\n"
    both = await box.call("Bash", {"command": "echo out; echo err >&2"}, budget=10)
    assert both == "exit code: 0\nout\n\n[stderr]\nerr\n"


async def test_bash_timeout_is_capped_by_the_budget(box):
    result = await box.call("Bash", {"command": "sleep 30", "timeout": 60}, budget=0.5)
    assert result.startswith("Error: the command timed out after 0.5 s")


def test_system_prompt_lists_instructions_and_skills(work):
    (work / "AGENTS.md").write_text("Use tabs.\n")
    (work / "skills/beta").mkdir(parents=True)
    (work / "skills/beta/SKILL.md").write_text("Beta.")
    prompt = system_prompt(work, "Be brief.")
    assert prompt.split("\n\n") == [
        PREAMBLE,
        "Be brief.",
        "Project instructions from AGENTS.md:\nUse tabs.",
        "Skills available through the Skill tool: beta",
    ]
    assert system_prompt(work, "", preamble="", policy_files=()) == (
        "Skills available through the Skill tool: beta"
    )
