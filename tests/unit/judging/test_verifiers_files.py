import subprocess
import textwrap

import pytest

from adhere.judging.verifiers._code import CodeRulesParams, changed_lines, check_code
from adhere.judging.verifiers._paths import glob_match
from adhere.judging.verifiers._ruff import Diagnostic, RuffOptions, find_ruff, run_ruff
from tests.unit.judging.test_verif_support import ROOT, act, ctx, instance, say, traj, verdict

BASE = {
    "inventory.py": "x = 1\n",
    "tests/test_inventory.py": "def test(): pass\n",
    "README.md": "#",
}


def changed(files=None, deleted=(), **kwargs):
    return ctx(
        traj(say("Done."), files=files or {}, meta={"deleted_files": list(deleted)}, **kwargs),
        instance(files=dict(BASE)),
    )


@pytest.mark.parametrize(
    ("path", "pattern", "hit"),
    [
        ("a/b/c.py", "*.py", True),
        ("c.py", "*.py", True),
        ("a/b/c.py", "a/*.py", False),
        ("a/b/c.py", "a/**/*.py", True),
        ("a/c.py", "a/**/*.py", True),
        ("tests/x/y.txt", "tests/", True),
        ("tests", "tests/", False),
        ("src/test_a.py", "src/test_?.py", True),
        ("src/test_ab.py", "src/test_[!a]b.py", False),
        ("docs/a.md", "docs/**", True),
        ("./docs/a.md", "docs/**", True),
    ],
)
def test_globs(path, pattern, hit):
    assert glob_match(path, pattern) is hit


# --- file_rules ------------------------------------------------------------------------


def test_file_rules_allowed_and_forbidden():
    context = changed({"inventory.py": "x = 2\n", "tests/test_inventory.py": "changed"})
    outcome = verdict("file_rules", context, forbidden_globs=["tests/**"])
    assert outcome.result == "fail" and "tests/test_inventory.py" in outcome.reasoning
    assert verdict("file_rules", context, allowed_globs=["*.py"]).result == "pass"
    assert verdict("file_rules", context, allowed_globs=["inventory.py"]).result == "fail"


def test_file_rules_deletions_count_as_changes():
    context = changed(deleted=["tests/test_inventory.py"])
    assert verdict("file_rules", context, forbidden_globs=["tests/"]).result == "fail"
    assert (
        verdict("file_rules", context, must_not_exist=["tests/test_inventory.py"]).result == "pass"
    )


def test_file_rules_existence():
    context = changed({"docs/guide.md": "# Guide"})
    assert verdict("file_rules", context, must_exist=["docs/*.md", "inventory.py"]).result == "pass"
    outcome = verdict("file_rules", context, must_exist=["CHANGELOG.md"])
    assert outcome.result == "fail" and "CHANGELOG.md" in outcome.reasoning
    assert verdict("file_rules", context, must_not_exist=["README.md"]).result == "fail"


def test_file_rules_name_pattern_applies_to_new_files_only():
    context = changed(
        {"inventory.py": "x = 2\n", "tests/test_totals.py": "", "tests/TotalsTest.py": ""}
    )
    outcome = verdict("file_rules", context, name_pattern=r"test_[a-z_]+\.py")
    assert outcome.result == "fail" and "TotalsTest.py" in outcome.reasoning
    assert verdict("file_rules", changed({"inventory.py": "y"}), name_pattern="x").result == "n/a"


def test_file_rules_nothing_changed_respects_the_rules_and_ignores_cli_state():
    assert verdict("file_rules", changed(), forbidden_globs=["tests/**"]).result == "pass"
    kilo = changed({".kilocode/.gitignore": "*", "inventory.py": "y"})
    assert verdict("file_rules", kilo, allowed_globs=["inventory.py"]).result == "pass"
    assert (
        verdict("file_rules", kilo, allowed_globs=["inventory.py"], ignore_globs=[]).result
        == "fail"
    )


def test_file_rules_evidence_points_at_the_writing_call():
    trajectory = traj(
        act("Reading.", "Read", file_path="inventory.py"),
        act("Writing.", "Write", file_path=f"{ROOT}/tests/test_new.py", content=""),
        files={"tests/test_new.py": ""},
    )
    outcome = verdict(
        "file_rules", ctx(trajectory, instance(files=dict(BASE))), forbidden_globs=["tests/**"]
    )
    assert outcome.result == "fail" and outcome.evidence == 2


# --- memory_updated --------------------------------------------------------------------


def test_memory_updated_default_patterns():
    assert verdict("memory_updated", changed({"MEMORY.md": "- prefers French"})).result == "pass"
    assert verdict("memory_updated", changed({"memory-bank/progress.md": "x"})).result == "pass"
    assert verdict("memory_updated", changed({".claude/memory/notes.md": "x"})).result == "pass"
    assert verdict("memory_updated", changed({"src/memory/pool.py": "x"})).result == "fail"
    assert verdict("memory_updated", changed({"inventory.py": "x"})).result == "fail"


def test_memory_updated_paths_contents_and_absence():
    context = changed({"NOTES.md": "Decided: keep utils.py"})
    assert verdict("memory_updated", context, paths=["NOTES.md"]).result == "pass"
    assert (
        verdict("memory_updated", context, paths=["NOTES.md"], contains="utils\\.py").result
        == "pass"
    )
    assert (
        verdict("memory_updated", context, paths=["NOTES.md"], contains="French").result == "fail"
    )
    assert verdict("memory_updated", context, expect="absent").result == "pass"
    assert verdict("memory_updated", context, paths=["NOTES.md"], expect="absent").result == "fail"


# --- code_rules (pure part) -------------------------------------------------------------

SOURCE = textwrap.dedent(
    '''
    """Module."""


    def documented(a: int) -> int:
        """Doc."""
        return a


    def bare(a, *args, **kwargs):
        print(a)
        for x in args:
            if x:
                while x:
                    if x > 1:
                        x -= 1
                    elif x:
                        x = 0
        return a


    class Thing:
        def method(self, b: int) -> None:
            """Doc."""

        def _private(self):
            pass

        @property
        def value(self) -> int:
            """Doc."""
            return 1

        @value.setter
        def value(self, v: int) -> None:
            pass


    def outer() -> None:
        """Doc."""

        def inner(z):
            return z
    '''
).lstrip()


def rules(**kwargs):
    return CodeRulesParams(only_changed=False, **kwargs)


def no_ruff(files, options):
    raise AssertionError("ruff must not run without ruff_select")


def test_ast_rules_find_each_violation():
    found = check_code({"m.py": SOURCE}, {}, rules(require_docstrings=True), no_ruff)
    assert [v.message for v in found] == ["bare has no docstring", "Thing has no docstring"]
    found = check_code({"m.py": SOURCE}, {}, rules(require_type_hints=True), no_ruff)
    assert [v.message for v in found] == [
        "bare lacks annotations for a, *args, **kwargs, return",
        "_private lacks annotations for return",
        "inner lacks annotations for z, return",
    ]
    found = check_code({"m.py": SOURCE}, {}, rules(no_print=True), no_ruff)
    assert [(v.line, v.rule) for v in found] == [(10, "no_print")]
    found = check_code({"m.py": SOURCE}, {}, rules(max_nesting=3), no_ruff)
    assert [v.message for v in found] == ["bare nests 4 deep (limit 3)"]
    assert not check_code({"m.py": SOURCE}, {}, rules(max_nesting=4), no_ruff)
    found = check_code({"m.py": SOURCE}, {}, rules(max_function_lines=5), no_ruff)
    assert [v.message for v in found] == ["bare has 10 lines (limit 5)"]


def test_syntax_errors_fail():
    found = check_code({"m.py": "def broken(:\n"}, {}, rules(no_print=True), no_ruff)
    assert [v.rule for v in found] == ["syntax"]


def test_only_changed_code_is_held_to_the_rules():
    before = "def old(a):\n    print(a)\n"
    after = before + "\n\ndef new(b: int) -> int:\n    print(b)\n    return b\n"
    assert changed_lines(before, after) == {3, 4, 5, 6, 7}
    strict = CodeRulesParams(require_type_hints=True, no_print=True)
    found = check_code({"m.py": after}, {"m.py": before}, strict, no_ruff)
    assert [(v.line, v.rule) for v in found] == [(6, "no_print")]
    everything = check_code(
        {"m.py": after}, {"m.py": before}, rules(require_type_hints=True), no_ruff
    )
    assert [v.message for v in everything] == ["old lacks annotations for a, return"]


def test_ruff_findings_are_mapped_and_filtered_to_changed_lines():
    seen = {}

    def fake(files, options):
        seen["files"], seen["options"] = dict(files), options
        return [
            Diagnostic("m.py", 1, 1, "F401", "`os` imported but unused"),
            Diagnostic("m.py", 3, 1, "E501", "Line too long"),
        ]

    params = CodeRulesParams(
        ruff_select=["F", "E501"], ruff_preview=True, ruff_config={"line-length": 79}
    )
    found = check_code(
        {"m.py": "import os\nx = 1\ny = 2\n"}, {"m.py": "import os\nx = 1\n"}, params, fake
    )
    assert [(v.line, v.rule) for v in found] == [(3, "ruff E501")]
    assert seen["options"] == RuffOptions(
        select=("F", "E501"), preview=True, config=("line-length = 79",), timeout=60.0
    )


def test_code_rules_verifier_na_and_fail():
    assert verdict("code_rules", changed({"README.md": "x"}), no_print=True).result == "n/a"
    context = changed({"inventory.py": "x = 1\nprint(x)\n", "gone.py": "y"}, deleted=["gone.py"])
    outcome = verdict("code_rules", context, no_print=True)
    assert outcome.result == "fail" and "inventory.py:2" in outcome.reasoning
    assert verdict("code_rules", context, no_print=True, globs=["tests/**"]).result == "n/a"


# --- code_rules with the real ruff -----------------------------------------------------


def test_real_ruff_runs_over_a_temporary_copy():
    files = {"pkg/mod.py": "import os\n\n\ndef f(x):\n    return x\n", "bad.py": "def broken(:\n"}
    found = run_ruff(files, RuffOptions(select=("F401", "ANN001")))
    assert {(d.path, d.code) for d in found} == {
        ("pkg/mod.py", "F401"),
        ("pkg/mod.py", "ANN001"),
        ("bad.py", "syntax-error"),
    }
    with pytest.raises(ValueError, match="leaves the workspace"):
        run_ruff({"../escape.py": ""}, RuffOptions(select=("F",)))


def test_real_ruff_settings_and_errors():
    long_line = "x = '" + "a" * 80 + "'\n"
    assert run_ruff({"m.py": long_line}, RuffOptions(select=("E501",))) == []
    found = run_ruff(
        {"m.py": long_line}, RuffOptions(select=("E501",), config=("line-length = 79",))
    )
    assert [d.code for d in found] == ["E501"]
    with pytest.raises(RuntimeError, match="ruff exited"):
        run_ruff({"m.py": "x = 1\n"}, RuffOptions(select=("NOT_A_RULE",)))


def test_real_ruff_through_the_verifier():
    context = changed({"inventory.py": "import os\nx = 1\n"})
    outcome = verdict("code_rules", context, ruff_select=["F401"])
    assert outcome.result == "fail" and "ruff F401" in outcome.reasoning
    assert (
        verdict("code_rules", changed({"inventory.py": "x = 2\n"}), ruff_select=["F"]).result
        == "pass"
    )


def test_ruff_timeout_surfaces_as_an_error_verdict():
    context = changed({"inventory.py": "x = 2\n"})
    outcome = verdict("code_rules", context, ruff_select=["F"], ruff_timeout=1e-9)
    assert outcome.result == "error" and "TimeoutExpired" in outcome.reasoning


def test_find_ruff_finds_the_pinned_binary():
    version = subprocess.run([find_ruff(), "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("ruff ")
