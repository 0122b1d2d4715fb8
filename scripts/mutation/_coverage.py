"""Which tests run which lines of the mutated module, so each mutant runs only those tests.

The baseline run traces the module (``sys.settrace``, only frames of its file) and
records, for each line, who ran it:

- ``*`` — code run while the module is being imported (module and class bodies, and
  whatever they call): every test depends on it;
- ``FILE`` — a test's setup or teardown ran it (a fixture, whose result other tests of
  the file may share): every test of that file;
- a test's node id — its own body ran it.

A mutant can only change what a test sees if the test runs the mutated code, so a
mutant is tested with the tests recorded for the lines of the statement it sits in
(a statement's lines together, since Python reports a multi-line statement under only
some of its lines), and a mutant of a statement no test runs survives untested.
"""

from __future__ import annotations

import ast
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from types import FrameType
from typing import Any

import pytest

ANY = "*"


class LineRecorder:
    """A pytest plugin and trace function recording who runs which line of one file."""

    def __init__(self, filename_suffix: str) -> None:
        self.suffix = filename_suffix
        self.lines: dict[int, set[str]] = {}
        self.order: list[str] = []
        self._test: str | None = None
        self._phase = ""

    def _who(self) -> str:
        if self._test is None:
            return ANY
        if self._phase == "call":
            return self._test
        return self._test.partition("::")[0]

    def _importing(self, frame: FrameType | None) -> bool:
        while frame is not None:
            code = frame.f_code
            if code.co_name == "<module>" and code.co_filename.endswith(self.suffix):
                return True
            frame = frame.f_back
        return False

    def trace(self, frame: FrameType, event: str, arg: Any) -> Any:
        """The global trace function: follow only frames of the module's file."""
        if not frame.f_code.co_filename.endswith(self.suffix):
            return None
        who = ANY if self._importing(frame) else None
        lines = self.lines

        def local(frame: FrameType, event: str, arg: Any) -> Any:
            if event == "line":
                lines.setdefault(frame.f_lineno, set()).add(who or self._who())
            return local

        return local

    def start(self) -> None:
        """Trace this thread and threads started from now on."""
        sys.settrace(self.trace)
        threading.settrace(self.trace)

    def stop(self) -> None:
        """Stop tracing."""
        sys.settrace(None)
        threading.settrace(None)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Iterator[None]:
        """Attribute what runs now to the test's file (fixtures)."""
        self._test, self._phase = item.nodeid, "setup"
        self.order.append(item.nodeid)
        yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
        """Attribute what runs now to the test itself."""
        self._phase = "call"
        yield
        self._phase = "teardown"

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Iterator[None]:
        """Attribute teardown to the file, then nobody."""
        self._phase = "teardown"
        yield
        self._test = None

    def as_json(self) -> dict[str, Any]:
        """The record, JSON-ready."""
        return {
            "lines": {str(k): sorted(v) for k, v in self.lines.items()},
            "order": self.order,
        }


def statement_lines(tree: ast.Module, line: int) -> range:
    """The lines of the innermost statement holding ``line`` (a compound one's header only)."""
    best: tuple[int, int] | None = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt | ast.excepthandler):
            continue  # a match_case has no position of its own
        children = [
            child
            for field in ("body", "orelse", "finalbody", "handlers", "cases")
            for child in getattr(node, field, None) or ()
            if hasattr(child, "lineno")
        ]
        decorators = getattr(node, "decorator_list", [])
        start = min([node.lineno, *(d.lineno for d in decorators)])
        first_child = min((c.lineno for c in children), default=None)
        end = node.end_lineno or node.lineno
        if first_child is not None:
            if line >= first_child:
                continue  # inside the body: an inner statement holds it
            end = max(node.lineno, first_child - 1)
        if start <= line <= end and (best is None or end - start < best[1] - best[0]):
            best = (start, end)
    return range(best[0], best[1] + 1) if best else range(line, line + 1)


def select_tests(
    record: dict[str, Any], lines: Iterable[int], all_tests: Sequence[str]
) -> tuple[str, ...]:
    """The tests to run for a mutant touching ``lines``: node ids, files, or ``all_tests``.

    Ordered by the mapping (its first files first, so the tests most specific to the
    module run first and ``pytest -x`` stops early), then as they ran. Empty when no
    test ran any of the lines.
    """
    who: set[str] = set()
    for line in lines:
        who.update(record["lines"].get(str(line), ()))
    if ANY in who:
        return tuple(all_tests)
    files = {w for w in who if "::" not in w}
    chosen = [t for t in record["order"] if t in who and t.partition("::")[0] not in files]

    def rank(test: str) -> int:
        """The place of the test's file in the mapping: the most specific tests go first."""
        path = test.partition("::")[0]
        return next(
            (
                i
                for i, mapped in enumerate(all_tests)
                if path == mapped or path.startswith(mapped.rstrip("/") + "/")
            ),
            len(all_tests),
        )

    return tuple(sorted([*sorted(files), *chosen], key=rank))
