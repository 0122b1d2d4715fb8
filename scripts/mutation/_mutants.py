"""Making one module's mutants with cosmic-ray and testing each in the worker.

cosmic-ray's ``init`` lists every mutation its core operators can make in the module
(comparison, binary, unary and boolean operators flipped, ``and``↔``or``, ``not``
added, ``True``↔``False``, numbers ±1, ``break``↔``continue``, exception handlers
replaced, decorators removed, loops made to run zero times) into a session database;
each mutation is applied to the copy's file by cosmic-ray's ``use_mutation`` (which
restores the file afterwards) while the worker runs the module's tests.
"""

from __future__ import annotations

import ast
import difflib
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cosmic_ray.commands.init import init
from cosmic_ray.config import ConfigDict
from cosmic_ray.mutating import MutationVisitor, use_mutation
from cosmic_ray.plugins import get_operator
from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import MutationSpec

from scripts.mutation._coverage import select_tests, statement_lines
from scripts.mutation._equivalents import Equivalent, reason_for
from scripts.mutation._worker import TIMED_OUT, WorkerClient

# pytest's "no tests ran": the mapping names no test that exists.
_NO_TESTS = 5
OUTCOMES = ("killed", "timeout", "survived", "equivalent", "error")


@dataclass
class Mutant:
    """One mutant and what became of it.

    Attributes:
        module: The mutated module, repository-relative.
        line: The first changed line (1-based).
        operator: cosmic-ray's operator name (``ReplaceComparisonOperator_Lt_LtE`` …).
        before: The changed source line(s) as written.
        after: The same line(s) in the mutant (empty when the mutant deletes them).
        outcome: ``killed``, ``timeout``, ``survived``, ``equivalent`` or ``error``
            (``pending`` until tested).
        note: The test that killed it, the reason it is equivalent, or the error.
    """

    module: str
    line: int
    operator: str
    before: str
    after: str
    spec: MutationSpec = field(repr=False)
    outcome: str = "pending"
    note: str = ""
    entry: Equivalent | None = field(default=None, repr=False)


def describe(source: str, mutated: str) -> tuple[int, str, str]:
    """First changed line number, the original line(s) and the mutant's line(s), stripped."""
    old = source.split("\n")
    new = mutated.split("\n")
    changed = [op for op in difflib.SequenceMatcher(a=old, b=new).get_opcodes() if op[0] != "equal"]
    if not changed:
        return 0, "", ""
    first = changed[0][1] + 1
    # Blank lines the rewrite added or dropped (at the end of the file) are no change.
    before = " ⏎ ".join(
        line.strip() for _, i1, i2, _, _ in changed for line in old[i1:i2] if line.strip()
    )
    after = " ⏎ ".join(
        line.strip() for _, _, _, j1, j2 in changed for line in new[j1:j2] if line.strip()
    )
    return first, before, after


def _char_col(lines: list[str], line: int, byte_col: int) -> int:
    return len(lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))


def signature_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where mutants are not made: annotations, and each parameter list's bare ``*`` or ``/``.

    Annotations are types (mypy checks them; under ``from __future__ import
    annotations`` a function's are never evaluated), and cosmic-ray reads the bare
    ``*`` of ``def f(a, *, b)`` as a multiplication — mutants there say nothing of
    the tests. Positions are (line, column in characters), as cosmic-ray gives them.
    """
    tree = ast.parse(source)
    lines = source.split("\n")
    spans: list[tuple[tuple[int, int], tuple[int, int]]] = []

    def add(node: ast.expr) -> None:
        end_line = node.end_lineno or node.lineno
        spans.append(
            (
                (node.lineno, _char_col(lines, node.lineno, node.col_offset)),
                (end_line, _char_col(lines, end_line, node.end_col_offset or 0)),
            )
        )

    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            add(node.annotation)
        elif isinstance(node, ast.AnnAssign):
            add(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.returns is not None:
                add(node.returns)
            if not (node.args.kwonlyargs or node.args.posonlyargs):
                continue
            for number in range(node.lineno, node.body[0].lineno):
                text = lines[number - 1]
                for col, char in enumerate(text):
                    if char in "*/" and _bare_marker(text, col):
                        spans.append(((number, col), (number, col + 1)))
    return spans


def _bare_marker(text: str, col: int) -> bool:
    """Whether the ``*``/``/`` at ``col`` stands alone as a parameter (``, *,`` or ``(*,``)."""
    before = text[:col].rstrip()
    after = text[col + 1 :].lstrip()
    return (before == "" or before.endswith((",", "("))) and (after == "" or after[0] in ",)")


def _inside(spans: list[tuple[tuple[int, int], tuple[int, int]]], spec: MutationSpec) -> bool:
    start = tuple(spec.start_pos)
    return any(lo <= start < hi for lo, hi in spans)


def make_mutants(path: Path, module: str, db_path: Path) -> tuple[list[Mutant], int]:
    """Every mutant cosmic-ray's core operators make of ``path`` (shown as ``module``).

    Also returns how many were not made: those in a signature's types or markers
    (:func:`signature_spans`), and those cosmic-ray's operator cannot write.
    """
    with use_db(str(db_path), WorkDB.Mode.create) as db:
        init([path], db, ConfigDict())
        specs = [item.mutations[0] for item in db.work_items]
    source = path.read_text(encoding="utf-8")
    spans = signature_spans(source)
    mutants: list[Mutant] = []
    skipped = 0
    for spec in specs:
        if _inside(spans, spec):
            skipped += 1
            continue
        operator = get_operator(spec.operator_name)(**spec.operator_args)
        try:
            mutated = MutationVisitor.mutate_code(source, operator, spec.occurrence)
        except Exception:  # noqa: BLE001 - an operator that cannot rewrite this node
            # (cosmic-ray's ExceptionReplacer on a dotted name such as tokenize.TokenError)
            skipped += 1
            continue
        if mutated is None or mutated == source:
            continue
        line, before, after = describe(source, mutated)
        name = spec.operator_name.removeprefix("core/")
        mutants.append(Mutant(module, line, name, before, after, spec))
    mutants.sort(key=lambda m: (m.line, m.operator, m.after))
    return mutants, skipped


def mark_equivalents(mutants: Iterable[Mutant], entries: list[Equivalent], source: str) -> None:
    """Set ``equivalent`` (with its reason) on the mutants the pragma or the file names."""
    lines = source.split("\n")
    for mutant in mutants:
        written = lines[mutant.line - 1] if 0 < mutant.line <= len(lines) else mutant.before
        found = reason_for(entries, mutant.module, written, mutant.after)
        if found is None and written.strip() != mutant.before:
            found = reason_for(entries, mutant.module, mutant.before, mutant.after)
        if found is not None:
            mutant.outcome, mutant.note, mutant.entry = "equivalent", found[0], found[1]


def classify(code: int, first_failure: str | None) -> tuple[str, str]:
    """A test run's exit code as the mutant's outcome and note."""
    if code == 0:
        return "survived", ""
    if code == TIMED_OUT:
        return "timeout", "the tests did not finish in time"
    if code == _NO_TESTS:
        return "error", "pytest collected no tests"
    return "killed", first_failure or f"pytest exit code {code}"


def mutated_lines(spec: MutationSpec, tree: ast.Module) -> set[int]:
    """The lines of every statement the mutation touches (see :func:`statement_lines`)."""
    (first, _), (last, end_col) = spec.start_pos, spec.end_pos
    if end_col == 0 and last > first:
        last -= 1
    return {n for line in range(first, last + 1) for n in statement_lines(tree, line)}


def run_mutants(
    mutants: list[Mutant],
    path: Path,
    worker: WorkerClient,
    coverage: dict[str, Any],
    tests: tuple[str, ...],
    timeout: float,
    progress: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
) -> None:
    """Apply each pending mutant to ``path``, run the tests that run its lines, record it.

    ``coverage`` is the baseline's record of who ran which line; a mutant no test runs
    survives without a run.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    todo = [m for m in mutants if m.outcome == "pending"]
    start = time.monotonic()
    for done, mutant in enumerate(todo, start=1):
        spec = mutant.spec
        chosen = select_tests(coverage, sorted(mutated_lines(spec, tree)), tests)
        if not chosen:
            mutant.outcome, mutant.note = "survived", "no mapped test runs this code"
            continue
        operator = get_operator(spec.operator_name)(**spec.operator_args)
        with use_mutation(path, operator, spec.occurrence):
            run = worker.run(chosen, timeout)
        mutant.outcome, mutant.note = classify(run.code, run.first_failure)
        if done % 25 == 0 or done == len(todo):
            counts = {o: sum(m.outcome == o for m in todo[:done]) for o in OUTCOMES}
            progress(
                f"  {done}/{len(todo)} tested in {time.monotonic() - start:.0f} s: "
                + ", ".join(f"{n} {o}" for o, n in counts.items() if n)
            )
