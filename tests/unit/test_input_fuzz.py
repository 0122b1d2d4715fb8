"""Fuzzed specs, bindings and datasets: a clear error naming file and field, never a traceback.

Each case mutates one file of an example (see :mod:`tests.fuzz_inputs`) and runs
``validate_files`` — what ``adhere validate`` and the start of ``adhere run`` share —
in process, within a per-case deadline. Every outcome must be an acceptance or one of
the project's errors whose message names the file and the field (or line).
``ADHERE_FUZZ_CASES`` and ``ADHERE_FUZZ_SEED`` run more cases or other ones.
"""

from __future__ import annotations

import os
import random
import re
import signal
import traceback
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from adhere.errors import AdhereError, SecretError, SpecError
from adhere.runner import validate_files
from tests.fuzz_inputs import Group, build_groups, mutate
from tests.helpers import run_cli

CASES = int(os.environ.get("ADHERE_FUZZ_CASES", "1000"))
SEED = int(os.environ.get("ADHERE_FUZZ_SEED", "13"))
CASE_SECONDS = 10.0

_WHOLE_FILE = (
    "no YAML documents found",
    "expected one YAML document",
    "expected a mapping with apiVersion",
    "cannot read file",
    "no tasks in file",
    "no instances in file",
    "no samples in file",
    "expected a non-empty list of samples",
    "cannot tell the category of this file",
    "expected a JSON list of tasks",
)
"""Errors about a whole file or document, where no field applies."""


class Hang(BaseException):
    """A case ran past its deadline (BaseException: no ``except Exception`` swallows it)."""


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: object) -> None:
        raise Hang

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def names_place(exc: AdhereError, root: Path) -> bool:
    """Whether the message names a file under ``root`` and a field or line in it."""
    message = str(exc)
    if str(root) not in message:
        return False
    if isinstance(exc, SecretError):
        return ".apiKey" in message
    assert isinstance(exc, SpecError)
    if exc.field or re.search(r"\bline \d+", message):
        return True
    if exc.file and re.search(r"(:\d+|\[\d+\])( \(|$)", exc.file):
        return True  # a data file's line or record: file.jsonl:3, tasks.json[2]
    return any(text in message for text in _WHOLE_FILE)


def run_case(group: Group, root: Path) -> tuple[str, str | None]:
    """The outcome (``accepted``, ``error``, ``problem``) and what went wrong, if anything."""
    try:
        with deadline(CASE_SECONDS):
            validate_files(group.files, env={})
    except Hang:
        return "problem", f"no answer within {CASE_SECONDS:g} s"
    except AdhereError as exc:
        if not names_place(exc, root):
            return "problem", f"{type(exc).__name__} without file and field: {exc}"
        return "error", None
    except Exception as exc:  # the bug this test is for
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return "problem", (
            f"traceback: {type(exc).__name__}: {str(exc)[:200]} "
            f"(at {Path(where.filename).name}:{where.lineno})"
        )
    return "accepted", None


def test_fuzzed_inputs_give_clear_errors_and_never_a_traceback(tmp_path: Path) -> None:
    groups = build_groups(tmp_path)
    rng = random.Random(SEED)
    problems: list[str] = []
    outcomes: Counter[str] = Counter()
    for case in range(CASES):
        group = rng.choice(groups)
        target = rng.choice(group.targets)
        data, what = mutate(rng, target, group.originals[target])
        target.write_bytes(data)
        try:
            outcome, problem = run_case(group, tmp_path)
        finally:
            target.write_bytes(group.originals[target])
        outcomes[outcome] += 1
        if problem:
            problems.append(f"case {case} ({group.name}, {target.name}: {what}): {problem}")
    assert not problems, f"{len(problems)} of {CASES} cases:\n" + "\n".join(problems[:40])
    # Mutations that keep a spec valid and ones that break it both occur.
    assert outcomes["accepted"] > CASES // 20 and outcomes["error"] > CASES // 2, outcomes


def test_the_unmutated_seeds_validate(tmp_path: Path) -> None:
    """The seeds themselves pass (so the fuzz starts from valid inputs)."""
    for group in build_groups(tmp_path):
        if group.name in ("kubernetes-sweep", "manyih-options", "guidebench-options"):
            continue  # keys from Secrets; data outside the repository
        for done in validate_files(group.files, env={}):
            assert done.lines and all(" ok" in line or "instance data" in line or
                                      line.startswith("  ") for line in done.lines)  # fmt: skip


def test_fuzzed_errors_reach_the_user_as_one_line_and_exit_status_2(tmp_path: Path) -> None:
    """A few rejected cases through the real command: the same message, one line, status 2."""
    groups = build_groups(tmp_path)
    rng = random.Random(SEED + 1)
    shown = 0
    while shown < 3:
        group = rng.choice(groups)
        target = rng.choice(group.targets)
        data, _what = mutate(rng, target, group.originals[target])
        target.write_bytes(data)
        try:
            try:
                validate_files(group.files, secrets=False)
                continue
            except AdhereError as exc:
                expected = f"error: {exc}"
            proc = run_cli("validate", "--no-secrets", *map(str, group.files))
        finally:
            target.write_bytes(group.originals[target])
        assert proc.returncode == 2, proc.stderr
        assert "Traceback" not in proc.stderr
        assert proc.stderr.rstrip("\n").split("\n") == [expected]
        shown += 1
