"""Putting a task's prompt together: frame (adhere's or the paper's), templates, shots. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from string import Template

from adhere.errors import SpecError
from adhere.suites.guidebench._paper import (
    answer_fields,
    paper_prompt,
    paper_reply,
    rules_as_code_shows_them,
)
from adhere.suites.guidebench._prompt import adhere_reply, render_prompt, system_prompt
from adhere.suites.guidebench._protocol import Protocol, Templates, fill
from adhere.suites.guidebench._task import Task

__all__ = ["build_prompts", "template_values"]

SHOTS_HEAD = "下面先给出两道同类题目及其回答作为示例。"
SHOTS_TAIL = "【现在请回答下面这道题】\n"


def template_values(task: Task, *, guidelines: bool, shots: str = "") -> dict[str, str]:
    """The variables a template of ``task`` gets (docs/guidebench.md, "Prompt templates")."""
    answer, analysis = answer_fields(task.info.kind)
    options = task.options_text or "\n".join(f"{k}. {v}" for k, v in task.options)
    rules = "\n".join(f"{n}. （{r.type}）{r.rule_text}" for n, r in enumerate(task.guidelines, 1))
    return {
        "instruction": task.instruction,
        "guidelines": rules_as_code_shows_them(task) if guidelines else "",
        "rules": rules if guidelines else "",
        "context": task.context,
        "options": options if task.options else "",
        "category": task.category,
        "answer_field": answer,
        "analysis_field": analysis,
        "shots": shots,
    }


def _user(
    task: Task,
    protocol: Protocol,
    templates: Templates,
    *,
    guidelines: bool,
    reasoning: bool,
    shots: str,
) -> str:
    kind = task.info.kind
    values = template_values(task, guidelines=guidelines, shots=shots)
    mine = templates.user_for(kind)
    if mine is not None:
        key = kind if kind in templates.texts else "user"
        if shots and "shots" not in Template(mine[0]).get_identifiers():
            raise SpecError(
                "shots: 2 needs $shots in the template (where the worked examples go)",
                file=mine[1],
                field=f"spec.options.templates.{key}",
            )
        return fill(mine, values, key)
    if protocol.prompt == "paper":
        return Template(paper_prompt(task, guidelines=guidelines, reasoning=reasoning)).substitute(
            values
        )
    return shots + render_prompt(task, guidelines=guidelines, reasoning=reasoning)


def _shots(
    demos: Sequence[Task],
    protocol: Protocol,
    templates: Templates,
    *,
    guidelines: bool,
    reasoning: bool,
) -> str:
    if not demos:
        return ""
    parts = [SHOTS_HEAD]
    for n, demo in enumerate(demos, 1):
        question = _user(
            demo, protocol, templates, guidelines=guidelines, reasoning=reasoning, shots=""
        )
        if protocol.prompt == "paper":
            answer = paper_reply(
                demo.info.kind, demo.published_reference, demo.analysis, reasoning=reasoning
            )
        else:
            answer = adhere_reply(demo, demo.gold, reasoning=reasoning)
        parts.append(f"【示例 {n}】\n{question}\n【示例 {n} 的回答】\n{answer}")
    return "\n\n".join(parts) + "\n\n" + SHOTS_TAIL


def build_prompts(
    task: Task,
    protocol: Protocol,
    templates: Templates | None = None,
    *,
    guidelines: bool = True,
    reasoning: bool = True,
    demos: Sequence[Task] = (),
) -> tuple[str, str]:
    """The system prompt and the user turn of ``task`` (``demos``: the 2-shot examples)."""
    templates = templates or Templates()
    shots = _shots(demos, protocol, templates, guidelines=guidelines, reasoning=reasoning)
    user = _user(task, protocol, templates, guidelines=guidelines, reasoning=reasoning, shots=shots)
    system = "" if protocol.prompt == "paper" else system_prompt(guidelines=guidelines)
    mine = templates.system()
    if mine is not None:
        system = fill(mine, template_values(task, guidelines=guidelines, shots=shots), "system")
    return system, user
