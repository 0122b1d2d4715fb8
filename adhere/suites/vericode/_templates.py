"""VeriCode's prompt templates: adhere's wording, the paper's, or a user's file. Pure.

Templates use ``$name`` placeholders (:class:`string.Template`; ``$$`` is a dollar
sign), so braces in task text and JSON examples need no escaping. Keys and their
variables:

``system``
    The system prompt (no variables).
``bare`` — ``$task``
    Single-turn with k = 0, and the first turn of multi-turn editing.
``single_one`` — ``$task``, ``$instruction``
    Single-turn with one instruction.
``single`` — ``$task``, ``$instructions`` (the numbered list, one per line), ``$k``
    Single-turn with two or more instructions (and one, when ``single_one`` is unset).
``edit`` — ``$instruction`` (the instruction's edit prompt), ``$turn``
    A multi-turn editing turn (1, 2, …).

The instructions' own generation and edit prompts come from the catalog either way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from string import Template
from typing import Any

from adhere.errors import SpecError

__all__ = ["ADHERE_PROMPTS", "PAPER_PROMPTS", "TEMPLATE_VARIABLES", "Prompts", "prompts_from"]

TEMPLATE_VARIABLES: dict[str, tuple[str, ...]] = {
    "system": (),
    "bare": ("task",),
    "single_one": ("task", "instruction"),
    "single": ("task", "instructions", "k"),
    "edit": ("instruction", "turn"),
}
"""Template key → the variables it may use."""


@dataclass(frozen=True)
class Prompts:
    """One set of templates (see the module docstring); ``single_one`` may be empty."""

    system: str
    bare: str
    single: str
    edit: str
    single_one: str = ""

    def render(self, key: str, **values: Any) -> str:
        """Template ``key`` with ``values`` substituted."""
        return Template(getattr(self, key)).substitute(values)


ADHERE_PROMPTS = Prompts(
    system=(
        "You are an experienced Python developer. Solve each programming task in Python and "
        "always give the complete code of your solution."
    ),
    bare="$task",
    single="$task\n\nFollow these instructions:\n$instructions",
    edit="$instruction",
)
"""adhere's wording (the default protocol)."""

PAPER_PROMPTS = Prompts(
    system=(
        "**Objective:**\n"
        "You are an expert code generation assistant. Your primary objective is to provide "
        "a complete and runnable code solution for every request.\n\n"
        "**Output Formats:**\n"
        "You must strictly adhere to one of these two formats:\n\n"
        "1.  **Format 1: Markdown-Wrapped Code**\n"
        "    * **Use Case:** Use this format if your response contains ANY text or "
        "explanation in addition to the code.\n"
        "    * **Specification:** Place the entire code solution within the *first* "
        "Markdown code block (e.g., ```python ... ```).\n\n"
        "2.  **Format 2: Raw Code Only**\n"
        "    * **Use Case:** Use this format ONLY if your response consists *exclusively* "
        "of the code solution.\n"
        "    * **Specification:** Provide the raw code directly, with no Markdown or other "
        "text.\n\n"
        "**Requirements:**\n"
        "1. When generating or editing code, satisfy ALL user instructions throughout the "
        "entire conversation while keeping the functionality intact.\n"
        "2. Always include **complete, runnable code** in every response, even if no "
        "changes are needed from the previous version."
    ),
    bare="$task",
    single_one="$task\n\nAdditionally, ensure your code meets the following requirement: "
    "$instruction",
    single="$task\n\nAdditionally, ensure your code meets the following requirements:\n"
    "$instructions",
    edit="$instruction",
)
"""The paper's wording (its BigVibeBench system prompt, Figure 13, and its frame)."""


def prompts_from(raw: object, base: Prompts, *, file: str, field: str) -> Prompts:
    """``base`` with the templates of a mapping (read from a prompts file) replacing its own.

    Raises:
        SpecError: not a mapping of known keys to strings, or a template using a variable
            its key does not get (or a bad ``$``).
    """
    if not isinstance(raw, Mapping):
        raise SpecError("expected a mapping of template names to text", file=file, field=field)
    known = {f.name for f in fields(Prompts)}
    changes: dict[str, str] = {}
    for key, text in raw.items():
        where = f"{field}.{key}"
        if key not in known:
            raise SpecError(
                f"unknown template {key!r}; accepted: {', '.join(sorted(known))}",
                file=file,
                field=where,
            )
        if not isinstance(text, str):
            raise SpecError("expected the template's text", file=file, field=where)
        _check_variables(str(key), text, file, where)
        changes[str(key)] = text
    return replace(base, **changes)


def _check_variables(key: str, text: str, file: str, field: str) -> None:
    allowed = TEMPLATE_VARIABLES[key]
    template = Template(text)
    if not template.is_valid():
        raise SpecError("a '$' that starts no variable (write $$ for a dollar)", file=file,
                        field=field)  # fmt: skip
    extra = sorted(set(template.get_identifiers()) - set(allowed))
    if extra:
        given = ", ".join(f"${v}" for v in allowed) or "none"
        raise SpecError(
            f"unknown variables {', '.join(f'${v}' for v in extra)}; this template gets {given}",
            file=file,
            field=field,
        )
