"""The mutation-testing command's own rules: which tests a mutant runs, which mutants are
not made or are equivalent, how a run's outcome is scored and printed."""

import ast
import textwrap
from pathlib import Path

import pytest

from scripts.mutation.__main__ import ROOT, resolve
from scripts.mutation._coverage import ANY, select_tests, statement_lines
from scripts.mutation._equivalents import Equivalent, load, pragma_reason, reason_for
from scripts.mutation._mutants import Mutant, classify, describe, signature_spans
from scripts.mutation._report import module_section, score, table
from scripts.mutation._targets import DEFAULT_MODULES, TESTS, mapped_tests
from scripts.mutation._worker import TIMED_OUT, PytestRun

SOURCE = textwrap.dedent(
    """\
    @decorator(
        "x",
    )
    def f(a, *, b: int = 3) -> int:
        total = (
            a
            + b
        )
        if total > 1 and (
            b < 2
        ):
            return 1
        try:
            pass
        except ValueError:
            return 2
        return total
    """
)


def test_a_mutant_runs_the_tests_of_its_whole_statement() -> None:
    tree = ast.parse(SOURCE)
    assert list(statement_lines(tree, 7)) == [5, 6, 7, 8]  # a continuation line
    assert list(statement_lines(tree, 10)) == [9, 10, 11]  # a compound header, not its body
    assert list(statement_lines(tree, 12)) == [12]  # the body's own statement
    assert list(statement_lines(tree, 15)) == [15]  # an except clause
    assert list(statement_lines(tree, 2)) == [1, 2, 3, 4]  # decorators belong to the def


def test_tests_are_chosen_by_who_ran_the_lines() -> None:
    record = {
        "lines": {"5": ["t.py::a"], "6": ["t.py::b", "t.py::a"], "7": ["u.py"], "9": [ANY]},
        "order": ["t.py::b", "t.py::a", "u.py::c"],
    }
    everything = ("t.py", "u.py")
    assert select_tests(record, [5], everything) == ("t.py::a",)
    assert select_tests(record, [5, 6], everything) == ("t.py::b", "t.py::a")  # run order
    # the mapping's order first (t.py before u.py), then the order the tests ran
    assert select_tests(record, [6, 7], everything) == ("t.py::b", "t.py::a", "u.py")
    assert select_tests(record, [6, 7], ("u.py", "t.py")) == ("u.py", "t.py::b", "t.py::a")
    assert select_tests(record, [5, 9], everything) == everything  # import-time code
    assert select_tests(record, [8], everything) == ()  # nobody ran it


def test_no_mutants_in_annotations_or_parameter_markers() -> None:
    spans = signature_spans(SOURCE)
    lines = SOURCE.split("\n")

    def text(span):
        (line, start), (end_line, end) = span
        assert line == end_line
        return lines[line - 1][start:end]

    assert sorted(text(s) for s in spans) == ["*", "int", "int"]


def test_a_mutant_is_described_by_its_first_changed_line() -> None:
    assert describe("a\nb = 1\nc", "a\nb = 2\nc") == (2, "b = 1", "b = 2")
    assert describe("a\n  @property\nc", "a\nc") == (2, "@property", "")
    assert describe("same", "same") == (0, "", "")
    assert describe("x = (0, 1)\n", "x = (0, 2)") == (1, "x = (0, 1)", "x = (0, 2)")


def test_equivalents_match_by_line_and_mutant_with_whitespace_collapsed() -> None:
    entry = Equivalent("m.py", "if x == 1:", "if x  <=  1:", "why")
    assert entry.matches("m.py", "    if x == 1:", "if x <= 1:")
    assert not entry.matches("n.py", "if x == 1:", "if x <= 1:")
    assert not entry.matches("m.py", "if x == 1:", "if x >= 1:")
    assert reason_for([entry], "m.py", "if x == 1:", "if x <= 1:") == ("why", entry)
    assert reason_for([entry], "m.py", "if x == 2:", "if x <= 2:") is None
    # A pragma on the source line makes every mutant of it equivalent.
    assert reason_for([], "m.py", "log(x)  # pragma: no mutate (only a message)", "y") == (
        "(only a message)",
        None,
    )
    assert pragma_reason("x = 1  # pragma: no mutate") == "marked '# pragma: no mutate'"
    assert pragma_reason("x = 1  # no pragma here") is None


def test_the_equivalents_file_is_valid_and_every_entry_has_a_reason(tmp_path: Path) -> None:
    entries = load(ROOT / "scripts" / "mutation" / "equivalents.toml")
    assert entries and all(e.reason.strip() and e.module in DEFAULT_MODULES for e in entries)
    bad = tmp_path / "eq.toml"
    bad.write_text('[[equivalent]]\nmodule = "m.py"\nline = "x"\nmutant = "y"\nreason = ""\n')
    with pytest.raises(ValueError, match="equivalent #1 needs a non-empty string for reason"):
        load(bad)
    assert load(tmp_path / "absent.toml") == []


def test_exit_codes_become_outcomes() -> None:
    assert classify(0, None) == ("survived", "")
    assert classify(1, "t.py::a") == ("killed", "t.py::a")
    assert classify(2, None) == (
        "killed",
        "pytest exit code 2",
    )  # e.g. the module no longer imports
    assert classify(TIMED_OUT, None)[0] == "timeout"
    assert classify(5, None) == ("error", "pytest collected no tests")
    run = PytestRun(1, 0.5, "....F\nFAILED tests/unit/x.py::test_y - AssertionError\n")
    assert run.first_failure == "tests/unit/x.py::test_y" and not run.timed_out


def mutant(outcome: str, line: int = 1) -> Mutant:
    return Mutant("m.py", line, "Op", "a < b", "a <= b", spec=None, outcome=outcome)  # type: ignore[arg-type]


def test_the_score_leaves_equivalent_mutants_out_and_counts_timeouts_as_caught() -> None:
    mutants = [mutant(o) for o in ("killed",) * 6 + ("timeout", "survived", "equivalent")]
    result = score("m.py", mutants)
    assert (result.mutants, result.killed, result.timeout, result.survived) == (9, 6, 1, 1)
    assert result.equivalent == 1 and result.score == pytest.approx(100 * 7 / 8)
    assert score("m.py", [mutant("equivalent")]).score is None
    lines = module_section(result, mutants)
    assert lines[0] == (
        "m.py: 9 mutants, 6 killed, 1 survived, 1 timeout, 1 equivalent, score 87.5%"
    )
    assert " survived:" in lines and " equivalent (left out of the score):" in lines
    rows = table([result, result])
    assert rows[2] == "| m.py | 9 | 1 | 6 | 1 | 1 | 87.5% |"
    assert rows[-1] == "| **all** | 18 | 2 | 12 | 2 | 2 | 87.5% |"


def test_every_default_module_exists_and_has_existing_tests() -> None:
    for module in DEFAULT_MODULES:
        assert (ROOT / module).is_file(), module
        assert mapped_tests(module), module
    for _, tests in TESTS:
        for test in tests:
            assert list(ROOT.glob(test)), test
    verifier_tests = mapped_tests("adhere/judging/verifiers/_emoji.py")
    assert "tests/unit/judging/test_verifiers_text.py" in verifier_tests  # a glob expanded
    assert all("*" not in test for test in verifier_tests)


def test_modules_are_named_by_path_dotted_name_or_directory() -> None:
    assert resolve(["adhere.metrics._rates"]) == ["adhere/metrics/_rates.py"]
    assert resolve(["adhere/metrics/_rates.py", "adhere/metrics/_rates.py"]) == [
        "adhere/metrics/_rates.py"
    ]
    verifiers = resolve(["adhere/judging/verifiers"])
    assert "adhere/judging/verifiers/_emoji.py" in verifiers
    assert all(not m.endswith("__init__.py") for m in verifiers)
    with pytest.raises(SystemExit, match="no tests are mapped"):
        resolve(["adhere/cli/_app.py"])
    with pytest.raises(SystemExit, match="not a module or directory"):
        resolve(["adhere/nope.py"])
