"""Statuses and details: pass, fail, crash for scripts, asserts, unittest modules, io cases."""

import pytest

from adhere.sandbox import (
    AssertsJob,
    Limits,
    PythonJob,
    SandboxError,
    run_asserts,
    run_io,
    run_many,
    run_python,
    run_sync,
    run_unittest,
    summarize,
)

CODE = "def add(a, b):\n    return a + b\n"


async def test_asserts_pass():
    result = await run_asserts(CODE, ["assert add(1, 2) == 3", "assert add(0, 0) == 0"])
    assert result.status == "pass", result
    assert result.returncode == 0
    assert result.detail == "2 test statements passed"


async def test_failing_assert_is_named_in_detail():
    result = await run_asserts(CODE, "assert add(1, 2) == 3\nassert add(2, 2) == 5, 'sum'\n")
    assert result.status == "fail"
    assert result.detail == "failed: assert add(2, 2) == 5, 'sum' (tests.py, line 2): sum"
    assert 'File "tests.py", line 2' in result.stderr


async def test_exception_in_the_code_under_test_is_a_crash():
    code = "def add(a, b):\n    return a / 0\n"
    result = await run_asserts(code, ["assert add(1, 2) == 3"])
    assert result.status == "crash"
    assert result.detail.startswith("ZeroDivisionError: division by zero (solution.py, line 2)")
    assert "during assert add(1, 2) == 3 (tests.py, line 1)" in result.detail


async def test_syntax_error_is_a_crash():
    result = await run_asserts("def add(a, b)\n    return a + b\n", ["assert add(1, 2) == 3"])
    assert result.status == "crash"
    assert result.detail.startswith("SyntaxError: expected ':' (solution.py, line 1)")
    script = await run_python("print('unclosed'")
    assert script.status == "crash" and script.detail.startswith("SyntaxError")


async def test_setup_runs_first_and_tests_may_be_one_text():
    result = await run_asserts(
        "def root(x):\n    return math.sqrt(x)\n",
        "['import math']\nassert root(9) == 3\n",  # a ManyIH data quirk: a list literal line
        setup="import math",
    )
    assert result.status == "pass", result


async def test_exiting_early_cannot_pass():
    for code in ("import sys\nsys.exit(0)\n", "import os\nos._exit(0)\n"):
        result = await run_asserts(code, ["assert False"])
        assert result.status == "crash", (code, result)
    assert "SystemExit(0)" in (await run_asserts("raise SystemExit(0)", ["assert 1"])).detail


async def test_unparsable_tests_are_a_harness_crash():
    result = await run_asserts(CODE, ["assert add(1, 2) =="])
    assert result.status == "crash"
    assert result.detail.startswith("harness: the tests do not parse")


async def test_script_statuses():
    assert (await run_python("print('hi')")).stdout == "hi\n"
    exit3 = await run_python("import sys\nprint('x')\nsys.exit(3)")
    assert (exit3.status, exit3.returncode, exit3.detail) == ("fail", 3, "exit status 3")
    failed = await run_python("assert 1 + 1 == 3, 'math'")
    assert failed.status == "fail" and failed.detail == "AssertionError: math (main.py, line 1)"
    boom = await run_python("import nope_not_a_module")
    assert boom.status == "crash" and boom.detail.startswith("ModuleNotFoundError")
    assert (await run_python("import os\nos._exit(0)")).status == "pass"
    named = await run_python("print(__name__, __file__)")
    assert named.stdout == "__main__ main.py\n"


UNITTEST_CODE = "def double(x):\n    return x * 2\n"

TESTS_OK = """
import unittest

class TestCases(unittest.TestCase):
    def test_one(self):
        self.assertEqual(double(1), 2)

    def test_import(self):
        from solution import double as d
        self.assertEqual(d(3), 6)
"""

TESTS_BAD = """
import unittest

class TestCases(unittest.TestCase):
    def test_ok(self):
        self.assertEqual(double(1), 2)

    def test_wrong(self):
        self.assertEqual(double(2), 5)

    def test_raises(self):
        double(None)
"""


async def test_unittest_pass_and_fail():
    passed = await run_unittest(UNITTEST_CODE, TESTS_OK)
    assert passed.status == "pass", passed
    assert passed.detail == "2 tests passed"
    failed = await run_unittest(UNITTEST_CODE, TESTS_BAD)
    assert failed.status == "fail"
    assert failed.detail.startswith("1 of 3 tests failed: TestCases.test_wrong: AssertionError")
    assert "test_raises" in failed.stderr  # errors are listed on stderr
    errors_only = await run_unittest(UNITTEST_CODE, TESTS_BAD.replace("5)", "4)"))
    assert errors_only.status == "crash"
    assert errors_only.detail.startswith("1 of 3 tests raised: TestCases.test_raises: TypeError")
    empty = await run_unittest(UNITTEST_CODE, "import unittest\n")
    assert (empty.status, empty.detail) == ("crash", "harness: no tests found in the test module")


async def test_io_cases():
    code = "n = int(input())\nprint(*range(n))\nprint(n * n)\n"
    results = await run_io(code, [("3\n", "0 1 2\n9\n"), ("2", "  0   1 \r\n4\n\n\n")])
    assert [r.status for r in results] == ["pass", "pass"]
    assert summarize(results).detail == "2 cases passed"
    wrong = await run_io(code, [("2\n", "0 1\n4\n"), ("3\n", "0 1 2\n10\n"), ("1\n", "0\n1\n")])
    assert [r.status for r in wrong] == ["pass", "fail"]  # stops at the first failure
    assert wrong[1].detail == "case 2: wrong output, line 2: expected '10', got '9'"
    assert summarize(wrong) is wrong[1]
    crashed = await run_io(code, [("x\n", "")], stop_on_failure=False)
    assert crashed[0].status == "crash" and crashed[0].detail.startswith("case 1: ValueError")


async def test_run_many_mixes_specs_and_coroutines_in_order():
    results = await run_many(
        [
            AssertsJob(CODE, ["assert add(1, 1) == 2"]),
            run_python("print('second')"),
            PythonJob("raise KeyError('k')"),
        ],
        parallelism=2,
    )
    assert [r.status for r in results] == ["pass", "pass", "crash"]
    assert results[1].stdout == "second\n"


def test_run_sync_from_plain_code():
    assert run_sync(AssertsJob(CODE, ["assert add(2, 2) == 4"])).status == "pass"


async def test_caller_errors_raise():
    with pytest.raises(ValueError, match="relative path"):
        await run_python("pass", files={"../escape.py": ""})
    with pytest.raises(SandboxError, match="cannot start"):
        await run_python("pass", python="/nonexistent/python3")
    with pytest.raises(ValueError, match="timeout"):
        Limits(timeout=0)
