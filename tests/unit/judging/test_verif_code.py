"""``code_rules`` at its edges: changed lines, function spans, exemptions, nesting depth,
which findings count as the trial's, ruff's findings, and what the verdict says."""

import dataclasses
import textwrap

import pytest
from pydantic import ValidationError

from adhere.judging.verifiers._code import CodeRulesParams, Violation, changed_lines, check_code
from adhere.judging.verifiers._ruff import Diagnostic, RuffOptions
from tests.unit.judging.test_verif_support import ctx, instance, say, traj, verdict


def code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def found(text: str, before: str | None = None, ruff=None, **rules) -> list[tuple[int, str, str]]:
    params = CodeRulesParams(only_changed=before is not None, **rules)
    old = {} if before is None else {"m.py": before}
    hits = check_code({"m.py": text}, old, params, ruff or (lambda files, options: []))
    return [(v.line, v.rule, v.message) for v in hits]


def test_params_bounds_and_defaults() -> None:
    with pytest.raises(ValidationError, match="give at least one rule"):
        CodeRulesParams()
    with pytest.raises(ValidationError):
        CodeRulesParams(max_function_lines=0)
    assert CodeRulesParams(max_function_lines=1).max_function_lines == 1
    with pytest.raises(ValidationError):
        CodeRulesParams(max_nesting=-1)
    assert CodeRulesParams(max_nesting=0).max_nesting == 0  # no nesting at all is a rule
    with pytest.raises(ValidationError):
        CodeRulesParams(no_print=True, ruff_timeout=0)
    defaults = CodeRulesParams(no_print=True)
    assert (defaults.ruff_preview, defaults.only_changed, defaults.ruff_timeout) == (
        False,
        True,
        60.0,
    )


def test_changed_lines_new_inserted_replaced_and_deleted() -> None:
    assert changed_lines(None, "a\nb\nc\n") == {1, 2, 3}
    assert changed_lines("a\nc\n", "a\nb\nc\n") == {2}  # inserted
    assert changed_lines("a\nb\nc\n", "a\nB\nc\n") == {2}  # replaced
    assert changed_lines("a\nb\nc\n", "a\nc\n") == {2}  # deleted: the line now in its place
    assert changed_lines("a\nb\nc\n", "a\nb\n") == {2}  # deleted at the end: the last line
    assert changed_lines("a\nb\n", "") == {1}
    assert changed_lines("a\nb\nc\nd\n", "a\nc\nd\n") == {2}
    assert changed_lines("a\nb\nc\nd\ne\n", "a\nb\nd\ne\n") == {3}
    assert changed_lines("a\nb\n", "a\nb\n") == set()


def test_changed_lines_of_long_repetitive_files_are_exact() -> None:
    """No junk heuristic: a one-line change in a long file of repeated lines is one line."""
    lines = ["def f():\n"] + ["    pass\n"] * 300
    before = "".join(lines)
    after = "".join([*lines[:151], "    x = 1\n", *lines[151:]])  # a line inserted as line 152
    assert changed_lines(before, after) == {152}


def test_a_function_is_as_long_as_its_lines_from_def_to_end() -> None:
    three = code(
        """
        @decorator
        def f():
            return 1
        """
    )  # decorators are not counted: def on line 2, end on line 3
    assert found(three, max_function_lines=1) == [
        (2, "max_function_lines", "f has 2 lines (limit 1)")
    ]
    assert found(three, max_function_lines=2) == []
    odd = "def g():\n    x = 1\n    return x\n"  # lines 1 to 3
    assert found(odd, max_function_lines=2) == [
        (1, "max_function_lines", "g has 3 lines (limit 2)")
    ]


def test_docstring_exemptions_private_nested_overloads_setters_deleters() -> None:
    source = code(
        '''
        from typing import overload

        class Box:
            @overload
            def get(self, x: int) -> int: ...
            @property
            def value(self) -> int:
                return 1
            @value.setter
            def value(self, v: int) -> None: ...
            @value.deleter
            def value(self) -> None: ...
            @staticmethod
            def make() -> None: ...
            def _hidden(self) -> None: ...

        def outer() -> None:
            """Doc."""
            def inner() -> None: ...
        '''
    )
    assert [m for _, _, m in found(source, require_docstrings=True)] == [
        "Box has no docstring",
        "value has no docstring",
        "make has no docstring",
    ]


def test_type_hints_exempt_only_the_first_parameter_of_methods() -> None:
    source = code(
        """
        class Box:
            def m(self, x) -> None: ...
            @classmethod
            def c(cls) -> None: ...
            @staticmethod
            def s(self) -> None: ...
            @timed
            def t(self) -> None: ...
            def __init__(self, y: int): ...
            def __call__(self): ...
            def Build(self): ...
            def method(self) -> None:
                def inner(self): ...

        def free(self) -> None: ...
        """
    )
    assert [m for _, _, m in found(source, require_type_hints=True)] == [
        "m lacks annotations for x",
        "s lacks annotations for self",
        "__call__ lacks annotations for return",
        "Build lacks annotations for return",
        "inner lacks annotations for self, return",
        "free lacks annotations for self",
    ]


def test_only_calls_of_print_itself_are_prints() -> None:
    source = "logger.print(1)\nlen([])\nsorted([])\nprint(2)\n"
    assert found(source, no_print=True) == [(4, "no_print", "print() call")]


def test_nesting_depth_counts_blocks_and_skips_nested_definitions() -> None:
    source = code(
        """
        def f(x):
            def helper():
                if x:
                    if x:
                        pass
            if x:
                pass
            else:
                if x:
                    pass
                x = 1
            try:
                pass
            except ValueError:
                with open(x):
                    pass
            match x:
                case 1:
                    for y in x:
                        pass
        """
    )
    # Deepest in f: 2 (else-block holding an if and more; except → with; case → for),
    # the first at line 9; helper's own 2 levels are measured on their own.
    assert found(source, max_nesting=1) == [
        (4, "max_nesting", "helper nests 2 deep (limit 1)"),
        (9, "max_nesting", "f nests 2 deep (limit 1)"),
    ]
    elif_chain = (
        "def g(x):\n    if x:\n        pass\n    elif x:\n        pass\n    elif x:\n        pass\n"
    )
    assert found(elif_chain, max_nesting=1) == []
    flat = "def h():\n    return 1\n"
    assert found(flat, max_nesting=0) == []


def test_a_file_that_does_not_parse_fails_and_the_others_are_still_checked() -> None:
    params = CodeRulesParams(no_print=True, only_changed=False)
    hits = check_code({"a.py": "x = 1\ny = (\n", "b.py": "print(1)\n"}, {}, params)
    assert [str(v) for v in hits] == [
        "a.py:2: syntax: does not parse: '(' was never closed",
        "b.py:1: no_print: print() call",
    ]
    null = check_code({"n.py": "\x00"}, {}, params)
    assert [(v.line, v.rule) for v in null] == [(0, "syntax")]


def test_ruff_options_and_which_findings_count() -> None:
    seen = []

    def ruff(files, options):
        seen.append(options)
        return [
            Diagnostic("ok.py", 1, 1, "syntax-error", "ruff thinks so"),
            Diagnostic("bad.py", 1, 1, "syntax-error", "duplicate of the parser's"),
            Diagnostic("bad.py", 1, 5, "W291", "trailing whitespace"),
            Diagnostic("ok.py", 2, 1, "E501", "line too long"),
            Diagnostic("ok.py", 1, 1, "F401", "unused"),
        ]

    params = CodeRulesParams(
        ruff_select=["E501", "F"], ruff_config={"z": 1, "a": "x"}, ruff_timeout=5
    )
    hits = check_code(
        {"ok.py": "import os\nx = 1\n", "bad.py": "def (\n"}, {"ok.py": "import os\n"}, params, ruff
    )
    assert [(v.path, v.line, v.rule) for v in hits] == [
        ("bad.py", 1, "ruff W291"),  # only ruff's syntax error repeats the parser's
        ("bad.py", 1, "syntax"),
        ("ok.py", 1, "ruff syntax-error"),  # kept: the parser accepted ok.py
        ("ok.py", 2, "ruff E501"),  # on a changed line; F401 on an unchanged one is not
    ]
    assert seen == [
        RuffOptions(select=("E501", "F"), preview=False, config=('a = "x"', "z = 1"), timeout=5)
    ]


def test_findings_count_where_the_trial_changed_the_definition() -> None:
    before = code(
        """
        def kept(a):
            if a:
                if a:
                    print(a)

        def changed(b):
            if b:
                if b:
                    pass
        """
    )
    after = before.replace("pass", "return b")  # line 9, inside changed()
    assert [(line, rule) for line, rule, _ in found(
        after, before, require_type_hints=True, no_print=True, max_nesting=1
    )] == [(6, "require_type_hints"), (8, "max_nesting")]  # fmt: skip


def test_the_verdict_names_five_violations_then_how_many_more() -> None:
    text = "".join(f"print({n})\n" for n in range(7))
    context = ctx(traj(say("Done."), files={"m.py": text}), instance(files={}))
    outcome = verdict("code_rules", context, no_print=True)
    assert outcome.result == "fail"
    assert (
        outcome.reasoning
        == "; ".join(f"m.py:{n}: no_print: print() call" for n in range(1, 6)) + "; and 2 more"
    )
    assert len(outcome.details["violations"]) == 7
    five = ctx(traj(say("Done."), files={"m.py": "print(1)\n" * 5}), instance(files={}))
    assert not verdict("code_rules", five, no_print=True).reasoning.endswith("more")
    six = ctx(traj(say("Done."), files={"m.py": "print(1)\n" * 6}), instance(files={}))
    assert verdict("code_rules", six, no_print=True).reasoning.endswith(
        "m.py:5: no_print: print() call; and 1 more"
    )


def test_the_verdict_names_the_files_checked_and_the_scope() -> None:
    files = {"b.py": "x = 1\n", "a.py": "y = 2\n", "notes.md": "print(1)"}
    context = ctx(traj(say("Done."), files=files), instance(files={}))
    outcome = verdict("code_rules", context, no_print=True)
    assert (outcome.result, outcome.reasoning) == (
        "pass",
        "no rule broken in a.py, b.py (changed code)",
    )
    whole = verdict("code_rules", context, no_print=True, only_changed=False)
    assert whole.reasoning == "no rule broken in a.py, b.py"


def test_a_violation_reads_as_path_line_rule_message() -> None:
    violation = Violation("m.py", 3, "no_print", "print() call")
    assert str(violation) == "m.py:3: no_print: print() call"
    with pytest.raises(dataclasses.FrozenInstanceError):
        violation.line = 4  # type: ignore[misc]


def test_the_first_statement_at_the_deepest_level_is_cited() -> None:
    siblings = (
        "def f(a):\n    if a:\n        if a:\n            pass\n        if a:\n            pass\n"
    )
    assert found(siblings, max_nesting=1) == [(3, "max_nesting", "f nests 2 deep (limit 1)")]
    blocks = code(
        """
        def g(a):
            try:
                if a:
                    pass
            except E:
                if a:
                    pass
        """
    )
    assert found(blocks, max_nesting=1) == [(3, "max_nesting", "g nests 2 deep (limit 1)")]


def test_nesting_belongs_to_the_innermost_function_holding_it() -> None:
    before = code(
        """
        def outer(a):
            x = 1
            def inner(b):
                if b:
                    if b:
                        pass
            return inner
        """
    )
    after = before.replace("x = 1", "x = 2")  # outer changed, inner not
    assert found(after, before, max_nesting=1) == []
    assert found(after, max_nesting=1) == [(5, "max_nesting", "inner nests 2 deep (limit 1)")]
