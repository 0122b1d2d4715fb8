"""Running ruff over copies of files: settings, safe paths, the command line, reading its output."""

import dataclasses
import os
import stat
import sys
from pathlib import Path

import pytest

from adhere.judging.verifiers._ruff import (
    Diagnostic,
    RuffOptions,
    check_files,
    find_ruff,
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


def test_files_land_in_directories_that_exist_and_replace_longer_files(tmp_path: Path) -> None:
    write_files(tmp_path, {"b/c.py": "a long first text\n", "-x.py": "1", "#y.py": "2"})
    assert write_files(tmp_path, {"b/c.py": "short\n", "b/d.py": ""}) == ["b/c.py", "b/d.py"]
    assert (tmp_path / "b" / "c.py").read_text() == "short\n"  # no tail of the old text
    # names starting with punctuation sorting before "." are ordinary files
    assert (tmp_path / "-x.py").read_text() + (tmp_path / "#y.py").read_text() == "12"


@pytest.mark.parametrize("path", ["/etc/x.py", "../x.py", "..", "a/../../x.py", "a\\..\\..\\x.py"])
def test_files_outside_the_root_are_refused(tmp_path: Path, path) -> None:
    with pytest.raises(ValueError, match="leaves the workspace"):
        write_files(tmp_path, {path: "x"})


def test_nothing_to_check_runs_nothing(tmp_path: Path) -> None:
    options = RuffOptions(select=("F",))
    (tmp_path / "other.py").write_text("import os\n")  # in the root, but not named
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
    assert (options.preview, options.config, options.timeout) == (False, (), 60.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.preview = True  # type: ignore[misc]
    found = Diagnostic("a.py", 1, 1, "F401", "unused")
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.line = 2  # type: ignore[misc]
    assert not hasattr(found, "__dict__")  # slotted: a batch holds thousands of them
    assert len({found, Diagnostic("a.py", 1, 1, "F401", "unused")}) == 1


def fake_ruff(directory: Path, script: str) -> Path:
    """An executable ``ruff`` that runs ``script`` (a shell script) instead of ruff."""
    directory.mkdir()
    path = directory / "ruff"
    path.write_text("#!/bin/sh\n" + script + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_ruff_is_found_on_path_first_then_beside_the_interpreter(tmp_path, monkeypatch) -> None:
    on_path = fake_ruff(tmp_path / "bin", "exit 0")
    monkeypatch.setenv("PATH", str(on_path.parent))
    assert find_ruff() == str(on_path)
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    beside = fake_ruff(tmp_path / "venv", "exit 0")
    monkeypatch.setattr(sys, "executable", str(beside.parent / "python"))
    assert find_ruff() == str(beside)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "nowhere" / "python"))
    with pytest.raises(FileNotFoundError, match="ruff is not installed"):
        find_ruff()


@pytest.mark.parametrize(("signal", "number"), [("KILL", 9), ("HUP", 1)])
def test_a_ruff_stopped_by_a_signal_is_an_error_not_a_clean_file(
    tmp_path, monkeypatch, signal, number
) -> None:
    fake = fake_ruff(tmp_path / "bin", f"kill -{signal} $$")
    monkeypatch.setenv("PATH", str(fake.parent))
    with pytest.raises(RuntimeError, match=f"^ruff was stopped by signal {number}: $"):
        run_ruff({"a.py": "import os\n"}, RuffOptions(select=("F401",)))


def test_ruff_s_complaint_is_quoted_up_to_500_characters(tmp_path, monkeypatch) -> None:
    fake = fake_ruff(tmp_path / "bin", "printf '%0800d' 0 >&2; exit 2")
    monkeypatch.setenv("PATH", str(fake.parent))
    with pytest.raises(RuntimeError) as raised:
        run_ruff({"a.py": "x = 1\n"}, RuffOptions(select=("F",)))
    assert str(raised.value) == "ruff exited with 2: " + "0" * 500


def test_an_unreadable_line_is_quoted_up_to_200_characters(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError) as raised:
        parse_concise("w" * 300 + "\n", tmp_path)
    assert str(raised.value) == f"unreadable ruff output: {'w' * 200!r}"
