"""The prompts of the two protocols, rendered from templates (:mod:`._templates`).

- single-turn: one user message, the task followed by the instructions' generation
  prompts (adhere: a numbered list; the paper: "Additionally, ensure …");
- multi-turn editing: the bare task first, then one edit prompt per turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from adhere.suites.vericode._catalog import by_id
from adhere.suites.vericode._instruction import ParamValue
from adhere.suites.vericode._task import Task
from adhere.suites.vericode._templates import ADHERE_PROMPTS, Prompts

__all__ = ["SYSTEM_PROMPT", "multi_turns", "single_turn"]

SYSTEM_PROMPT = ADHERE_PROMPTS.system

Chosen = Sequence[tuple[str, Mapping[str, ParamValue]]]


def single_turn(task: Task, chosen: Chosen, prompts: Prompts = ADHERE_PROMPTS) -> str:
    """The task with the generation prompts of ``chosen`` (k = 0: the bare task)."""
    text = task.prompt.strip()
    if not chosen:
        return prompts.render("bare", task=text)
    lines = [by_id(i).render_generation(params) for i, params in chosen]
    if len(lines) == 1 and prompts.single_one:
        return prompts.render("single_one", task=text, instruction=lines[0])
    numbered = "\n".join(f"{number}. {line}" for number, line in enumerate(lines, start=1))
    return prompts.render("single", task=text, instructions=numbered, k=len(lines))


def multi_turns(task: Task, chosen: Chosen, prompts: Prompts = ADHERE_PROMPTS) -> list[str]:
    """The bare task, then one edit prompt per instruction."""
    return [prompts.render("bare", task=task.prompt.strip())] + [
        prompts.render("edit", instruction=by_id(i).render_edit(params), turn=turn)
        for turn, (i, params) in enumerate(chosen, start=1)
    ]
