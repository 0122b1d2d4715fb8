"""Workspace paths and globs; which replies a check reads; code stripping and snippets."""

import dataclasses

import pytest

from adhere.core import ChatMessage
from adhere.judging.verifiers._paths import PathResolver, glob_match, matches_any, roots_of
from adhere.judging.verifiers._replies import replies, snippet, strip_code, turn_starts
from tests.unit.judging.test_verif_support import call, result, say, traj, user

W = "/srv/work/trial"


def test_paths_are_made_relative_to_the_longest_matching_root() -> None:
    resolver = PathResolver([W, "/srv/work", "/", "relative/root", " ", ""])
    assert resolver.roots == (W, "/srv/work")  # absolute, longest first, "/" never a root
    assert resolver.rel(f"{W}/src/a.py") == "src/a.py"
    assert resolver.rel("/srv/work/other.py") == "other.py"
    assert resolver.rel(W) == "."
    assert resolver.rel(f"{W}x/a.py") == "trialx/a.py"  # a sibling of W, inside /srv/work
    assert resolver.rel("/etc/hosts") == "/etc/hosts"


def test_paths_are_cleaned_before_comparing() -> None:
    resolver = PathResolver([f"file://{W}/"])
    assert resolver.roots == (W,)
    assert resolver.rel(f"file://{W}/a/../b.py") == "b.py"
    assert resolver.rel(f"  {W}\\\\sub\\\\c.py ") == "sub/c.py"
    assert resolver.rel("./d.py") == "d.py"
    assert resolver.rel("") == ""


def test_the_root_seen_most_often_is_inferred_from_known_files() -> None:
    named = [
        "/a/b/src/x.py",  # votes /a/b
        "/c/src/x.py",  # votes /c
        "/c/README.md",  # votes /c
        "/c/unknown.py",  # no vote: not a workspace file
        "src/x.py",  # relative: no vote
        "/src/x.py",  # a root would be "" (cut from the second part on): no vote
    ]
    resolver = PathResolver.infer(named, ["src/x.py", "README.md"])
    assert resolver.roots == ("/c",)
    # A tie goes to the root seen first; given roots come along, longest first.
    explicit = PathResolver.infer(named, ["src/x.py"], ["/given"])
    assert explicit.roots == ("/given", "/a/b")


def test_the_shortest_tail_that_is_a_known_file_decides_the_root() -> None:
    # "/w/src/a.py": tails "src/a.py" (known) is found before "a.py"; the root is /w.
    resolver = PathResolver.infer(["/w/src/a.py"], ["src/a.py", "a.py"])
    assert resolver.roots == ("/w",)


def test_roots_stated_outright() -> None:
    meta = {"workspace": "/m1", "workspace_path": "/m2", "cwd": "/m3", "workdir": "/m4", "x": "/no"}
    assert roots_of(meta, "/inst", "/abs") == ["/m1", "/m2", "/m3", "/m4", "/inst", "/abs"]
    assert roots_of({"cwd": 3}, None, 7) == []
    assert roots_of({}, "", "") == []


@pytest.mark.parametrize(
    ("path", "pattern", "hit"),
    [
        ("a.md", "*.md", True),
        ("docs/deep/a.md", "*.md", True),  # no "/": the name at any depth
        ("docs/a.md", "docs/*.md", True),
        ("docs/deep/a.md", "docs/*.md", False),  # "*" stays in one segment
        ("src/a/b/test_x.py", "src/**/test_*.py", True),
        ("src/test_x.py", "src/**/test_*.py", True),  # "**/" may match nothing
        ("srcx/test_x.py", "src/**/test_*.py", False),
        ("docs/a/b", "docs/**", True),
        ("tests/a/b.py", "tests/", True),  # a trailing "/" is everything under it
        ("tests", "tests/", False),
        ("a1.py", "a?.py", True),
        ("a12.py", "a?.py", False),
        ("a/b.py", "a?b.py", False),  # "?" is not "/"
        ("ab.py", "[ab]b.py", True),
        ("cb.py", "[!ab]b.py", True),
        ("ab.py", "[!ab]b.py", False),
        ("[]b.py", "[]b.py", True),  # "[" with no class after it is literal
        ("a]b.py", "a]b.py", True),
        ("a.py", "a.p", False),
        ("a+b.py", "a+b.py", True),  # regex characters are literal
        ("./docs/a.md", "docs/**", True),
    ],
)
def test_globs(path, pattern, hit) -> None:
    assert glob_match(path, pattern) is hit


def test_matches_any_names_the_first_pattern_that_matches() -> None:
    assert matches_any("docs/a.md", ["*.py", "docs/**", "*.md"]) == "docs/**"
    assert matches_any("a.txt", ["*.py"]) is None
    assert matches_any("a.txt", []) is None


def conversation():
    return traj(
        user("first task"),
        say("working"),
        say("done one"),
        user("<system-reminder>note</system-reminder>"),
        say("still one"),
        user("second task"),
        say("done two"),
        user("third task"),
    )


def texts(found):
    return [(r.index, r.text) for r in found]


def test_reply_scopes() -> None:
    trajectory = conversation()
    assert texts(replies(trajectory, "final")) == [(6, "done two")]
    assert [r.index for r in replies(trajectory, "all")] == [1, 2, 4, 6]
    assert replies(trajectory, "each") == replies(trajectory, "all")
    # the last reply before each real user turn (a reminder is no turn), and the last one
    assert texts(replies(trajectory, "final_per_turn")) == [(4, "still one"), (6, "done two")]
    by_text = replies(trajectory, "final_per_turn", turns=["first task", "second task"])
    assert texts(by_text) == [(4, "still one"), (6, "done two")]
    assert replies(traj(user("hi")), "final") == []


def test_turns_are_found_by_their_text_after_the_previous_one() -> None:
    messages = [
        ChatMessage(role="user", content="A: do x"),
        ChatMessage(role="assistant", content="ok"),
        ChatMessage(role="user", content="reminder mentioning B"),
        ChatMessage(role="user", content="B: now y"),
        ChatMessage(role="assistant", content="ok"),
        ChatMessage(role="user", content="B: now y"),
    ]
    assert turn_starts(messages, ["A: do x", "B: now y"]) == [0, 3]
    assert turn_starts(messages, ["A: do x", "B: now y", "B: now y"]) == [0, 3, 5]
    # a turn whose text is not found: fall back to user messages after assistant ones
    assert turn_starts(messages, ["A: do x", "never said"]) == [0, 2, 5]
    assert turn_starts(messages, ["A: do x", "  "]) == [0, 2, 5]
    assert turn_starts(messages, ["only one"]) == [0]
    assert turn_starts(messages) == [0, 2, 5]


def test_reasoning_is_part_of_a_reply_only_when_asked() -> None:
    trajectory = traj(
        say("", reasoning="thinking"), say("answer", reasoning="  "), say("x", reasoning="why")
    )
    assert texts(replies(trajectory)) == [(1, "answer"), (2, "x")]
    assert texts(replies(trajectory, include_reasoning=True)) == [
        (0, "thinking"),
        (1, "answer"),
        (2, "why\n\nx"),
    ]


def test_code_is_stripped_fenced_and_inline() -> None:
    text = "Intro `inline` text\n```python\ncode\n```\n~~~\nmore\n~~~\nOutro ``a ` b`` end"
    assert strip_code(text).split() == ["Intro", "text", "Outro", "end"]
    unclosed = "Before\n```\nnever closed"
    assert strip_code(unclosed).split() == ["Before"]
    assert strip_code("a `` b") == "a `` b"  # no code span without closing backticks


def test_snippets_are_one_line_and_cut_with_an_ellipsis() -> None:
    assert snippet("a\n  b\tc") == "a b c"
    exact = "x" * 80
    assert snippet(exact) == exact
    assert snippet(exact + "y") == "x" * 79 + "…"
    assert snippet("abcdef", limit=4) == "abc…"


def test_a_path_at_the_filesystem_root_votes_for_no_root() -> None:
    """``/src/x.py`` would put the workspace at ``""``: it casts no vote, so it cannot
    outvote a real root however often it is named."""
    named = ["/src/x.py", "/src/x.py", "/c/src/x.py"]
    assert PathResolver.infer(named, ["src/x.py"]).roots == ("/c",)


def test_each_named_path_votes_once_for_the_root_before_its_longest_known_tail() -> None:
    # /w/src/a.py votes /w (src/a.py is known), not also /w/src (a.py is known too);
    # /w/src/c.py votes /w/src (only c.py is known). A tie goes to the first seen.
    resolver = PathResolver.infer(["/w/src/a.py", "/w/src/c.py"], ["src/a.py", "a.py", "c.py"])
    assert resolver.roots == ("/w",)


@pytest.mark.parametrize(
    ("path", "pattern", "hit"),
    [
        ("readmd", "*.md", False),  # the character after "*" is matched, not skipped
        ("docs/a/b.md", "docs/**.md", True),
        ("docs/a/readtxt", "docs/**.txt", False),  # the character after "**" too
        ("x", "***/x", False),  # "**" then "*/x": a "/" is needed before x
        ("a/x", "***/x", True),
        ("aXbY.py", "a(b).py", False),  # punctuation is literal
        ("a(b).py", "a(b).py", True),
        ("a.py", "[a].py", True),  # a one-character class
        ("ab]c", "ab]c", True),  # a "]" after letters closes no class
        ("AB]C", "AB]C", True),
        ("!b.py", "[!xy]b.py", True),  # "!" negates; it is not in the class
        ("a" * 300, "a" * 300, True),  # long patterns are read to their end
    ],
)
def test_glob_characters_at_their_edges(path, pattern, hit) -> None:
    # Compiled patterns are cached: each pattern here is compiled by its own case first.
    assert glob_match(path, pattern) is hit


def test_a_reply_is_a_frozen_value() -> None:
    """Verifiers share the replies they are given; none can change another's."""
    reply = replies(traj(say("hi")))[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        reply.text = "changed"  # type: ignore[misc]
    assert hash(reply) == hash(dataclasses.replace(reply))


def test_one_answer_per_turn_for_one_turn_and_for_four() -> None:
    one = traj(user("only task"), say("working"), say("done"))
    assert texts(replies(one, "final_per_turn")) == [(2, "done")]
    four = traj(*(part for n in range(4) for part in (user(f"task {n}"), say(f"answer {n}"))))
    assert texts(replies(four, "final_per_turn")) == [(2 * n + 1, f"answer {n}") for n in range(4)]


def test_a_reply_opening_the_conversation_answers_the_first_turn() -> None:
    trajectory = traj(say("hello, how can I help?"), user("second task"), say("done"))
    assert texts(replies(trajectory, "final_per_turn")) == [
        (0, "hello, how can I help?"),
        (2, "done"),
    ]


def test_a_turn_may_follow_the_previous_turn_directly() -> None:
    messages = [
        ChatMessage(role="user", content="first"),
        ChatMessage(role="user", content="second"),
        ChatMessage(role="assistant", content="ok"),
    ]
    assert turn_starts(messages, ["first", "second"]) == [0, 1]


def test_a_turn_is_searched_after_the_previous_turn_s_message() -> None:
    # the second turn's text also appears in the first turn's message
    messages = [
        ChatMessage(role="user", content="write tests, then run tests"),
        ChatMessage(role="assistant", content="ok"),
        ChatMessage(role="user", content="run tests"),
    ]
    assert turn_starts(messages, ["write tests, then run tests", "run tests"]) == [0, 2]


def test_only_user_messages_start_turns() -> None:
    # found by text: an assistant quoting the next instruction is not that turn
    messages = [
        ChatMessage(role="user", content="first task"),
        ChatMessage(role="assistant", content="I will do the second task later"),
        ChatMessage(role="user", content="second task"),
    ]
    assert turn_starts(messages, ["first task", "second task"]) == [0, 2]
    # by the fallback: a tool result after an assistant message is no new turn
    called = call("Bash", command="ls")
    trajectory = traj(user("task"), say("", called), result(called, "a.py"), say("done"))
    assert turn_starts(trajectory.messages) == [0]
