"""Reading shell commands: splitting, quoting, heredocs, redirections, wrappers, inner scripts."""

import dataclasses

import pytest

from adhere.judging.verifiers._shell import (
    SimpleCommand,
    command_value,
    file_effects,
    parse_command,
    program,
)


def argvs(text: str) -> list[list[str]]:
    return [list(c.argv) for c in parse_command(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a; b && c || d | e & f", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]),
        ("a\nb\n\nc", [["a"], ["b"], ["c"]]),
        ("case x in a) b;; esac", [["case", "x", "in", "a)", "b"], ["esac"]]),
        ("echo 'a; b' \"c && d\"", [["echo", "a; b", "c && d"]]),
        ('echo "say \\"hi\\"; ok"', [["echo", 'say "hi"; ok']]),
        ("echo a\\;b", [["echo", "a;b"]]),
        ("echo a \\\n  b", [["echo", "a", "b"]]),  # backslash-newline continues the line
        ("# only a comment\nls # trailing comment", [["ls"]]),
        ("echo a#b", [["echo", "a#b"]]),  # "#" inside a word is no comment
        ("ls 2>&1 | grep x", [["ls"], ["grep", "x"]]),
        ("ls &> log", [["ls"]]),
        ("ls >| out; pwd", [["ls"], ["pwd"]]),  # ">|" clobbers, it is no pipe
        ("echo 'unclosed", [["echo", "'unclosed"]]),
    ],
)
def test_commands_are_split_where_a_shell_would(text, expected) -> None:
    assert argvs(text) == expected


def test_heredoc_bodies_stay_with_their_command_and_are_never_commands() -> None:
    text = "cat <<EOF > a.txt\nrm -rf /\nEOF\nls"
    commands = parse_command(text)
    assert [list(c.argv) for c in commands] == [["cat"], ["ls"]]
    assert commands[0].heredoc == "rm -rf /" and commands[0].writes == ("a.txt",)
    two = parse_command("paste <<'A' <<\"B\"\none\nA\ntwo\nB\necho done")
    assert [c.heredoc for c in two] == ["one\ntwo", ""]
    tabs = parse_command("cat <<-END\n\tkept\n\tEND\nls")
    assert tabs[0].heredoc == "\tkept" and [c.argv for c in tabs][1] == ("ls",)
    # a here-string ("<<<") has no body to read: the next line is a command
    assert [c.heredoc for c in parse_command("cat <<< x\npwd")] == ["", ""]
    unterminated = parse_command("cat <<EOF\nline\nmore")
    assert unterminated[0].heredoc == "line\nmore" and len(unterminated) == 1


@pytest.mark.parametrize(
    ("text", "argv", "writes"),
    [
        ("echo x > out.txt", ["echo", "x"], ["out.txt"]),
        ("echo x >out.txt", ["echo", "x"], ["out.txt"]),
        ("echo x >> log", ["echo", "x"], ["log"]),
        ("cmd 2> err.log", ["cmd"], ["err.log"]),
        ("cmd &> all.log", ["cmd"], ["all.log"]),
        ("cmd >| forced", ["cmd"], ["forced"]),
        ("cmd < in.txt", ["cmd"], []),
        ("cmd > /dev/null 2>&1", ["cmd"], []),
        ("cmd >&2", ["cmd"], []),
        ("cmd >", ["cmd"], []),
        ("cmd 3> three", ["cmd"], ["three"]),
    ],
)
def test_redirections_are_set_aside_and_output_files_recorded(text, argv, writes) -> None:
    (command,) = parse_command(text)
    assert list(command.argv) == argv and list(command.writes) == writes


@pytest.mark.parametrize(
    ("text", "argv", "wrapped"),
    [
        ("FOO=1 BAR=x pytest -q", ["pytest", "-q"], []),
        ("sudo -E env A=1 pytest", ["pytest"], ["sudo", "env"]),
        ("/usr/bin/time nice -n nohup make", ["make"], ["time", "nice", "nohup"]),
        ("timeout 60 pytest", ["pytest"], ["timeout"]),
        ("timeout --preserve-status 60 pytest", ["pytest"], ["timeout"]),
        ("command exec stdbuf -oL ls", ["ls"], ["command", "exec", "stdbuf"]),
        ("A=1", [], []),
    ],
)
def test_assignments_and_wrappers_are_set_aside(text, argv, wrapped) -> None:
    commands = parse_command(text)
    if not argv:
        assert commands == []
        return
    (command,) = commands
    assert list(command.argv) == argv and list(command.wrapped) == wrapped


def test_shell_scripts_and_eval_are_opened() -> None:
    commands = parse_command("bash -lc 'cd repo && git reset --hard'")
    assert [(list(c.argv), c.depth, c.opens_script) for c in commands] == [
        (["bash", "-lc", "cd repo && git reset --hard"], 0, True),
        (["cd", "repo"], 1, False),
        (["git", "reset", "--hard"], 1, False),
    ]
    assert argvs("sh --login -c 'ls'")[1:] == [["ls"]]
    assert argvs('eval "rm -rf build"') == [["eval", "rm -rf build"], ["rm", "-rf", "build"]]
    assert [c.opens_script for c in parse_command("eval")] == [False]
    assert [c.opens_script for c in parse_command("bash script.sh -c x")] == [False]
    assert [c.opens_script for c in parse_command("bash -c")] == [False]
    assert [c.opens_script for c in parse_command("python -c 'print(1)'")] == [False]
    assert [c.opens_script for c in parse_command("zsh --norc")] == [False]


def test_shells_are_opened_five_levels_deep_at_most() -> None:
    nested = 'sh -c "sh -c \\"sh -c \'sh -c ls\'\\""'
    depths = [c.depth for c in parse_command(nested)]
    assert depths == [0, 1, 2, 3, 4]
    deep = "ls"
    for _ in range(6):
        deep = "eval " + deep
    found = parse_command(deep)
    assert [c.depth for c in found] == [0, 1, 2, 3, 4, 5]
    assert found[-1].opens_script is False and list(found[-1].argv) == ["eval", "ls"]


def test_command_values_from_strings_and_argv_arrays() -> None:
    keys = ("command", "cmd")
    assert command_value({"command": "ls -la"}, keys) == "ls -la"
    assert command_value({"command": "  ", "cmd": ["bash", "-lc", "a && b"]}, keys) == (
        "bash -lc 'a && b'"
    )
    assert command_value({"cmd": ["ls", 3]}, keys) is None
    assert command_value({"cmd": []}, keys) is None
    assert command_value("ls", keys) is None
    assert command_value({"other": "ls"}, keys) is None


def test_the_program_is_the_first_word_s_base_name() -> None:
    assert program(("/usr/bin/git", "status")) == "git"
    assert program(()) == ""


def effects(text: str) -> tuple[list[str], list[str]]:
    (command,) = parse_command(text)
    return file_effects(command)


@pytest.mark.parametrize(
    ("text", "reads", "writes"),
    [
        ("cat a.py b.py", ["a.py", "b.py"], []),
        ("head -n 20 a.py", ["a.py"], []),
        ("tail -c 100 --lines 5 log", ["log"], []),
        ("tail -f +5 log -", ["log"], []),
        ("less -N a", ["a"], []),
        ("nl a", ["a"], []),
        ("batcat a", ["a"], []),
        ("sed -n '1,5p' a.py", ["a.py"], []),
        ("sed -e 's/a/b/' -e 's/c/d/' a.py", ["a.py"], []),
        ("sed -f script.sed a.py", ["a.py"], []),
        ("sed -i 's/a/b/' a.py b.py", [], ["a.py", "b.py"]),
        ("sed -i.bak 's/a/b/' a.py", [], ["a.py"]),
        ("sed --in-place=.bak -e 's/a/b/' a.py", [], ["a.py"]),
        ("sed -l 5 's/a/b/' a.py", ["a.py"], []),
        ("tee -a log.txt", [], ["log.txt"]),
        ("touch a b", [], ["a", "b"]),
        ("cp -r src dst", [], ["dst"]),
        ("mv a b c/", [], ["c/"]),
        ("cp only", [], []),
        ("cat a > b", ["a"], ["b"]),
        ("grep x a.py", [], []),
    ],
)
def test_files_a_command_reads_and_writes(text, reads, writes) -> None:
    assert effects(text) == (reads, writes)


def test_a_simple_command_reads_as_its_words() -> None:
    command = SimpleCommand(("git", "commit", "-m", "a  b"), "git commit -m 'a  b'")
    assert command.text == "git commit -m a  b"
    assert (command.writes, command.heredoc, command.depth, command.wrapped) == ((), "", 0, ())
    assert command.opens_script is False


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A=1; ls", [["ls"]]),  # a piece of assignments only is no command; later ones count
        ("a;b", [["a"], ["b"]]),  # an operator right before a word takes none of it
        ("a&&b", [["a"], ["b"]]),
        ('echo "a\\";b"', [["echo", 'a";b']]),  # \" does not close a double quote
        ('echo "a"; c', [["echo", "a"], ["c"]]),  # other characters escape nothing
        ("echo 'a\\';b", [["echo", "a\\"], ["b"]]),  # in single quotes \ is literal
        ('echo "a\\', [["echo", '"a\\']]),  # a backslash ending the text, quoted
        ("echo a\\", [["echo", "a\\"]]),  # and unquoted
        ("echo a\\;", [["echo", "a;"]]),  # an escaped operator at the very end
        ("echo a\\\tb", [["echo", "a\tb"]]),  # an escaped tab is no line continuation
        ("echo a\tb", [["echo", "a", "b"]]),  # a tab separates words, not commands
        ("ls # c\npwd", [["ls"], ["pwd"]]),  # a comment ends at its line
        ("ls # a\tb\npwd", [["ls"], ["pwd"]]),  # tabs inside it included
        ("echo a\\ #b", [["echo", "a #b"]]),  # after an escaped space "#" is in the word
        ("echo a\\  #b", [["echo", "a "]]),  # after a plain space it starts a comment
        ("echo a\\ ", [["echo", "a "]]),  # an escaped space ending the text is kept
        ("echo a\\ ; ls", [["echo", "a "], ["ls"]]),  # and before an operator
        ('cat <<<"a;b"', [["cat"]]),  # a here-string's quoted word
        ("timeout", []),  # wrappers with nothing to wrap
        ("timeout -k", []),
        ("sudo", []),
    ],
)
def test_splitting_at_the_edges(text, expected) -> None:
    assert argvs(text) == expected


def test_a_redirection_takes_only_its_own_target() -> None:
    (command,) = parse_command("cmd >out arg")
    assert (list(command.argv), list(command.writes)) == (["cmd", "arg"], ["out"])


def test_heredocs_at_their_edges() -> None:
    # without "-", a tab-indented delimiter is body text
    commands = parse_command("cat <<EOF\n\tEOF\nEOF\nls")
    assert [(list(c.argv), c.heredoc) for c in commands] == [(["cat"], "\tEOF"), (["ls"], "")]
    # the command keeps its "<<EOF" as written; an unterminated body ends with the text
    for text in ("cat <<EOF\nabc", "cat <<EOF\nabc\n"):
        (command,) = parse_command(text)
        assert (command.raw, command.heredoc) == ("cat <<EOF", "abc"), text


def test_operands_starting_with_punctuation_are_files() -> None:
    assert effects("cat '(notes).txt'") == (["(notes).txt"], [])


def test_a_simple_command_is_a_frozen_value() -> None:
    (command,) = parse_command("ls")
    with pytest.raises(dataclasses.FrozenInstanceError):
        command.raw = "pwd"  # type: ignore[misc]
    assert hash(command) == hash(dataclasses.replace(command))
