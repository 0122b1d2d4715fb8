"""Ruff's concise output, as read by ``check_files``, says what its JSON output says."""

import json
import subprocess
from pathlib import Path

import pytest
from test_vc_verifiers import EXAMPLES

from adhere.judging.verifiers._ruff import (
    Diagnostic,
    RuffOptions,
    check_files,
    find_ruff,
    parse_concise,
    toml_setting,
    write_files,
)
from adhere.scoring._ruff_batch import flatten_config
from adhere.suites.vericode import by_id

NOTEBOOK = json.dumps(
    {
        "cells": [
            {"cell_type": "code", "execution_count": None, "id": str(i), "metadata": {},
             "outputs": [], "source": source}
            for i, source in enumerate([["x = 1\n"], ["import sys\n", "y = 'a'\n"]])
        ],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
)  # fmt: skip


def _from_json(root: Path, relative: list[str], options: RuffOptions) -> list[Diagnostic]:
    command = [find_ruff(), "check", "--isolated", "--no-cache", "--exit-zero"]
    command += ["--output-format", "json", "--select", ",".join(options.select)]
    command += ["--preview"] if options.preview else []
    for setting in options.config:
        command += ["--config", setting]
    done = subprocess.run([*command, "--", *relative], cwd=root, capture_output=True, check=True)
    return [
        Diagnostic(
            path=Path(item["filename"]).relative_to(root).as_posix(),
            line=item["location"]["row"],
            column=item["location"]["column"],
            code=item["code"] or "syntax-error",
            message=item["message"],
        )
        for item in json.loads(done.stdout)
    ]


@pytest.mark.parametrize("instruction_id", sorted(EXAMPLES))
def test_concise_output_matches_json(tmp_path, instruction_id):
    instruction = by_id(instruction_id)
    good, bad = EXAMPLES[instruction_id]
    files = {"good.py": good, "pkg/bad.py": bad, "broken.py": "def f(:\n", "f.py": "import os\n",
             "nb.ipynb": NOTEBOOK}  # fmt: skip
    root = tmp_path.resolve()
    relative = write_files(root, files)
    settings = flatten_config(instruction.ruff_config())
    options = RuffOptions(
        select=(*instruction.select, "F401"),
        preview=instruction.preview,
        config=tuple(toml_setting(k, v) for k, v in sorted(settings.items())),
    )
    found = check_files(root, relative, options)
    assert found == _from_json(root, relative, options)
    assert {d.path for d in found} >= {"pkg/bad.py", "broken.py", "f.py", "nb.ipynb"}
    assert any(d.code == "syntax-error" for d in found)  # codeless: a syntax error


def test_parse_concise_lines():
    root = Path("/scratch/batch")
    text = (
        "a.py:1:8: F401 [*] `os` imported but unused\n"
        "/scratch/batch/pkg/b.py:2:1: SyntaxError: Expected an expression\n"
        "c.py:3:5: X001 first line\nsecond line\n"
        "nb.ipynb:cell 2:1:8: F401 [*] `sys` imported but unused\n"
    )
    assert parse_concise(text, root) == [
        Diagnostic("a.py", 1, 8, "F401", "`os` imported but unused"),
        Diagnostic("pkg/b.py", 2, 1, "syntax-error", "SyntaxError: Expected an expression"),
        Diagnostic("c.py", 3, 5, "X001", "first line\nsecond line"),
        Diagnostic("nb.ipynb", 1, 8, "F401", "`sys` imported but unused"),
    ]
    assert parse_concise("", root) == []
    with pytest.raises(RuntimeError, match="unreadable"):  # e.g. forced colours
        parse_concise("\x1b[1ma.py\x1b[0m\x1b[36m:\x1b[0m1\x1b[36m:\x1b[0m8: F401 x\n", root)
