"""Reading GuideBench task files: the public data directory, one file, or generated tasks.

A task file is a JSON list (or JSONL, one task a line) of objects with
``Instruction`` (text), ``Guidelines`` (a list of ``{type, rule_id, rule_text}``),
``Context`` (text), ``MultipleOptions`` (option tasks: lines ``A. …``) and
``Groundtruth`` (``ReferenceAnswer`` + ``ReferenceAnalysis`` for question-answer
tasks, ``OptimalOption`` + ``AnswerAnalysis`` for option tasks). Generated coupon
tasks add ``Id`` and ``Problem``; their answer is checked by solving the problem
again. Errors name the file, the task's index and the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from adhere.errors import SpecError
from adhere.spec import json_kind, parse_json, read_text
from adhere.suites.guidebench._coupon_json import problem_from_json
from adhere.suites.guidebench._coupons import money, robust_total
from adhere.suites.guidebench._normalize import normalize
from adhere.suites.guidebench._task import CATEGORIES, Rule, Task

_KEYS = {"Instruction", "Guidelines", "Context", "MultipleOptions", "Groundtruth", "Id", "Problem"}
_OPTION_LINE = re.compile(r"^\s*([A-Z])\s*[.．、:：]\s*(.*)$")


def load_directory(path: Path) -> list[Task]:
    """Every task of the six public files in ``path``, in the paper's category order."""
    missing = [info.file for info in CATEGORIES.values() if not (path / info.file).is_file()]
    if missing:
        raise SpecError(
            f"not a GuideBench data directory: missing {', '.join(missing)}", file=str(path)
        )
    tasks = []
    for key, info in CATEGORIES.items():
        tasks += load_file(path / info.file, category=key)
    return tasks


def category_of(path: Path, records: list[Any]) -> str:
    """The category of a file: by its name (``math_tasks.json``), or generated math tasks."""
    for key, info in CATEGORIES.items():
        if path.name == info.file or path.stem in (key, f"{key}_tasks"):
            return key
    if any(isinstance(r, Mapping) and "Problem" in r for r in records):
        return "math"
    names = ", ".join(info.file for info in CATEGORIES.values())
    raise SpecError(
        f"cannot tell the category of this file; name it like one of {names} "
        "(or give generated coupon tasks, which carry 'Problem')",
        file=str(path),
    )


def load_file(path: Path, *, category: str | None = None) -> list[Task]:
    """The tasks of one file (``category``: taken from the file name when not given)."""
    records = read_records(path)
    key = category or category_of(path, records)
    if key not in CATEGORIES:
        raise SpecError(f"unknown category {key!r}; known: {list(CATEGORIES)}", file=str(path))
    tasks = [
        parse_task(record, key, index, where=f"{path}[{index}]")
        for index, record in enumerate(records)
    ]
    seen: set[str] = set()
    for index, task in enumerate(tasks):
        if task.id in seen:
            raise SpecError(f"duplicate task id {task.id!r}", file=f"{path}[{index}]", field="Id")
        seen.add(task.id)
    if not tasks:
        raise SpecError("no tasks in file", file=str(path))
    return tasks


def read_records(path: Path) -> list[Any]:
    """The JSON values of a task file (a JSON list, or JSONL)."""
    text = read_text(path)
    if path.suffix == ".jsonl":
        return [
            parse_json(line, file=str(path), line=number)
            for number, line in enumerate(text.splitlines(), start=1)
            if line.strip()
        ]
    data = parse_json(text, file=str(path))
    if not isinstance(data, list):
        raise SpecError(f"expected a JSON list of tasks, got {json_kind(data)}", file=str(path))
    return data


def parse_task(record: Any, category: str, index: int, *, where: str) -> Task:
    """One task from its JSON object (``where`` names it in errors)."""
    info = CATEGORIES[category]
    if not isinstance(record, Mapping):
        raise SpecError(f"expected an object, got {json_kind(record)}", file=where)
    unknown = sorted(set(record) - _KEYS)
    if unknown:
        raise SpecError(f"unknown field(s) {unknown}; expected {sorted(_KEYS)}", file=where)
    instruction = _text(record, "Instruction", where)
    context = _text(record, "Context", where)
    guidelines = _guidelines(record.get("Guidelines"), where)
    truth = record.get("Groundtruth")
    if not isinstance(truth, Mapping):
        raise SpecError("expected an object", file=where, field="Groundtruth")
    options: tuple[tuple[str, str], ...] = ()
    if info.kind == "option":
        options = _options(record.get("MultipleOptions"), where)
        answer_key, analysis_key = "OptimalOption", "AnswerAnalysis"
    else:
        answer_key, analysis_key = "ReferenceAnswer", "ReferenceAnalysis"
    if answer_key not in truth:
        raise SpecError(f"missing {answer_key}", file=where, field=f"Groundtruth.{answer_key}")
    gold = normalize(info.kind, truth[answer_key], tuple(letter for letter, _ in options))
    if gold.value is None:
        raise SpecError(
            f"unusable reference answer: {gold.error}",
            file=where,
            field=f"Groundtruth.{answer_key}",
        )
    analysis = truth.get(analysis_key, "")
    if not isinstance(analysis, str):
        raise SpecError("expected text", file=where, field=f"Groundtruth.{analysis_key}")
    task_id = record.get("Id", f"{category}-{index:03d}")
    if not isinstance(task_id, str) or not task_id:
        raise SpecError("expected a non-empty string", file=where, field="Id")
    problem = record.get("Problem")
    if problem is not None:
        _check_problem(problem, gold.value, where)
    return Task(
        id=task_id,
        category=category,
        index=index,
        instruction=instruction,
        guidelines=guidelines,
        context=context,
        options=options,
        gold=gold.value,
        analysis=analysis,
        source="generated" if problem is not None else "published",
        problem=dict(problem) if problem is not None else None,
        reference=truth[answer_key],
        options_text=record.get("MultipleOptions", "") if options else "",
    )


def _text(record: Mapping[str, Any], key: str, where: str) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value.strip():
        raise SpecError("expected non-empty text", file=where, field=key)
    return value


def _guidelines(value: Any, where: str) -> tuple[Rule, ...]:
    if not isinstance(value, list) or not value:
        raise SpecError("expected a non-empty list of rules", file=where, field="Guidelines")
    rules = []
    for n, raw in enumerate(value):
        field = f"Guidelines[{n}]"
        if not isinstance(raw, Mapping):
            raise SpecError("expected an object", file=where, field=field)
        parts = []
        for key in ("type", "rule_id", "rule_text"):
            text = raw.get(key)
            if not isinstance(text, str):
                raise SpecError("expected text", file=where, field=f"{field}.{key}")
            parts.append(text)
        rules.append(Rule(*parts))
    return tuple(rules)


def _options(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, str) or not value.strip():
        raise SpecError("expected option lines 'A. …'", file=where, field="MultipleOptions")
    options: list[list[str]] = []
    for line in value.splitlines():
        match = _OPTION_LINE.match(line)
        if match:
            options.append([match.group(1), match.group(2).strip()])
        elif line.strip() and options:
            options[-1][1] += "\n" + line.strip()
        elif line.strip():
            raise SpecError(
                f"text before the first option: {line[:40]!r}", file=where, field="MultipleOptions"
            )
    letters = [letter for letter, _ in options]
    if len(letters) < 2 or len(set(letters)) != len(letters):
        raise SpecError(
            f"expected at least two distinct options, got {letters}",
            file=where,
            field="MultipleOptions",
        )
    return tuple((letter, text) for letter, text in options)


def _check_problem(problem: Any, gold: str, where: str) -> None:
    total = robust_total(problem_from_json(problem, where=where))
    if total is None:
        raise SpecError(
            "the problem's answer depends on a reading the rules leave open",
            file=where,
            field="Problem",
        )
    try:
        solved = money(total)
    except ValueError:
        solved = f"{float(total):.4f}…"
    if solved != gold:
        raise SpecError(
            f"ReferenceAnswer {gold} differs from the solver's {solved}",
            file=where,
            field="Groundtruth.ReferenceAnswer",
        )
