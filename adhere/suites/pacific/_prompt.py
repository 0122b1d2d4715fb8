r"""Rendering a PACIFIC sample into the system prompt and user turns a model sees.

Prompt mode puts the whole chain in one user message; chat mode sends one step per
user message, each to be answered before the next arrives. Code samples show the
functions in the sample's language; natural-language samples describe each step in
words. Either way the model must answer step ``i`` as ``[ANSWER][i] value [\ANSWER]``.
"""

from __future__ import annotations

import json

from adhere.suites.pacific._render import function_name, render_code, render_nl
from adhere.suites.pacific._sample import Sample

SYSTEM_PROMPT = (
    "You trace programs by hand. Do not run code and do not call tools. Work out each "
    "value yourself and report it in exactly the answer format you are asked for."
)

_DISPLAY = {"python": "Python", "java": "Java", "cpp": "C++"}
_FORMAT = (
    "Write strings exactly, without quotes, and integers in decimal. Give each result "
    "as [ANSWER][i] result [\\ANSWER], where i is the step number."
)


def _literal(value: int | str) -> str:
    return str(value) if isinstance(value, int) else json.dumps(value)


def _code_block(sample: Sample, paper_ids: list[int]) -> str:
    assert sample.language != "nl"
    seen: list[int] = []
    for pid in paper_ids:
        if pid not in seen:
            seen.append(pid)
    body = "\n\n".join(render_code(pid, sample.language) for pid in seen)
    return f"```{sample.language}\n{body}\n```"


def _step_text(sample: Sample, paper_id: int, target: str) -> str:
    if sample.language == "nl":
        return f"apply the following to {target}. {render_nl(paper_id)}"
    return f"call `{function_name(paper_id, sample.language)}` on {target}."


def render_prompt(sample: Sample) -> list[str]:
    """The user turns of a sample: one in prompt mode, one per step in chat mode."""
    if sample.mode == "prompt":
        return [_render_whole(sample)]
    return [_render_turn(sample, k) for k in range(len(sample.steps))]


def _render_whole(sample: Sample) -> str:
    ids = [s.paper_id for s in sample.steps]
    n = len(ids)
    lines = []
    if sample.language != "nl":
        lines += [
            f"Here are some {_DISPLAY[sample.language]} functions:",
            "",
            _code_block(sample, ids),
            "",
        ]
    lines += [
        f"Start from the input {_literal(sample.initial)}. Apply the {n} steps below in "
        "order; each step works on the result of the step before it.",
        "",
    ]
    lines += [
        f"Step {i}: {_step_text(sample, pid, 'the input' if i == 1 else 'the previous result')}"
        for i, pid in enumerate(ids, start=1)
    ]
    lines += [
        "",
        f"{_FORMAT} Give exactly one answer for each step, numbered 1 to {n}.",
    ]
    return "\n".join(lines)


def _render_turn(sample: Sample, k: int) -> str:
    step = sample.steps[k]
    number = k + 1
    lines = []
    if k == 0:
        lines += [
            "We will transform a value step by step, one step per message. Answer each "
            "step before the next one arrives.",
            "",
            f"The input is {_literal(sample.initial)}.",
            "",
        ]
    earlier = [s.paper_id for s in sample.steps[:k]]
    if sample.language != "nl" and step.paper_id not in earlier:
        lines += [
            f"Here is a {_DISPLAY[sample.language]} function:",
            "",
            _code_block(sample, [step.paper_id]),
            "",
        ]
    target = "the input" if k == 0 else f"the result of step {k}"
    lines += [
        f"Step {number}: {_step_text(sample, step.paper_id, target)}",
        "",
        f"{_FORMAT} Answer only step {number}, as [ANSWER][{number}] result [\\ANSWER].",
    ]
    return "\n".join(lines)


def format_answer(index: int, value: int | str) -> str:
    """An answer tag as a perfect reply writes it."""
    return f"[ANSWER][{index}] {value} [\\ANSWER]"
