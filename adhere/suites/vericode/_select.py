"""Choosing a task's instructions: a seeded deterministic selector; the LLM selector's I/O.

Both walk a seeded random permutation of the 30 instructions (the same seed and task
id always give the same permutation) and keep instructions that are relevant to the
task and do not conflict with an earlier pick, until ``k`` are kept.

- Deterministic (offline): relevance by rule — an instruction with ``needs`` tags is
  relevant only to tasks carrying one of them (pathlib needs file handling, the
  exception rules need errors, pandas needs pandas); parameters stay at their defaults.
- LLM: the model is shown the task and the permutation and asked for the first ``k``
  relevant, non-conflicting instructions with parameter values
  (:func:`selector_prompt`); :func:`parse_selector_reply` reads its JSON, drops
  unknown or repeated ids and picks that conflict with earlier ones (by rule), validates
  the parameters (:func:`~adhere.suites.vericode.validate_params`) and, when fewer
  than ``k`` remain, fills up by the deterministic walk (noted). The model call itself
  happens at the edge (``adhere generate vericode``).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from adhere.suites.vericode._catalog import INSTRUCTIONS, by_id, conflicts
from adhere.suites.vericode._instruction import ParamValue, validate_params
from adhere.suites.vericode._task import Task

__all__ = [
    "SELECTOR_SYSTEM",
    "Chosen",
    "Selection",
    "parse_selector_reply",
    "permutation",
    "relevant",
    "select_deterministic",
    "selector_prompt",
]

SELECTOR_SYSTEM = (
    "You choose coding-style instructions for programming tasks. Answer with JSON only."
)
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


class Chosen(BaseModel):
    """One chosen instruction with validated parameters."""

    model_config = ConfigDict(extra="forbid")

    id: str
    params: dict[str, ParamValue] = Field(default_factory=dict)


class Selection(BaseModel):
    """A task with its chosen instructions, in order (a line of a selections file)."""

    model_config = ConfigDict(extra="forbid")

    task: Task
    instructions: list[Chosen]
    selector: str = "deterministic"
    seed: int = 0
    notes: list[str] = Field(default_factory=list)


def permutation(task_id: str, seed: int) -> list[str]:
    """The instruction ids in the order the selectors walk them for this task."""
    digest = hashlib.sha256(f"vericode:{seed}:{task_id}".encode()).digest()
    order = [i.id for i in INSTRUCTIONS]
    random.Random(int.from_bytes(digest[:8], "big")).shuffle(order)
    return order


def relevant(instruction_id: str, task: Task) -> bool:
    """Rule-based relevance: instructions with ``needs`` tags fit tasks carrying one."""
    needs = by_id(instruction_id).needs
    return not needs or bool(needs & set(task.tags))


def _walk(task: Task, order: Sequence[str], k: int, kept: list[str]) -> list[str]:
    out = list(kept)
    for candidate in order:
        if len(out) >= k:
            break
        if candidate in out or not relevant(candidate, task):
            continue
        if any(conflicts(candidate, earlier) for earlier in out):
            continue
        out.append(candidate)
    return out


def select_deterministic(task: Task, k: int, seed: int) -> Selection:
    """The seeded rule-based selection of ``k`` instructions (default parameters)."""
    picked = _walk(task, permutation(task.id, seed), k, [])
    return Selection(
        task=task,
        instructions=[Chosen(id=i, params=by_id(i).defaults()) for i in picked],
        selector="deterministic",
        seed=seed,
    )


def selector_prompt(task: Task, order: Sequence[str], k: int) -> str:
    """The user message asking a model to choose ``k`` instructions for the task."""
    lines = []
    for number, instruction_id in enumerate(order, start=1):
        instruction = by_id(instruction_id)
        params = "; ".join(p.describe() for p in instruction.params)
        lines.append(
            f"{number}. [{instruction.id}] {instruction.title}: "
            f"{instruction.render_generation()}" + (f" Parameters: {params}." if params else "")
        )
    return (
        "Here is a programming task:\n\n<task>\n"
        f"{task.prompt.strip()}\n</task>\n\n"
        f"Go through the candidate instructions below in the order given and keep the first "
        f"{k} that are relevant to this task (an instruction is relevant when following it "
        "can change the code a solution would contain) and that do not conflict with an "
        "instruction kept before it. For instructions with parameters, choose values that "
        "suit the task.\n\n"
        + "\n".join(lines)
        + '\n\nAnswer with one JSON object: {"selected": [{"id": "<instruction id>", '
        '"params": {<name>: <value>}}, ...]} listing the kept instructions in order.'
    )


def _reply_items(reply: str) -> tuple[list[Any], str | None]:
    match = _OBJECT.search(reply)
    if match is None:
        return [], "the reply holds no JSON object"
    try:
        data = json.loads(match.group(0))
    except json.JSONDecodeError as exc:
        return [], f"the reply's JSON does not parse: {exc.msg}"
    items = data.get("selected") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return [], "the reply's JSON has no 'selected' list"
    return items, None


def parse_selector_reply(
    reply: str, task: Task, k: int, seed: int, *, selector: str = "llm"
) -> Selection:
    """Read a selector model's reply into a validated :class:`Selection` of ``k``."""
    notes: list[str] = []
    items, problem = _reply_items(reply)
    if problem is not None:
        notes.append(problem)
    kept: list[Chosen] = []
    for item in items:
        if len(kept) >= k:
            notes.append("more instructions than asked; the rest dropped")
            break
        raw_id = item.get("id") if isinstance(item, dict) else item
        instruction_id = str(raw_id)
        try:
            instruction = by_id(instruction_id)
        except KeyError:
            notes.append(f"unknown instruction {instruction_id!r} dropped")
            continue
        if any(c.id == instruction_id for c in kept):
            notes.append(f"{instruction_id} repeated; dropped")
            continue
        clash = [c.id for c in kept if conflicts(instruction_id, c.id)]
        if clash:
            notes.append(f"{instruction_id} conflicts with {clash[0]}; dropped")
            continue
        proposed = item.get("params") if isinstance(item, dict) else None
        checked = validate_params(instruction, proposed if isinstance(proposed, dict) else None)
        notes += checked.notes
        kept.append(Chosen(id=instruction.id, params=checked.values))
    if len(kept) < k:
        filled = _walk(task, permutation(task.id, seed), k, [c.id for c in kept])
        extra = filled[len(kept) :]
        if extra:
            notes.append(f"filled by the deterministic walk: {', '.join(extra)}")
        kept += [Chosen(id=i, params=by_id(i).defaults()) for i in extra]
    return Selection(task=task, instructions=kept, selector=selector, seed=seed, notes=notes)
