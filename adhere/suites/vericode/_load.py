"""Reading base tasks: the built-in set, native files, BigCodeBench- and LiveCodeBench-style JSONL.

- **native**: YAML (a list of tasks) or JSONL in the :class:`~adhere.suites.vericode.Task`
  shape; the built-in set (``data/tasks.yaml``, written by this project) is one.
- **BigCodeBench** (one JSON object a line): ``task_id``, ``instruct_prompt`` (else
  ``complete_prompt``), ``code_prompt`` + ``canonical_solution`` (the reference),
  ``test`` (a unittest module calling ``entry_point``, usually ``task_func``) and
  ``libs`` (a list, or its Python text as the published files hold it).
- **LiveCodeBench** (one JSON object a line): ``question_id``, ``question_title``,
  ``question_content``, ``starter_code``, ``public_test_cases`` and
  ``private_test_cases`` (JSON text of ``[{input, output, testtype}]``; the private
  cases may be base64 of zlib of a pickled JSON string, which is unpickled with a loader
  that refuses every class — only plain strings, numbers, lists and dicts load) and
  ``metadata`` (``func_name`` for LeetCode-style ``functional`` tests, run as asserts on
  ``Solution().func_name(*args)``). ``stdin`` tests become stdin/stdout cases. No
  reference solutions: the oracle cannot answer these tasks.

The format is detected from the first record's keys unless given.
"""

from __future__ import annotations

import ast
import base64
import io
import pickle
import zlib
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import ValidationError

from adhere.errors import SpecError
from adhere.spec import format_location, parse_json, parse_yaml, read_text
from adhere.suites.vericode._task import Task, TaskTests, derive_tags, safe_id

__all__ = ["TaskFormat", "builtin_tasks", "load_tasks", "parse_task"]

TaskFormat = Literal["auto", "native", "bigcodebench", "livecodebench"]


def builtin_tasks() -> list[Task]:
    """The base tasks written by this project (``data/tasks.yaml``)."""
    text = (
        resources.files("adhere.suites.vericode")
        .joinpath("data/tasks.yaml")
        .read_text(encoding="utf-8")
    )
    records = yaml.safe_load(text)
    return [
        parse_task({**r, "source": "adhere"}, "native", where=f"builtin[{i}]")
        for i, r in enumerate(records)
    ]


def _records(path: Path) -> Iterable[tuple[str, Any]]:
    text = read_text(path)
    if path.suffix in (".yaml", ".yml"):
        data = parse_yaml(text, file=str(path))
        if not isinstance(data, list):
            raise SpecError("expected a YAML list of tasks", file=str(path))
        for i, item in enumerate(data):
            yield f"{path}[{i}]", item
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield f"{path}:{number}", parse_json(line, file=str(path), line=number)


def detect_format(record: dict[str, Any]) -> TaskFormat:
    """Which format a record is in, from its keys."""
    if "question_content" in record or "public_test_cases" in record:
        return "livecodebench"
    if "canonical_solution" in record and ("instruct_prompt" in record or "test" in record):
        return "bigcodebench"
    return "native"


def load_tasks(path: str | Path, fmt: TaskFormat = "auto") -> list[Task]:
    """Every task of a file (ids must be unique).

    Raises:
        SpecError: Unreadable file, bad record (naming file:line and field) or no tasks.
    """
    path = Path(path)
    tasks: list[Task] = []
    seen: set[str] = set()
    for where, record in _records(path):
        if not isinstance(record, dict):
            raise SpecError("expected a JSON object (one task)", file=where)
        found = detect_format(record) if fmt == "auto" else fmt
        task = parse_task(record, found, where=where)
        if task.id in seen:
            raise SpecError(f"duplicate task id {task.id!r}", file=where, field="id")
        seen.add(task.id)
        tasks.append(task)
    if not tasks:
        raise SpecError("no tasks in file", file=str(path))
    return tasks


def parse_task(record: dict[str, Any], fmt: TaskFormat, *, where: str = "") -> Task:
    """One record in the given format as a :class:`Task`.

    Raises:
        SpecError: A required field is missing or malformed (naming ``where``).
    """
    if fmt == "bigcodebench":
        record = _from_bigcodebench(record, where)
    elif fmt == "livecodebench":
        record = _from_livecodebench(record, where)
    try:
        task = Task.model_validate(record)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise SpecError(err["msg"], file=where, field=format_location(err["loc"])) from None
    if not task.tags and task.source not in ("adhere",):
        task = task.model_copy(
            update={"tags": derive_tags(task.prompt, task.libs, task.solution or "")}
        )
    return task


def _need(record: dict[str, Any], key: str, where: str) -> Any:
    if key not in record or record[key] in (None, ""):
        raise SpecError("required field is missing", file=where, field=key)
    return record[key]


def _libs(raw: Any, where: str) -> list[str]:
    if raw in (None, ""):
        return []
    if isinstance(raw, str):
        try:
            raw = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            raise SpecError("expected a list of library names", file=where, field="libs") from None
    if not isinstance(raw, list | tuple):
        raise SpecError("expected a list of library names", file=where, field="libs")
    return [str(lib) for lib in raw]


def _from_bigcodebench(record: dict[str, Any], where: str) -> dict[str, Any]:
    task_id = str(_need(record, "task_id", where))
    prompt = record.get("instruct_prompt") or _need(record, "complete_prompt", where)
    head = record.get("code_prompt") or ""
    body = record.get("canonical_solution") or ""
    return {
        "id": safe_id(task_id),
        "prompt": str(prompt),
        "entry_point": str(record.get("entry_point") or "task_func"),
        "kind": "function",
        "tests": {"mode": "unittest", "code": str(_need(record, "test", where))},
        "solution": (head + body) if body else None,
        "libs": _libs(record.get("libs"), where),
        "source": "bigcodebench",
    }


class _PlainUnpickler(pickle.Unpickler):
    """Loads strings, numbers, lists and dicts; refuses every class (no code runs)."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing to load {module}.{name}")


def _cases(raw: Any, where: str, field: str) -> list[dict[str, Any]]:
    if raw in (None, ""):
        return []
    if isinstance(raw, str):
        try:
            raw = parse_json(raw, file=where)
        except SpecError:
            try:
                packed = zlib.decompress(base64.b64decode(raw))
                raw = parse_json(_PlainUnpickler(io.BytesIO(packed)).load(), file=where)
            except Exception as exc:  # any malformed payload: one clear error
                raise SpecError(
                    f"expected JSON test cases (or base64/zlib/pickled JSON): {exc}",
                    file=where,
                    field=field,
                ) from None
    if not isinstance(raw, list) or not all(isinstance(c, dict) for c in raw):
        raise SpecError("expected a list of {input, output, testtype}", file=where, field=field)
    return raw


def _functional_asserts(cases: list[dict[str, Any]], func: str, where: str) -> str:
    lines = []
    for case in cases:
        try:
            text = str(case["input"])
            args = [parse_json(line, file=where) for line in text.splitlines() if line.strip()]
            expected = parse_json(str(case["output"]), file=where)
        except (KeyError, SpecError) as exc:
            message = exc.message if isinstance(exc, SpecError) else f"no {exc}"
            raise SpecError(
                f"functional test case is not JSON: {message}", file=where, field="test_cases"
            ) from None
        lines.append(f"assert Solution().{func}(*{args!r}) == {expected!r}")
    return "\n".join(lines) + "\n"


def _from_livecodebench(record: dict[str, Any], where: str) -> dict[str, Any]:
    qid = str(_need(record, "question_id", where))
    content = str(_need(record, "question_content", where))
    cases = _cases(record.get("public_test_cases"), where, "public_test_cases")
    cases += _cases(record.get("private_test_cases"), where, "private_test_cases")
    if not cases:
        raise SpecError("the task has no test cases", file=where, field="public_test_cases")
    starter = str(record.get("starter_code") or "")
    functional = any(c.get("testtype") == "functional" for c in cases)
    title = str(record.get("question_title") or "")
    prompt = f"{title}\n\n{content}".strip() if title else content
    if functional:
        meta = record.get("metadata") or {}
        if isinstance(meta, str):
            try:
                meta = parse_json(meta or "{}", file=where)
            except SpecError as exc:
                raise SpecError(exc.message, file=where, field="metadata") from None
        if not isinstance(meta, dict):
            raise SpecError("expected an object (or its JSON text)", file=where, field="metadata")
        func = str(meta.get("func_name") or "")
        if not func:
            raise SpecError(
                "functional tests need metadata.func_name", file=where, field="metadata"
            )
        tests: dict[str, Any] = {
            "mode": "asserts",
            "code": _functional_asserts(cases, func, where),
        }
        prompt += f"\n\nComplete this starter code:\n```python\n{starter.rstrip()}\n```"
        kind, entry = "function", func
    else:
        for n, case in enumerate(cases):
            missing = [key for key in ("input", "output") if key not in case]
            if missing:
                raise SpecError(
                    f"test case {n + 1} has no {' or '.join(missing)}",
                    file=where,
                    field="test_cases",
                )
        tests = {"mode": "io", "cases": [(str(c["input"]), str(c["output"])) for c in cases]}
        prompt += "\n\nRead the input from standard input and write the answer to standard output."
        kind, entry = "program", "main"
    try:
        checked_tests = TaskTests.model_validate(tests).model_dump()
    except ValidationError as exc:
        err = exc.errors()[0]
        raise SpecError(err["msg"], file=where, field="test_cases") from None
    return {
        "id": safe_id(qid),
        "prompt": prompt,
        "entry_point": entry,
        "kind": kind,
        "tests": checked_tests,
        "solution": None,
        "source": "livecodebench",
    }
