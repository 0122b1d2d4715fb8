r"""PACIFIC's prompt templates: adhere's wording, the paper's layout, or a user's file. Pure.

A sample becomes a system prompt and user turns by filling four templates
(:class:`string.Template` text: ``$name`` or ``${name}``, ``$$`` for a dollar sign):

``system``
    The system prompt (empty: none is sent).
``prompt``
    Prompt mode's one user turn.
``chat_first``
    Chat mode's first user turn (the input and step 1).
``chat_next``
    Chat mode's later turns, one per step.

:data:`TEMPLATE_VARIABLES` lists the variables each template gets; their text is
built here from the sample (code in the sample's language, or the English
descriptions for ``nl`` samples). :data:`ADHERE_TEMPLATES` are adhere's default
wording; :data:`PAPER_TEMPLATES` follow the layout of the paper's Appendix A.2 in this
project's own words (no system prompt; a preamble naming the language and the
number of instructions, ``Input:``, the numbered list of instructions; in chat mode
the preamble, input and first instruction, then one bare instruction a message). The
paper's exact wording is not part of the project: a user who wants it puts it in
template files (docs/pacific.md, "Prompt templates").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from string import Template

from adhere.suites.pacific._render import function_name, render_code, render_nl
from adhere.suites.pacific._sample import Sample

__all__ = [
    "ADHERE_TEMPLATES",
    "PAPER_TEMPLATES",
    "TEMPLATE_KEYS",
    "TEMPLATE_VARIABLES",
    "PromptTemplates",
    "render_turns",
]

TEMPLATE_VARIABLES: dict[str, tuple[str, ...]] = {
    "system": ("prog_lang", "n_instructions"),
    "prompt": (
        "prog_lang", "n_instructions", "input_string", "input_literal", "inst_string",
        "functions", "code", "steps",
    ),
    "chat_first": (
        "prog_lang", "n_instructions", "input_string", "input_literal", "index",
        "instruction", "first_instruction", "function", "code", "step",
    ),
    "chat_next": ("prog_lang", "n_instructions", "index", "instruction", "function", "code",
                  "step"),
}  # fmt: skip
"""Template key → the variables it may use (docs/pacific.md describes each)."""

TEMPLATE_KEYS = tuple(TEMPLATE_VARIABLES)


@dataclass(frozen=True)
class PromptTemplates:
    """One set of the four templates (see the module docstring)."""

    system: str
    prompt: str
    chat_first: str
    chat_next: str

    def render(self, key: str, values: Mapping[str, str]) -> str:
        """Template ``key`` filled with ``values``."""
        return Template(getattr(self, key)).substitute(values)

    def replaced(self, texts: Mapping[str, str]) -> PromptTemplates:
        """These templates with some replaced (keys of :data:`TEMPLATE_VARIABLES`)."""
        known = {f.name for f in fields(self)}
        return replace(self, **{k: v for k, v in texts.items() if k in known})


_FORMAT = (
    "Write strings exactly, without quotes, and integers in decimal. Give each result "
    "as [ANSWER][i] result [\\ANSWER], where i is the step number."
)
_ONLY_STEP = " Answer only step $index, as [ANSWER][$index] result [\\ANSWER]."

ADHERE_TEMPLATES = PromptTemplates(
    system=(
        "You trace programs by hand. Do not run code and do not call tools. Work out each "
        "value yourself and report it in exactly the answer format you are asked for."
    ),
    prompt=(
        "${functions}Start from the input $input_literal. Apply the $n_instructions steps "
        "below in order; each step works on the result of the step before it.\n\n$steps\n\n"
        f"{_FORMAT} Give exactly one answer for each step, numbered 1 to $n_instructions."
    ),
    chat_first=(
        "We will transform a value step by step, one step per message. Answer each step "
        "before the next one arrives.\n\nThe input is $input_literal.\n\n${function}$step\n\n"
        f"{_FORMAT}{_ONLY_STEP}"
    ),
    chat_next=f"${{function}}$step\n\n{_FORMAT}{_ONLY_STEP}",
)
"""adhere's wording (the default protocol)."""

_PAPER_RULES = (
    "For every instruction, write the value it produces as a literal: no expression left "
    "to simplify and no function call, just the output the code gives on its input, even "
    "if the code looks wrong or incomplete. Take every library and namespace as imported. "
    "Write nothing else. Trace the code and the instructions step by step before you give "
    "an answer. Put the output of instruction number i between [ANSWER][i] and [\\ANSWER]; "
    "the fourth instruction's output, for example, goes inside [ANSWER][4] [\\ANSWER]. Use "
    "the [ANSWER] tags for these answers and nothing else."
)

PAPER_TEMPLATES = PromptTemplates(
    system="",
    prompt=(
        "You get an input for a first instruction and a list of instructions written in "
        "$prog_lang. Carry out all of the instructions in order, each on the output of the "
        f"one before, starting from the input. {_PAPER_RULES} Each instruction gets exactly "
        "one pair of tags, so use exactly $n_instructions pairs of [ANSWER][i] [\\ANSWER] "
        "tags.\n\nInput: $input_string\n\nList of instructions:\n\n$inst_string\n\n"
        "Give the output of each instruction inside its [ANSWER][i] [\\ANSWER] tags."
    ),
    chat_first=(
        "You get an input for a first instruction, and then instructions written in "
        "$prog_lang, one instruction a message; follow all of them, each on the output of "
        f"the one before, starting from the input. {_PAPER_RULES}\n\nInput: $input_string\n"
        "$first_instruction"
    ),
    chat_next="$instruction",
)
"""The layout of the paper's Appendix A.2 prompts, in this project's words."""

_DISPLAY = {"python": "Python", "java": "Java", "cpp": "C++", "nl": "natural language"}


def _literal(value: int | str) -> str:
    return str(value) if isinstance(value, int) else json.dumps(value)


def _block(sample: Sample, paper_ids: list[int]) -> str:
    """A fenced block of the functions ``paper_ids`` (each once), empty for ``nl``."""
    if sample.language == "nl":
        return ""
    unique = list(dict.fromkeys(paper_ids))
    body = "\n\n".join(render_code(pid, sample.language) for pid in unique)
    return f"```{sample.language}\n{body}\n```"


def _step_text(sample: Sample, paper_id: int, target: str) -> str:
    if sample.language == "nl":
        return f"apply the following to {target}. {render_nl(paper_id)}"
    return f"call `{function_name(paper_id, sample.language)}` on {target}."


def _item(sample: Sample, index: int) -> str:
    """Instruction ``index`` (1-based) of the paper-layout list: its number and whole code."""
    paper_id = sample.steps[index - 1].paper_id
    if sample.language == "nl":
        return f"Instruction {index}: {render_nl(paper_id)}"
    return f"Instruction {index}:\n{_block(sample, [paper_id])}"


def _common(sample: Sample) -> dict[str, str]:
    return {"prog_lang": _DISPLAY[sample.language], "n_instructions": str(len(sample.steps))}


def _prompt_values(sample: Sample) -> dict[str, str]:
    ids = [s.paper_id for s in sample.steps]
    block = _block(sample, ids)
    heading = f"Here are some {_DISPLAY[sample.language]} functions:\n\n"
    return {
        **_common(sample),
        "input_string": str(sample.initial),
        "input_literal": _literal(sample.initial),
        "inst_string": "\n\n".join(_item(sample, i) for i in range(1, len(ids) + 1)),
        "functions": f"{heading}{block}\n\n" if block else "",
        "code": block,
        "steps": "\n".join(
            f"Step {i}: "
            + _step_text(sample, pid, "the input" if i == 1 else "the previous result")
            for i, pid in enumerate(ids, start=1)
        ),
    }


def _turn_values(sample: Sample, k: int) -> dict[str, str]:
    """Values of chat turn ``k`` (0-based)."""
    step = sample.steps[k]
    earlier = [s.paper_id for s in sample.steps[:k]]
    block = _block(sample, [step.paper_id])
    new = block and step.paper_id not in earlier
    heading = f"Here is a {_DISPLAY[sample.language]} function:\n\n"
    target = "the input" if k == 0 else f"the result of step {k}"
    values = {
        **_common(sample),
        "index": str(k + 1),
        "instruction": _item(sample, k + 1),
        "function": f"{heading}{block}\n\n" if new else "",
        "code": block,
        "step": f"Step {k + 1}: {_step_text(sample, step.paper_id, target)}",
    }
    if k == 0:
        values.update(
            input_string=str(sample.initial),
            input_literal=_literal(sample.initial),
            first_instruction=values["instruction"],
        )
    return values


def render_turns(sample: Sample, templates: PromptTemplates) -> tuple[str, list[str]]:
    """The system prompt and user turns of a sample (one turn, or one per step in chat)."""
    system = templates.render("system", _common(sample))
    if sample.mode == "prompt":
        return system, [templates.render("prompt", _prompt_values(sample))]
    turns = [
        templates.render("chat_first" if k == 0 else "chat_next", _turn_values(sample, k))
        for k in range(len(sample.steps))
    ]
    return system, turns
