"""``bash scripts/mutation.sh [options] [MODULE…]``: mutate modules, run their tests, print scores.

MODULE is a path under ``adhere/`` (``adhere/metrics/_rates.py``), a dotted name
(``adhere.metrics._rates``) or a directory (each of its modules that has mapped tests).
Without one, the scoring-critical modules of :data:`scripts.mutation._targets.DEFAULT_MODULES`
are run, one after another. Everything happens in a temporary copy of the repository
(tracked and untracked-but-not-ignored files), removed at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from importlib.util import cache_from_source
from pathlib import Path

from scripts.mutation import _equivalents, _report
from scripts.mutation._mutants import Mutant, make_mutants, mark_equivalents, run_mutants
from scripts.mutation._targets import DEFAULT_MODULES, mapped_tests
from scripts.mutation._worker import PytestRun, WorkerClient, start_worker

ROOT = Path(__file__).resolve().parents[2]
EQUIVALENTS = ROOT / "scripts" / "mutation" / "equivalents.toml"


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""Signals that end a run early; the temporary copy is removed all the same."""


class Stopped(KeyboardInterrupt):
    """A stop signal arrived (raised in the main thread, like Ctrl-C's KeyboardInterrupt)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, _frame: object) -> None:
    raise Stopped(signum)


@contextlib.contextmanager
def scratch_directory(prefix: str = "adhere-mutation-") -> Iterator[Path]:
    """A temporary directory, removed on the way out however the run ends.

    Ctrl-C, ``kill`` and SIGHUP reach the body as :class:`KeyboardInterrupt` (see
    :func:`main`); while the directory is removed they are held, so a second Ctrl-C
    cannot cut the removal short, and delivered afterwards.
    """
    work = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield work
    finally:
        held = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            shutil.rmtree(work, ignore_errors=True)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)


def resolve(names: list[str], root: Path = ROOT) -> list[str]:
    """Repository-relative module paths for the command line's MODULE arguments.

    Raises:
        SystemExit: A name is neither a module nor a directory under ``adhere/``, or a
            named module has no tests mapped to it.
    """
    modules: list[str] = []
    for name in names:
        rel = name.rstrip("/")
        if not rel.endswith(".py") and "/" not in rel:  # a dotted name
            rel = rel.replace(".", "/")
            rel = rel if (root / rel).is_dir() else rel + ".py"
        path = root / rel
        if path.is_dir():
            found = sorted(
                str(p.relative_to(root))
                for p in path.glob("*.py")
                if p.name != "__init__.py" and mapped_tests(str(p.relative_to(root)))
            )
            if not found:
                raise SystemExit(f"mutation: no module under {rel}/ has tests mapped to it")
            modules.extend(found)
        elif path.is_file() and rel.startswith("adhere/"):
            if not mapped_tests(rel):
                raise SystemExit(
                    f"mutation: no tests are mapped to {rel}; add them to "
                    "scripts/mutation/_targets.py (TESTS)"
                )
            modules.append(rel)
        else:
            raise SystemExit(f"mutation: {name!r} is not a module or directory under adhere/")
    return list(dict.fromkeys(modules))


def _shared_data(root: Path) -> Path | None:
    """The benchmark data the tests read at ``<checkout>/../shared`` (a worktree's main's too)."""
    candidates = [root.parent / "shared"]
    common = subprocess.run(
        ["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    if common:
        candidates.append(Path(common).parent.parent / "shared")
    return next((c for c in candidates if c.is_dir()), None)


def copy_repository(root: Path, dest: Path) -> None:
    """Copy what git knows (tracked, or untracked and not ignored) from ``root`` to ``dest``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for raw in listed:
        if not raw:
            continue
        rel = os.fsdecode(raw)
        src = root / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    shared = _shared_data(root)
    if shared is not None:
        # The tests find the benchmark data next to the checkout.
        (dest.parent / "shared").symlink_to(shared)


def _importers(module: str, candidates: tuple[str, ...]) -> set[str]:
    """Of ``candidates``, those whose import imports ``module``: each child imports them.

    That is ``module`` itself, every module importing it directly or not (grimp's
    import graph), and every module inside a package that is one of those (importing
    ``a.b.c`` runs ``a/b/__init__.py`` first).
    """
    import grimp

    graph = grimp.build_graph(module.partition(".")[0], cache_dir=None)
    importers = {module, *graph.find_downstream_modules(module)}
    inside = {
        name
        for name in candidates
        if any(".".join(name.split(".")[:i]) in importers for i in range(1, name.count(".") + 1))
    }
    return importers | inside


def _baseline(worker: WorkerClient, module: str, repo: Path, *, first: bool) -> PytestRun:
    tests = mapped_tests(module)
    dotted = module.removesuffix(".py").replace("/", ".")
    trace = None if first else "/" + module
    run = worker.run(tests, 600.0, write_bytecode=first, probe=dotted, trace=trace)
    if run.code != 0:
        raise SystemExit(
            f"mutation: the tests of {module} fail before any mutation "
            f"(pytest exit {run.code}):\n{run.output}"
        )
    if run.module_file is None or not run.module_file.startswith(str(repo)):
        raise SystemExit(
            f"mutation: the mapped tests of {module} import it from "
            f"{run.module_file or 'nowhere'}, not from the copy"
        )
    return run


def run_module(
    module: str, repo: Path, work: Path, timeout: float | None
) -> tuple[_report.Score, list[Mutant]]:
    """Baseline, mutants, equivalents and tests of one module (in the copy ``repo``)."""
    tests = mapped_tests(module)
    path = repo / module
    dotted = module.removesuffix(".py").replace("/", ".")
    print(f"\n== {module}\n   tests: {' '.join(tests)}", flush=True)
    mutants, skipped = make_mutants(path, module, work / (dotted + ".sqlite"))
    mark_equivalents(mutants, _equivalents.load(EQUIVALENTS), path.read_text(encoding="utf-8"))
    with contextlib.ExitStack() as stack:
        worker = stack.enter_context(start_worker(repo, work))
        first = _baseline(worker, module, repo, first=True)
        # The mutants are imported from source: no stale bytecode of the original.
        Path(cache_from_source(str(path))).unlink(missing_ok=True)
        forbid = _importers(dotted, first.imported)
        problem = worker.preload([m for m in first.imported if m not in forbid], sorted(forbid))
        if problem:
            print(f"   not preloading adhere: {problem}", flush=True)
            stack.close()
            worker = stack.enter_context(start_worker(repo, work))
        baseline = _baseline(worker, module, repo, first=False)
        # The traced baseline is slow; the first run (untraced) times the tests.
        limit = timeout if timeout is not None else max(10.0, 5.0 * first.seconds)
        print(
            f"   baseline {baseline.seconds:.1f} s (first {first.seconds:.1f} s), "
            f"timeout {limit:.0f} s, {len(mutants)} mutants "
            f"({skipped} in annotations and parameter markers, or unwritable, not made)",
            flush=True,
        )
        assert baseline.coverage is not None
        run_mutants(mutants, path, worker, baseline.coverage, tests, limit)
    result = _report.score(module, mutants)
    print("\n".join(_report.module_section(result, mutants)), flush=True)
    return result, mutants


def main(argv: list[str] | None = None) -> int:
    """Run the mutation tests; exit 1 when a module scores under ``--fail-under``."""
    parser = argparse.ArgumentParser(prog="bash scripts/mutation.sh", description=__doc__)
    parser.add_argument("modules", nargs="*", metavar="MODULE")
    parser.add_argument("--timeout", type=float, help="seconds per mutant (default 5x baseline)")
    parser.add_argument("--fail-under", type=float, default=0.0, metavar="PCT")
    parser.add_argument("--list", action="store_true", help="print modules and their tests")
    args = parser.parse_args(argv)
    # `kill` (SIGTERM) and a closed terminal (SIGHUP) end the run like Ctrl-C: the
    # worker and its child stop, and the copy is removed.
    for signum in STOP_SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:  # nohup's SIGHUP stays ignored
            signal.signal(signum, _stop)
    modules = resolve(args.modules or list(DEFAULT_MODULES))
    if args.list:
        for module in modules:
            print(f"{module}: {' '.join(mapped_tests(module))}")
        return 0
    equivalents = _equivalents.load(EQUIVALENTS)
    results: list[_report.Score] = []
    used: set[_equivalents.Equivalent] = set()
    with scratch_directory() as work:
        repo = work / "repo"
        repo.mkdir()
        copy_repository(ROOT, repo)
        for module in modules:
            result, mutants = run_module(module, repo, work, args.timeout)
            results.append(result)
            used.update(m.entry for m in mutants if m.entry is not None)
    print("\n" + "\n".join(_report.table(results)))
    stale = [e for e in equivalents if e.module in modules and e not in used]
    for entry in stale:
        print(f"warning: equivalents.toml entry matched no mutant: {entry.module}: {entry.line}")
    low = [r for r in results if r.score is not None and r.score < args.fail_under]
    return 1 if low or any(r.errors for r in results) else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt as stop:
        for later in STOP_SIGNALS:  # the copy is gone: a further Ctrl-C changes nothing
            signal.signal(later, signal.SIG_IGN)
        signum = getattr(stop, "signum", signal.SIGINT)
        print(
            f"mutation: stopped by {signal.Signals(signum).name}; the temporary copy is removed",
            file=sys.stderr,
        )
        sys.exit(128 + signum)
