"""Running ruff over copies of files: settings, safe paths, the command line, reading its output."""

import dataclasses
import os
from pathlib import Path

import pytest

from adhere.judging.verifiers._ruff import (
    Diagnostic,
    RuffOptions,
    check_files,
    parse_concise,
    run_ruff,
    toml_setting,
    write_files,
)


@pytest.mark.parametrize(
    ("key", "value", "line"),
    [
        ("lint.preview", True, "lint.preview = true"),
        ("lint.preview", False, "lint.preview = false"),
        ("line-length", 79, "line-length = 79"),
        ("x", 1.5, "x = 1.5"),
        ("quote-style", 'sin"gle', 'quote-style = "sin\\"gle"'),
        ("lint.ignore", ["E501", "W"], 'lint.ignore = ["E501", "W"]'),
        ("lint.ignore", [], "lint.ignore = []"),
    ],
)
def test_settings_are_written_as_toml(key, value, line) -> None:
    assert toml_setting(key, value) == line


def test_files_are_written_under_the_root_and_listed_sorted(tmp_path: Path) -> None:
    written = write_files(
        tmp_path, {"b/c.py": "x = 1\r\n", "a.py": "é", "b/d/e.py": "", "./f.py": ""}
    )
    assert written == ["a.py", "b/c.py", "b/d/e.py", "f.py"]
    assert (tmp_path / "b" / "c.py").read_bytes() == b"x = 1\r\n"  # written as is
    assert (tmp_path / "a.py").read_text(encoding="utf-8") == "é"
    big = "x" * 300_000
    write_files(tmp_path, {"big.py": big})
    assert (tmp_path / "big.py").read_text() == big


@pytest.mark.parametrize("path", ["/etc/x.py", "../x.py", "..", "a/../../x.py", "a\\..\\..\\x.py"])
def test_files_outside_the_root_are_refused(tmp_path: Path, path) -> None:
    with pytest.raises(ValueError, match="leaves the workspace"):
        write_files(tmp_path, {path: "x"})


def test_nothing_to_check_runs_nothing(tmp_path: Path) -> None:
    options = RuffOptions(select=("F",))
    assert check_files(tmp_path, [], options) == []
    assert check_files(tmp_path, ["a.py"], RuffOptions(select=())) == []
    assert run_ruff({}, options) == []
    assert run_ruff({"a.py": "import os\n"}, RuffOptions(select=())) == []


def test_a_real_run_reports_by_workspace_path_with_settings_and_preview(tmp_path: Path) -> None:
    files = {"pkg/m.py": "import os\n" + "x = 1  # " + "y" * 100 + "\n", "ok.py": "x = 1\n"}
    found = run_ruff(files, RuffOptions(select=("F401", "E501"), config=("line-length = 200",)))
    assert [(d.path, d.line, d.code) for d in found] == [("pkg/m.py", 1, "F401")]
    strict = run_ruff(files, RuffOptions(select=("F401", "E501")))
    assert [(d.path, d.line, d.code) for d in strict] == [
        ("pkg/m.py", 1, "F401"),
        ("pkg/m.py", 2, "E501"),
    ]
    broken = run_ruff({"b.py": "def (:\n"}, RuffOptions(select=("F",)))
    assert broken and all(d.code == "syntax-error" for d in broken)


def test_a_bad_selector_is_an_error_naming_ruff_s_complaint() -> None:
    with pytest.raises(RuntimeError, match="ruff exited with 2"):
        run_ruff({"a.py": "x = 1\n"}, RuffOptions(select=("NOPE999",)))


def test_forced_colours_in_the_environment_do_not_reach_ruff(monkeypatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("CLICOLOR_FORCE", "1")
    found = run_ruff({"a.py": "import os\n"}, RuffOptions(select=("F401",)))
    assert [(d.path, d.code) for d in found] == [("a.py", "F401")]


def test_concise_lines_with_codes_fixable_marks_cells_and_syntax_errors(tmp_path: Path) -> None:
    root = str(tmp_path)
    text = (
        f"{root}{os.sep}a.py:1:8: F401 [*] `os` imported but unused\n"
        f"{root}{os.sep}n.ipynb:cell 3:2:1: E501 Line too long (90 > 79)\n"
        "b.py:4:5: SyntaxError: Expected an expression\n"
    )
    assert parse_concise(text, tmp_path) == [
        Diagnostic("a.py", 1, 8, "F401", "`os` imported but unused"),
        Diagnostic("n.ipynb", 2, 1, "E501", "Line too long (90 > 79)"),
        Diagnostic("b.py", 4, 5, "syntax-error", "SyntaxError: Expected an expression"),
    ]
    assert parse_concise("", tmp_path) == []


def test_a_message_over_several_lines_is_one_diagnostic(tmp_path: Path) -> None:
    text = "a.py:1:1: E999 first line\n  second line\nb.py:2:3: F401 unused\nthird\n"
    assert parse_concise(text, tmp_path) == [
        Diagnostic("a.py", 1, 1, "E999", "first line\n  second line"),
        Diagnostic("b.py", 2, 3, "F401", "unused\nthird"),
    ]


def test_output_that_does_not_start_with_a_diagnostic_is_unreadable(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="unreadable ruff output: 'warning: no rules'"):
        parse_concise("warning: no rules\na.py:1:1: F401 x\n", tmp_path)


def test_options_and_diagnostics_are_values() -> None:
    options = RuffOptions(select=("F",))
    assert (options.preview, options.config) == (False, ())
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.preview = True  # type: ignore[misc]
