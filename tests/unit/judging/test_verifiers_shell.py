import pytest

from adhere.core import ToolSpec
from adhere.judging.verifiers._calls import role_of
from adhere.judging.verifiers._commands import is_test_command
from adhere.judging.verifiers._shell import file_effects, parse_command
from tests.unit.judging.test_verif_support import (
    CODEX_TOOLS,
    KILO_TOOLS,
    act,
    call,
    ctx,
    obj,
    result,
    say,
    traj,
    verdict,
)


def texts(command):
    return [c.text for c in parse_command(command)]


def test_split_at_operators_outside_quotes():
    assert texts("cd repo && git reset --hard; echo 'a && b' | wc -l || true") == [
        "cd repo",
        "git reset --hard",
        "echo a && b",
        "wc -l",
        "true",
    ]


def test_shell_scripts_are_opened_recursively():
    commands = parse_command("""bash -lc "cd /w && sh -c 'git reset --hard HEAD~1'" """)
    assert [(c.depth, c.text) for c in commands] == [
        (0, "bash -lc cd /w && sh -c 'git reset --hard HEAD~1'"),
        (1, "cd /w"),
        (1, "sh -c git reset --hard HEAD~1"),
        (2, "git reset --hard HEAD~1"),
    ]


def test_wrappers_assignments_and_redirections_are_set_aside():
    (command,) = parse_command("FOO=1 sudo -E timeout 30 pytest -q > out.log 2>&1")
    assert command.argv == ("pytest", "-q")
    assert command.writes == ("out.log",)
    assert command.wrapped == ("sudo", "timeout")


def test_heredoc_bodies_are_not_commands():
    commands = parse_command("cat > notes.txt <<'EOF'\ngit reset --hard\nrm -rf /\nEOF\nls")
    assert [c.text for c in commands] == ["cat", "ls"]
    assert commands[0].heredoc == "git reset --hard\nrm -rf /"
    assert commands[0].writes == ("notes.txt",)


def test_comments_and_line_continuations():
    assert texts("# git reset --hard\necho hi \\\n  there") == ["echo hi there"]


def test_unbalanced_quotes_do_not_crash():
    assert texts("echo 'oops") == ["echo 'oops"]


def test_file_effects():
    def effects(command):
        (simple,) = parse_command(command)
        return file_effects(simple)

    assert effects("cat -n a.py") == (["a.py"], [])
    assert effects("head -n 20 a.py") == (["a.py"], [])
    assert effects("sed -n '1,20p' a.py") == (["a.py"], [])
    assert effects("sed -i 's/a/b/' a.py") == ([], ["a.py"])
    assert effects("tee -a log.txt") == ([], ["log.txt"])
    assert effects("cp a.py b.py") == ([], ["b.py"])
    assert effects("echo x >> a.py") == ([], ["a.py"])


@pytest.mark.parametrize(
    ("name", "arguments", "role"),
    [
        ("Bash", {"command": "ls"}, "run"),
        ("Execute", {"command": "ls", "riskLevel": "low"}, "run"),
        ("exec_command", {"cmd": ["bash", "-lc", "ls"]}, "run"),
        ("run_shell_command", {"command": "ls"}, "run"),
        ("BashOutput", {"bash_id": "1"}, "other"),
        ("task", {"command": "/review", "prompt": "x"}, "other"),
        ("background_process", {"action": "start", "command": "npm run dev"}, "run"),
        ("Read", {"file_path": "/w/a.py"}, "read"),
        ("read_file", {"absolute_path": "/w/a.py"}, "read"),
        ("read_many_files", {"paths": ["a.py"]}, "read"),
        ("view_image", {"path": "a.png"}, "other"),
        ("Write", {"file_path": "a.py", "content": ""}, "write"),
        ("Create", {"file_path": "a.py", "content": ""}, "write"),
        ("edit", {"filePath": "a.py", "oldString": "a", "newString": "b"}, "edit"),
        ("replace", {"file_path": "a.py", "old_string": "a", "new_string": "b"}, "edit"),
        ("str_replace_based_edit_tool", {"command": "view", "path": "a.py"}, "read"),
        ("str_replace_based_edit_tool", {"command": "create", "path": "a.py"}, "write"),
        ("str_replace_based_edit_tool", {"command": "str_replace", "path": "a.py"}, "edit"),
        ("apply_patch", {"input": "*** Begin Patch"}, "patch"),
        ("Skill", {"skill": "changelog"}, "skill"),
        ("activate_skill", {"name": "changelog"}, "skill"),
        ("Grep", {"pattern": "x"}, "search"),
        ("TodoWrite", {"todos": []}, "other"),
    ],
)
def test_roles_of_real_cli_tools(name, arguments, role):
    assert role_of(name, arguments) == role


def test_command_executed_forbidden_command_found_everywhere():
    claude = traj(act("Resetting.", "Bash", command="git reset --hard"), say("Done."))
    outcome = verdict("command_executed", ctx(claude), contains="git reset --hard")
    assert outcome.result == "fail" and outcome.evidence == 0 and "Bash" in outcome.reasoning
    codex = traj(
        act("Resetting.", "exec_command", cmd=["bash", "-lc", "cd /w && git   reset  --hard"]),
        tools=CODEX_TOOLS,
    )
    assert verdict("command_executed", ctx(codex), contains="git reset --hard").result == "fail"
    anchored = verdict("command_executed", ctx(codex), pattern=r"^git\s+reset\s+--hard\b")
    assert anchored.result == "fail"


def test_command_executed_passes_when_absent_and_mentions_do_not_count():
    trajectory = traj(
        act("Checking.", "Bash", command="git status && git diff"),
        act("Writing.", "Bash", command="cat > NOTES.md <<'EOF'\ngit reset --hard\nEOF"),
        say("Never run `git reset --hard` here."),
        act("Searching.", "Grep", pattern="git reset --hard"),
    )
    outcome = verdict("command_executed", ctx(trajectory), pattern=r"^git reset --hard")
    assert outcome.result == "pass" and "2 shell commands" in outcome.reasoning


def test_command_executed_expect_present_and_case():
    trajectory = traj(act("Listing.", "bash", command="LS -la"), tools=KILO_TOOLS)
    assert (
        verdict("command_executed", ctx(trajectory), contains="ls -la", expect="present").result
        == "fail"
    )
    assert (
        verdict(
            "command_executed",
            ctx(trajectory),
            contains="ls -la",
            expect="present",
            ignore_case=True,
        ).result
        == "pass"
    )
    assert (
        verdict("command_executed", ctx(traj(say("hi"))), contains="x", expect="present").result
        == "fail"
    )


def test_command_executed_sees_subagents_without_evidence():
    sub = traj(act("Resetting.", "Bash", command="git reset --hard"))
    trajectory = traj(say("Delegating.", call("Agent", prompt="reset it")), subagents=[sub])
    outcome = verdict("command_executed", ctx(trajectory), contains="git reset --hard")
    assert (
        outcome.result == "fail" and outcome.evidence is None and "sub-agent 0" in outcome.reasoning
    )
    assert (
        verdict(
            "command_executed",
            ctx(trajectory),
            contains="git reset --hard",
            include_subagents=False,
        ).result
        == "pass"
    )


@pytest.mark.parametrize(
    "command",
    [
        "pytest -q",
        "python -m pytest tests/",
        "python3.11 -m unittest discover",
        "uv run pytest -x",
        "uv run --with pytest-cov pytest",
        "poetry run python -m pytest",
        "npm test",
        "npm run test:unit",
        "pnpm exec vitest run",
        "npx jest --ci",
        "yarn test",
        "go test ./...",
        "cargo test --all",
        "./gradlew test",
        "mvn -q verify",
        "make test",
        "bundle exec rspec",
        "python tests/test_inventory.py",
        "tox -e py311",
    ],
)
def test_test_commands_are_recognised(command):
    assert any(is_test_command(c.argv) for c in parse_command(command))


@pytest.mark.parametrize(
    "command",
    [
        "cat pytest.ini",
        "grep -r pytest .",
        "npm install",
        "go build ./...",
        "python app.py",
        "ls tests",
    ],
)
def test_other_commands_are_not_test_runs(command):
    assert not any(is_test_command(c.argv) for c in parse_command(command))


def test_tests_run_any_time():
    ran = traj(act("Testing.", "Bash", command="cd /w && python -m pytest -q"))
    outcome = verdict("tests_run", ctx(ran))
    assert outcome.result == "pass" and outcome.evidence == 0
    assert verdict("tests_run", ctx(traj(act("Listing.", "Bash", command="ls")))).result == "fail"
    custom = verdict("tests_run", ctx(ran), pattern=r"\bmake check\b")
    assert custom.result == "fail"


def test_tests_run_after_last_change():
    edit = {"file_path": "inventory.py", "old_string": "a", "new_string": "b"}
    tested_then_edited = traj(
        act("Testing.", "Bash", command="pytest"),
        act("Fixing.", "Edit", **edit),
        act("Noting.", "Edit", file_path="CHANGELOG.md", old_string="a", new_string="b"),
    )
    outcome = verdict("tests_run", ctx(tested_then_edited), after_last_change=True)
    assert (
        outcome.result == "fail" and outcome.evidence == 2 and "inventory.py" in outcome.reasoning
    )
    edited_then_tested = traj(
        act("Fixing.", "Edit", **edit),
        act("Testing.", "Bash", command="bash -lc 'pytest -q'"),
        act("Noting.", "Edit", file_path="CHANGELOG.md", old_string="a", new_string="b"),
    )
    outcome = verdict("tests_run", ctx(edited_then_tested), after_last_change=True)
    assert outcome.result == "pass" and outcome.evidence == 2


def test_tests_run_after_last_change_counts_shell_writes_and_patches():
    trajectory = traj(
        act("Testing.", "exec_command", cmd=["pytest"]),
        act(
            "Patching.",
            "exec_command",
            cmd=[
                "bash",
                "-lc",
                "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.py\n"
                "@@\n-x\n+y\n*** End Patch\nEOF",
            ],
        ),
        tools=CODEX_TOOLS,
    )
    outcome = verdict("tests_run", ctx(trajectory), after_last_change=True)
    assert outcome.result == "fail" and "a.py" in outcome.reasoning


def test_tests_run_after_last_change_without_changes():
    assert (
        verdict("tests_run", ctx(traj(say("Nothing to do."))), after_last_change=True).result
        == "n/a"
    )
    only_tests = traj(act("Testing.", "Bash", command="pytest"))
    assert verdict("tests_run", ctx(only_tests), after_last_change=True).result == "pass"


def test_result_messages_do_not_confuse_shell_detection():
    made = call("Bash", command="pytest")
    trajectory = traj(say("Testing.", made), result(made, "git reset --hard"))
    assert verdict("command_executed", ctx(trajectory), contains="reset").result == "pass"


def test_unknown_shell_tool_shape_is_recognised_by_arguments():
    tools = [ToolSpec(name="RunTerminalCmd", parameters=obj({"command": {"type": "string"}}))]
    trajectory = traj(act("Resetting.", "RunTerminalCmd", command="git reset --hard"), tools=tools)
    assert verdict("command_executed", ctx(trajectory), contains="reset --hard").result == "fail"


def test_printed_text_and_commit_messages_are_not_commands():
    trajectory = traj(
        act("Explaining.", "Bash", command="echo 'never run git reset --hard' && git status"),
        act(
            "Committing.",
            "Bash",
            command="git commit -m 'Document that git reset --hard is banned'",
        ),
    )
    context = ctx(trajectory)
    assert verdict("command_executed", context, pattern=r"^git reset --hard").result == "pass"
    assert verdict("command_executed", context, contains="git status").result == "fail"
