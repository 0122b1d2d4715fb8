"""The prompts of the two protocols (wording by this project).

- single-turn: one user message, the task followed by a numbered list of the
  instructions' generation prompts (no list when k = 0);
- multi-turn editing: the bare task first, then one edit prompt per turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from adhere.suites.vericode._catalog import by_id
from adhere.suites.vericode._instruction import ParamValue
from adhere.suites.vericode._task import Task

__all__ = ["SYSTEM_PROMPT", "multi_turns", "single_turn"]

SYSTEM_PROMPT = (
    "You are an experienced Python developer. Solve each programming task in Python and "
    "always give the complete code of your solution."
)

Chosen = Sequence[tuple[str, Mapping[str, ParamValue]]]


def single_turn(task: Task, chosen: Chosen) -> str:
    """The task with the generation prompts of ``chosen`` as a numbered list."""
    text = task.prompt.strip()
    if not chosen:
        return text
    items = [
        f"{number}. {by_id(instruction_id).render_generation(params)}"
        for number, (instruction_id, params) in enumerate(chosen, start=1)
    ]
    return f"{text}\n\nFollow these instructions:\n" + "\n".join(items)


def multi_turns(task: Task, chosen: Chosen) -> list[str]:
    """The bare task, then one edit prompt per instruction."""
    return [task.prompt.strip()] + [
        by_id(instruction_id).render_edit(params) for instruction_id, params in chosen
    ]
