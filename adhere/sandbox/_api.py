"""The public entry points: one coroutine per way of checking code, plus batching."""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Awaitable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from adhere.sandbox._classify import compare_output
from adhere.sandbox._process import execute
from adhere.sandbox._types import AssertsJob, Job, Limits, PythonJob, RunResult, UnittestJob

__all__ = [
    "run_asserts",
    "run_io",
    "run_job",
    "run_many",
    "run_many_sync",
    "run_python",
    "run_sync",
    "run_unittest",
    "summarize",
]

_DEFAULT = Limits()


async def run_python(
    source: str,
    *,
    files: Mapping[str, str] | None = None,
    stdin: str = "",
    limits: Limits = _DEFAULT,
    python: str | None = None,
) -> RunResult:
    """Run a Python program, as ``python main.py`` would, in a sandbox.

    ``pass`` when it exits 0; ``fail`` on an uncaught ``AssertionError`` or a
    non-zero ``sys.exit``; ``crash`` on any other exception or a signal.

    Args:
        source: The program (runs as ``__main__``; ``__file__`` is ``main.py``, which
            is not a file in the directory).
        files: Files to put in the working directory, ``{relative path: text}``
            (importable: the directory is on ``sys.path``).
        stdin: Text fed to the program's stdin (which is then closed).
        limits: Resource limits.
        python: Interpreter to run (default: the evaluator's own, ``sys.executable``).
    """
    return await execute(
        "script",
        {"code": source, "argv0": "main.py"},
        files=files or {},
        stdin=stdin,
        limits=limits,
        python=python,
    )


async def run_asserts(
    code: str,
    asserts: Sequence[str] | str,
    *,
    setup: str = "",
    files: Mapping[str, str] | None = None,
    limits: Limits = _DEFAULT,
    python: str | None = None,
) -> RunResult:
    """Run ``setup``, then ``code``, then the test statements, in one namespace (MBPP style).

    The tests (a list of lines such as ``assert f(1) == 2``, or one text) run one
    top-level statement at a time and stop at the first that raises: an
    ``AssertionError`` is ``fail`` with that statement in ``detail``; any other
    exception is ``crash``. ``pass`` needs every statement to have run.

    Args:
        code: The code under test (module ``solution``; ``__name__`` is not
            ``"__main__"``, so a ``main`` guard does not run).
        asserts: Test statements: a list (joined with newlines) or one text.
        setup: Code run first in the same namespace (MBPP's ``test_setup_code``).
        files: Files for the working directory.
        limits: Resource limits (one wall-clock budget for everything).
        python: Interpreter to run.
    """
    return await execute(
        "asserts",
        {
            "code": code,
            "tests": asserts if isinstance(asserts, str) else list(asserts),
            "setup": setup,
            "argv0": "solution.py",
        },
        files=files or {},
        stdin="",
        limits=limits,
        python=python,
    )


async def run_unittest(
    code: str,
    test_module: str,
    *,
    files: Mapping[str, str] | None = None,
    limits: Limits = _DEFAULT,
    python: str | None = None,
) -> RunResult:
    """Run ``code`` and then a ``unittest`` test module in one namespace (BigCodeBench style).

    Every ``unittest.TestCase`` in the namespace runs. ``fail`` when a test fails
    (or succeeds unexpectedly); ``crash`` when tests only raised errors, when the
    code or the module raises while loading, or when there are no tests; ``detail``
    names up to three tests. ``pass`` needs at least one test, all passing.

    Args:
        code: The code under test (module ``solution``; also ``import solution``).
        test_module: Source of the tests; it sees the code's names directly.
        files: Files for the working directory.
        limits: Resource limits (one wall-clock budget for all tests).
        python: Interpreter to run.
    """
    return await execute(
        "unittest",
        {"code": code, "tests": test_module, "argv0": "test_solution.py"},
        files=files or {},
        stdin="",
        limits=limits,
        python=python,
    )


async def run_io(
    code: str,
    cases: Sequence[tuple[str, str]],
    *,
    files: Mapping[str, str] | None = None,
    limits: Limits = _DEFAULT,
    python: str | None = None,
    stop_on_failure: bool = True,
) -> list[RunResult]:
    """Run a program once per ``(stdin, expected stdout)`` case (LiveCodeBench style).

    Each case is its own sandboxed process with its own ``limits``. A case passes
    when the program exits 0 and its stdout equals the expected one line by line,
    each line's whitespace runs collapsed and ends stripped, trailing blank lines
    ignored; a mismatch is ``fail`` with the first differing line in ``detail``.
    Every result's ``detail`` starts with ``case N``.

    Returns:
        One result per case run, in order; with ``stop_on_failure`` the list ends at
        the first case that did not pass. :func:`summarize` folds it into one.
    """
    results: list[RunResult] = []
    for number, (given, expected) in enumerate(cases, start=1):
        result = await run_python(code, files=files, stdin=given, limits=limits, python=python)
        if result.status == "pass":
            mismatch = compare_output(expected, result.stdout)
            result = replace(
                result,
                status="fail" if mismatch else "pass",
                detail=f"case {number}: wrong output, {mismatch}" if mismatch else f"case {number}",
            )
        else:
            result = replace(result, detail=f"case {number}: {result.detail}".rstrip(": "))
        results.append(result)
        if stop_on_failure and result.status != "pass":
            break
    return results


def summarize(results: Sequence[RunResult]) -> RunResult:
    """One result for several (the cases of :func:`run_io`): the first non-pass, else a pass.

    The pass has the last result's fields, the summed seconds and ``N cases passed``.

    Raises:
        ValueError: ``results`` is empty.
    """
    if not results:
        raise ValueError("summarize needs at least one result")
    for result in results:
        if result.status != "pass":
            return result
    count = len(results)
    return replace(
        results[-1],
        seconds=round(sum(r.seconds for r in results), 3),
        detail=f"{count} case{'s' if count != 1 else ''} passed",
    )


async def run_job(job: Job) -> RunResult:
    """Run a job spec (:class:`PythonJob`, :class:`AssertsJob`, :class:`UnittestJob`)."""
    if isinstance(job, PythonJob):
        return await run_python(
            job.source, files=job.files, stdin=job.stdin, limits=job.limits, python=job.python
        )
    if isinstance(job, AssertsJob):
        return await run_asserts(
            job.code,
            job.asserts,
            setup=job.setup,
            files=job.files,
            limits=job.limits,
            python=job.python,
        )
    if isinstance(job, UnittestJob):
        return await run_unittest(
            job.code, job.test_module, files=job.files, limits=job.limits, python=job.python
        )
    raise TypeError(f"not a sandbox job: {type(job).__name__}")


async def run_many(
    jobs: Iterable[Job | Awaitable[RunResult]],
    *,
    parallelism: int | None = None,
) -> list[RunResult]:
    """Run jobs with at most ``parallelism`` sandboxes at once; results in input order.

    Args:
        jobs: Job specs, or not-yet-awaited coroutines such as
            ``run_asserts(code, tests)`` (a coroutine starts only when a slot is
            free; an already running task is not held back).
        parallelism: Concurrent sandboxes (default: ``os.cpu_count()``).

    If one job raises (a :class:`SandboxError`, a bad path), the others are
    cancelled, their processes killed, and the error propagates.
    """
    width = parallelism if parallelism is not None else (os.cpu_count() or 1)
    if width < 1:
        raise ValueError(f"parallelism must be >= 1, got {width}")
    gate = asyncio.Semaphore(width)
    items = list(jobs)

    async def one(item: Job | Awaitable[RunResult]) -> RunResult:
        started = False
        try:
            async with gate:
                started = True
                if isinstance(item, PythonJob | AssertsJob | UnittestJob):
                    return await run_job(item)
                return await item
        finally:
            if not started and inspect.iscoroutine(item):
                item.close()  # never started: no "never awaited" warning

    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(one(item)) for item in items]
    return [task.result() for task in tasks]


def run_sync(job: Job | Coroutine[Any, Any, RunResult]) -> RunResult:
    """Run one job (spec or coroutine) to completion from synchronous code.

    Uses :func:`asyncio.run`, so it cannot be called from a running event loop; async
    callers await :func:`run_job` instead.
    """
    if isinstance(job, PythonJob | AssertsJob | UnittestJob):
        return asyncio.run(run_job(job))
    return asyncio.run(job)


def run_many_sync(jobs: Iterable[Job], *, parallelism: int | None = None) -> list[RunResult]:
    """:func:`run_many` over job specs, from synchronous code (a Ray task, a script)."""
    return asyncio.run(run_many(list(jobs), parallelism=parallelism))
