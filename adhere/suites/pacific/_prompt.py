r"""Rendering a PACIFIC sample into the system prompt and user turns a model sees.

Prompt mode puts the whole chain in one user message; chat mode sends one step per
user message, each to be answered before the next arrives. Code samples show the
functions in the sample's language; natural-language samples describe each step in
words. Either way the model must answer step ``i`` as ``[ANSWER][i] value [\ANSWER]``.
The wording comes from templates (:mod:`._templates`): adhere's by default.
"""

from __future__ import annotations

from adhere.suites.pacific._sample import Sample
from adhere.suites.pacific._templates import ADHERE_TEMPLATES, PromptTemplates, render_turns

SYSTEM_PROMPT = ADHERE_TEMPLATES.system
"""adhere's system prompt."""


def render_prompt(sample: Sample, templates: PromptTemplates = ADHERE_TEMPLATES) -> list[str]:
    """The user turns of a sample: one in prompt mode, one per step in chat mode."""
    return render_turns(sample, templates)[1]


def format_answer(index: int, value: int | str) -> str:
    """An answer tag as a perfect reply writes it."""
    return f"[ANSWER][{index}] {value} [\\ANSWER]"
