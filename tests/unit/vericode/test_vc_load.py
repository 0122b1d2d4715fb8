"""Task loaders: the built-in set, BigCodeBench- and LiveCodeBench-style JSONL, errors."""

import base64
import json
import pickle
import zlib
from pathlib import Path

import pytest

from adhere.errors import SpecError
from adhere.suites.vericode import builtin_tasks, load_tasks

FIXTURES = Path(__file__).parent / "fixtures"


def test_builtin_tasks():
    tasks = builtin_tasks()
    assert len(tasks) >= 20
    assert len({t.id for t in tasks}) == len(tasks)
    modes = {t.tests.mode for t in tasks}
    assert modes == {"asserts", "unittest", "io"}
    for task in tasks:
        assert task.source == "adhere" and task.solution and task.mutation
        assert task.mutation[0] in task.solution, task.id
    tags = {tag for t in tasks for tag in t.tags}
    assert {"files", "errors"} <= tags


def test_bigcodebench_style():
    tasks = load_tasks(FIXTURES / "bigcodebench.jsonl")
    first, second = tasks
    assert first.id == "BigCodeBench-901" and first.source == "bigcodebench"
    assert first.tests.mode == "unittest" and "class TestCases" in first.tests.code
    assert first.solution.startswith("import os\ndef task_func(path):\n    return")
    assert first.libs == ["os"] and "files" in first.tags
    assert second.libs == ["pandas"] and {"pandas", "errors"} <= set(second.tags)
    assert second.entry_point == "task_func"


def test_livecodebench_style():
    stdin, functional = load_tasks(FIXTURES / "livecodebench.jsonl")
    assert stdin.kind == "program" and stdin.tests.mode == "io"
    # public case plus the compressed private one
    assert stdin.tests.cases == [("1\n", "2\n"), ("3\n", "6\n")]
    assert stdin.solution is None and "standard input" in stdin.prompt
    assert functional.kind == "function" and functional.tests.mode == "asserts"
    assert functional.entry_point == "countPairs"
    assert "assert Solution().countPairs(*[[1, 2, 3], 4]) == 1" in functional.tests.code
    assert "class Solution" in functional.prompt


def test_compressed_cases_never_unpickle_objects(tmp_path):
    class Boom:
        def __reduce__(self):
            return (print, ("pwned",))

    packed = base64.b64encode(zlib.compress(pickle.dumps(Boom()))).decode()
    record = {
        "question_id": "x1",
        "question_content": "q",
        "public_test_cases": "[]",
        "private_test_cases": packed,
    }
    path = tmp_path / "lcb.jsonl"
    path.write_text(json.dumps(record) + "\n")
    with pytest.raises(SpecError, match="refusing to load"):
        load_tasks(path)


def test_errors_name_file_and_field(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"task_id": "B/1", "canonical_solution": "x", "test": ""}) + "\n")
    with pytest.raises(SpecError) as info:
        load_tasks(bad)
    assert "bad.jsonl:1" in str(info.value) and "instruct_prompt" not in str(info.value)
    dup = tmp_path / "dup.yaml"
    task = {"id": "a", "prompt": "p", "tests": {"mode": "asserts", "code": "assert 1"}}
    dup.write_text(json.dumps([task, task]))
    with pytest.raises(SpecError, match="duplicate task id"):
        load_tasks(dup)
    with pytest.raises(SpecError, match="no tasks"):
        (tmp_path / "empty.jsonl").write_text("\n")
        load_tasks(tmp_path / "empty.jsonl")
    odd = tmp_path / "odd.jsonl"
    odd.write_text(json.dumps({"id": "a", "prompt": "p", "tests": {"mode": "nope"}}) + "\n")
    with pytest.raises(SpecError, match="tests.mode"):
        load_tasks(odd)
