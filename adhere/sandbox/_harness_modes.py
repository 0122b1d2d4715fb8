"""The child side of the sandbox, part two: the run modes and how their outcomes read.

Executed, like :mod:`adhere.sandbox._harness`, only inside the sandboxed interpreter,
in the same namespace as that module (the evaluator sends both, and the bootstrap
executes them one after the other into one dictionary): names of either are globals
of the other. Only the standard library is used.

Modes: ``script`` (the source as ``__main__``), ``asserts`` (setup, code, then each
top-level test statement in turn, in one namespace, module ``solution``),
``unittest`` (code then the test module in one namespace, module ``solution``; every
``TestCase`` in it runs). Each reports ``pass``, ``fail`` or ``crash`` with a
one-line detail through the :class:`_Reporter`; for the test modes a ``pass`` is
reported only after every test ran.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType, TracebackType
    from typing import Any

    from adhere.sandbox._harness import (
        _HARNESS_FILE,
        _SOURCES,
        _fill_linecache,
        _finish,
        _flush,
        _one_line,
        _Reporter,
    )


def _register(source: str, filename: str) -> None:
    _SOURCES[filename] = source
    loaded = sys.modules.get("linecache")
    if loaded is not None:
        _fill_linecache(loaded)


def _module(name: str, filename: str) -> ModuleType:
    module = type(sys)(name)
    module.__file__ = filename
    sys.modules[name] = module
    return module


def _exec(source: str, filename: str, namespace: dict[str, Any]) -> None:
    _register(source, filename)
    exec(compile(source, filename, "exec", dont_inherit=True), namespace)


def _user_traceback(exc: BaseException) -> TracebackType | None:
    """The traceback without the harness's own leading frames."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == _HARNESS_FILE:
        tb = tb.tb_next
    return tb


def _print_exception(exc: BaseException) -> None:
    try:
        import traceback

        lines = traceback.format_exception(type(exc), exc, _user_traceback(exc))
        sys.stderr.write("".join(lines))
        sys.stderr.flush()
    except Exception:  # a broken stderr must not change the outcome
        pass


def _where(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"{exc.filename}, line {exc.lineno}"
    tb = _user_traceback(exc)
    if tb is None:
        return ""
    while tb.tb_next is not None:
        tb = tb.tb_next
    return f"{tb.tb_frame.f_code.co_filename}, line {tb.tb_lineno}"


def _describe(exc: BaseException) -> str:
    """``Type: message (file, line N)``."""
    if isinstance(exc, SyntaxError):
        message = exc.msg
    else:
        try:
            message = str(exc)
        except Exception:
            message = "<unprintable>"
    where = _where(exc)
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return f"{text} ({where})" if where else text


def _exit_status(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    return 1


def _run_script(job: dict[str, Any], reporter: _Reporter) -> None:
    module = _module("__main__", "main.py")
    try:
        _exec(job["code"], "main.py", module.__dict__)
    except SystemExit as exc:
        status = _exit_status(exc)
        reporter.outcome(
            "pass" if status == 0 else "fail", "" if status == 0 else f"exit status {status}"
        )
        raise
    except BaseException as exc:
        _print_exception(exc)
        reporter.outcome("fail" if isinstance(exc, AssertionError) else "crash", _describe(exc))
        _finish(1)
    reporter.outcome("pass", "")
    _flush()  # then the interpreter shuts down as usual: threads joined, atexit run


_ONLY_AST = 0x400  # ast.PyCF_ONLY_AST, without importing ast


def _test_statements(job: dict[str, Any]) -> tuple[str, type, list[Any]]:
    """The tests' text, the AST ``Module`` type and the top-level statements."""
    tests = job["tests"]
    text = tests if isinstance(tests, str) else "\n".join(tests)
    _register(text, "tests.py")
    tree = compile(text, "tests.py", "exec", _ONLY_AST, dont_inherit=True)
    return text, type(tree), list(tree.body)


def _segment(text: str, node: Any) -> str:
    """The source of ``node`` (what ``ast.get_source_segment`` gives; offsets in UTF-8)."""
    lines = text.splitlines(True)[node.lineno - 1 : node.end_lineno]
    if not lines:
        return ""
    encoded = [line.encode("utf-8") for line in lines]
    encoded[-1] = encoded[-1][: node.end_col_offset]
    encoded[0] = encoded[0][node.col_offset :]
    return b"".join(encoded).decode("utf-8", "replace")


def _run_asserts(job: dict[str, Any], reporter: _Reporter) -> None:
    module = _module("solution", "solution.py")
    namespace = module.__dict__
    try:
        text, module_type, statements = _test_statements(job)
    except SyntaxError as exc:
        reporter.outcome("crash", "harness: the tests do not parse: " + _describe(exc))
        _finish(1)
    phase = "setup"
    statement: Any = None
    try:
        if job["setup"]:
            _exec(job["setup"], "setup.py", namespace)
        phase = "code"
        _exec(job["code"], "solution.py", namespace)
        phase = "tests"
        for statement in statements:
            unit = module_type(body=[statement], type_ignores=[])
            exec(compile(unit, "tests.py", "exec", dont_inherit=True), namespace)
    except SystemExit as exc:
        reporter.outcome("crash", f"SystemExit({exc.code!r}) in the {phase} before the tests ended")
        _finish(1)
    except BaseException as exc:
        _print_exception(exc)
        during = ""
        if phase == "tests" and statement is not None:
            segment = _segment(text, statement)
            during = f"{_one_line(segment, 200)} (tests.py, line {statement.lineno})"
        if isinstance(exc, AssertionError) and phase == "tests":
            message = str(exc)
            inner = _where(exc)
            detail = f"failed: {during}"
            if message:
                detail += f": {message}"
            if inner and not inner.startswith("tests.py"):
                detail += f" [AssertionError at {inner}]"
        elif isinstance(exc, AssertionError):
            detail = f"{_describe(exc)} in the {phase}"
        else:
            detail = _describe(exc) + (f" during {during}" if during else f" in the {phase}")
        reporter.outcome("fail" if isinstance(exc, AssertionError) else "crash", detail)
        _finish(1)
    count = len(statements)
    reporter.outcome("pass", f"{count} test statement{'s' if count != 1 else ''} passed")
    _finish(0)


def _test_name(test: object) -> str:
    name = str(getattr(test, "id", lambda: repr(test))())
    return name.removeprefix("solution.")


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def _summary(kind: str, problems: Sequence[tuple[object, str]], run: int) -> str:
    shown = "; ".join(
        f"{_test_name(t)}: {_one_line(_last_line(tb), 160)}" for t, tb in problems[:3]
    )
    more = f"; and {len(problems) - 3} more" if len(problems) > 3 else ""
    return f"{len(problems)} of {run} tests {kind}: {shown}{more}"


def _run_unittest(job: dict[str, Any], reporter: _Reporter) -> None:
    import unittest

    module = _module("solution", "solution.py")
    phase = "code"
    try:
        _exec(job["code"], "solution.py", module.__dict__)
        phase = "test module"
        _exec(job["tests"], "test_solution.py", module.__dict__)
        phase = "tests"
        suite = unittest.TestLoader().loadTestsFromModule(module)
        result = unittest.TestResult()
        suite.run(result)
    except SystemExit as exc:
        reporter.outcome("crash", f"SystemExit({exc.code!r}) in the {phase} before the tests ended")
        _finish(1)
    except BaseException as exc:
        _print_exception(exc)
        status = "fail" if isinstance(exc, AssertionError) else "crash"
        reporter.outcome(status, f"{_describe(exc)} in the {phase}")
        _finish(1)
    failures = list(result.failures)
    failures += [(t, "unexpected success") for t in result.unexpectedSuccesses]
    for test, text in [*failures, *result.errors]:
        sys.stderr.write(f"== {_test_name(test)}\n{text}\n")
    if result.testsRun == 0:
        reporter.outcome("crash", "harness: no tests found in the test module")
        _finish(1)
    if failures:
        reporter.outcome("fail", _summary("failed", failures, result.testsRun))
        _finish(1)
    if result.errors:
        reporter.outcome("crash", _summary("raised", list(result.errors), result.testsRun))
        _finish(1)
    run = result.testsRun
    reporter.outcome("pass", f"{run} test{'s' if run != 1 else ''} passed")
    _finish(0)
