"""``adhere generate vericode``: choosing each task's instructions, with a model or by seed.

The selector is ``deterministic`` (the suite's seeded rule-based walk; no model) or a
model: an endpoint YAML file, or a model string for the scripted policy server (a test
double this command starts for itself, e.g. ``vericode-selector:seed=1``). The model
sees the task and a seeded permutation of the 30 instructions and answers JSON; the
suite's parser keeps relevant, non-conflicting picks, validates their parameters by rule
and fills up to ``k`` by the deterministic walk when the reply falls short
(:func:`adhere.suites.vericode.parse_selector_reply`). A call that fails ``attempts``
times leaves that task to the deterministic walk, noted in the selection.

The output is a selections file: one JSON object a line (the task, its chosen
instructions with parameters, the selector, the seed and notes), read by the VeriCode
suite as a Benchmark's ``path``.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from contextlib import AsyncExitStack
from pathlib import Path

from adhere.errors import SpecError
from adhere.judging import JudgeCall
from adhere.scoring import JudgeAsks
from adhere.suites.vericode import (
    SELECTOR_SYSTEM,
    Selection,
    Task,
    parse_selector_reply,
    permutation,
    select_deterministic,
    selector_prompt,
)
from adhere.workflows._checkgen import resolve_endpoint, serve_endpoint

__all__ = ["load_elo", "load_scores", "select_instructions", "write_selections"]

_SELECTOR = "selector"


async def select_instructions(
    tasks: Sequence[Task],
    *,
    selector: str,
    k: int,
    seed: int,
    parallelism: int = 4,
    attempts: int = 2,
) -> list[Selection]:
    """One selection per task, in order (see the module docstring)."""
    if selector == "deterministic":
        return [select_deterministic(t, k, seed) for t in tasks]
    endpoint = resolve_endpoint(selector)
    async with AsyncExitStack() as stack:
        endpoint = await serve_endpoint(endpoint, stack)
        asks = JudgeAsks({_SELECTOR: endpoint})
        stack.push_async_callback(asks.aclose)
        ask = asks.ask_for(_SELECTOR)
        gate = asyncio.Semaphore(max(1, parallelism))

        async def one(task: Task) -> Selection:
            prompt = selector_prompt(task, permutation(task.id, seed), k)
            problems: list[str] = []
            for attempt in range(1, attempts + 1):
                call = JudgeCall(
                    id=f"vericode-select-{task.id}-{attempt}",
                    system=SELECTOR_SYSTEM,
                    user=prompt,
                    max_tokens=endpoint.max_tokens or 1024,
                    judge=_SELECTOR,
                    model=endpoint.model,
                    attempt=attempt,
                )
                try:
                    async with gate:
                        reply = await ask(call)
                except Exception as exc:  # a failed call: try again, then fall back by rule
                    problems.append(f"attempt {attempt}: {type(exc).__name__}: {exc}")
                    continue
                return parse_selector_reply(reply, task, k, seed, selector=endpoint.model)
            fallback = parse_selector_reply("", task, k, seed, selector=endpoint.model)
            fallback.notes[:0] = problems
            return fallback

        return list(await asyncio.gather(*(one(t) for t in tasks)))


def write_selections(selections: Sequence[Selection], out: Path) -> None:
    """Write a selections file atomically (one JSON object a line)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        for selection in selections:
            handle.write(selection.model_dump_json() + "\n")
    os.replace(tmp, out)


def _rows(path: Path) -> list[list[str]]:
    """Rows of a CSV file (header skipped when its second cell is not a number)."""
    import csv

    try:
        with path.open(encoding="utf-8", newline="") as handle:
            rows = [[c.strip() for c in row] for row in csv.reader(handle) if any(row)]
    except OSError as exc:
        raise SpecError(f"cannot read the file: {exc.strerror}", file=str(path)) from None
    if rows and len(rows[0]) > 1 and not _is_number(rows[0][1]):
        rows = rows[1:]
    return rows


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _mapping(path: Path) -> dict[str, object] | None:
    """A YAML/JSON mapping file's content, or ``None`` for other files (CSV)."""
    if path.suffix not in (".yaml", ".yml", ".json"):
        return None
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise SpecError(f"cannot read the file: {exc}", file=str(path)) from None
    if not isinstance(data, dict):
        raise SpecError("expected a mapping of model to values", file=str(path))
    return {str(k): v for k, v in data.items()}


def load_elo(path: Path) -> dict[str, float]:
    """Model → Elo from a CSV (``model,elo``) or a YAML/JSON mapping."""
    mapping = _mapping(path)
    items = list(mapping.items()) if mapping is not None else [(r[0], r[1]) for r in _rows(path)]
    out = {}
    for number, (model, value) in enumerate(items, start=1):
        try:
            out[model] = float(str(value))
        except ValueError:
            raise SpecError(
                f"expected a number for {model!r}, got {value!r}", file=str(path), field=f"{number}"
            ) from None
    if not out:
        raise SpecError("no models in the Elo table", file=str(path))
    return out


def load_scores(path: Path) -> dict[str, tuple[float, float]]:
    """Model → (IF, Func) from a CSV (``model,if,func``; shares in [0, 1] or percentages)."""
    out = {}
    for number, row in enumerate(_rows(path), start=1):
        if len(row) < 3 or not (_is_number(row[1]) and _is_number(row[2])):
            raise SpecError(
                "expected model,if,func with numbers", file=str(path), field=f"row {number}"
            )
        values = [float(row[1]), float(row[2])]
        values = [v / 100 if v > 1 else v for v in values]
        out[row[0]] = (values[0], values[1])
    if not out:
        raise SpecError("no models in the scores file", file=str(path))
    return out
