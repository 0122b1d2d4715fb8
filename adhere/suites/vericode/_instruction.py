"""The shape of a VeriCode instruction and the rules that validate its parameters.

An instruction has an id (``style_3``), a category, a generation prompt (for the
single-turn protocol) and an edit prompt (multi-turn), both templates over its
parameters, and a verifier: Ruff rules (``select``, settings filled from the
parameters, ``preview``) or one of the three custom checks.

Parameters proposed by a selector (an LLM's reply, a user's file) go through
:func:`validate_params`: unknown keys are dropped, values of the wrong type or out
of range are reset to the default, and every such change is recorded as a note.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "CATEGORIES",
    "Category",
    "Instruction",
    "Param",
    "ParamValue",
    "ValidatedParams",
    "validate_params",
]

Category = Literal["style", "logic", "doc", "error", "library"]
CATEGORIES: tuple[Category, ...] = ("style", "logic", "doc", "error", "library")
ParamValue = int | str


@dataclass(frozen=True)
class Param:
    """One parameter: an integer in ``[minimum, maximum]`` or one of ``choices``."""

    name: str
    default: ParamValue
    minimum: int = 1
    maximum: int = 200
    choices: tuple[str, ...] = ()

    def check(self, value: object) -> ParamValue | None:
        """The value as accepted, or ``None`` when it is invalid.

        Integers may come as digit strings (``"80"``); booleans are never integers.
        Choices compare case-insensitively.
        """
        if self.choices:
            if isinstance(value, str) and value.strip().lower() in self.choices:
                return value.strip().lower()
            return None
        if isinstance(value, bool):
            return None
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value.strip())
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, int) and self.minimum <= value <= self.maximum:
            return value
        return None

    def describe(self) -> str:
        """``name`` with its allowed values, for prompts and errors."""
        if self.choices:
            return f"{self.name} (one of {', '.join(self.choices)}; default {self.default})"
        return f"{self.name} (integer {self.minimum}–{self.maximum}; default {self.default})"


@dataclass(frozen=True)
class Instruction:
    """One verifiable code instruction (SUITES.md §4).

    Attributes:
        id: ``style_1`` … ``library_2``.
        category: style, logic, doc, error or library.
        title: A few words naming what is checked.
        generation: The instruction as given with the task (single-turn); a
            ``str.format`` template over the parameters.
        edit: The instruction as an edit request on earlier code (multi-turn).
        select: Ruff rule codes checked (explicit codes, ranges expanded); empty for
            a custom check.
        settings: Ruff setting (dotted ``ruff.toml`` key) → parameter name.
        preview: Whether the rules need ``--preview``.
        params: The parameters with their defaults and allowed values.
        needs: Task tags that make the instruction relevant (any one suffices);
            empty means relevant to every task.
        custom: ``bare_code`` (doc_4), ``no_comments`` (doc_5) or
            ``python_json`` (doc_6) for the custom checks.
        whole_reply: Judged on the whole reply, not on the extracted code.
    """

    id: str
    category: Category
    title: str
    generation: str
    edit: str
    select: tuple[str, ...] = ()
    settings: tuple[tuple[str, str], ...] = ()
    preview: bool = False
    params: tuple[Param, ...] = ()
    needs: frozenset[str] = field(default_factory=frozenset)
    custom: str | None = None
    whole_reply: bool = False

    def defaults(self) -> dict[str, ParamValue]:
        """Every parameter at its default."""
        return {p.name: p.default for p in self.params}

    def render_generation(self, params: Mapping[str, ParamValue] | None = None) -> str:
        """The generation prompt with ``params`` (defaults for the rest)."""
        return self.generation.format(**{**self.defaults(), **(params or {})})

    def render_edit(self, params: Mapping[str, ParamValue] | None = None) -> str:
        """The edit prompt with ``params`` (defaults for the rest)."""
        return self.edit.format(**{**self.defaults(), **(params or {})})

    def ruff_config(self, params: Mapping[str, ParamValue] | None = None) -> dict[str, Any]:
        """The Ruff settings for ``params``, as a nested ``ruff.toml`` mapping."""
        values = {**self.defaults(), **(params or {})}
        config: dict[str, Any] = {}
        for dotted, name in self.settings:
            *parents, leaf = dotted.split(".")
            node = config
            for part in parents:
                node = node.setdefault(part, {})
            node[leaf] = values[name]
        return config


@dataclass(frozen=True)
class ValidatedParams:
    """Parameters after the rules, and what the rules changed."""

    values: dict[str, ParamValue]
    notes: tuple[str, ...] = ()


def validate_params(
    instruction: Instruction, proposed: Mapping[str, Any] | None
) -> ValidatedParams:
    """Apply the rules: unknown keys dropped, invalid values reset to the default.

    Every parameter of the instruction is present in the result.
    """
    notes: list[str] = []
    values = instruction.defaults()
    known = {p.name: p for p in instruction.params}
    for key, raw in (proposed or {}).items():
        param = known.get(str(key))
        if param is None:
            notes.append(f"{instruction.id}: unknown parameter {key!r} dropped")
            continue
        checked = param.check(raw)
        if checked is None:
            notes.append(
                f"{instruction.id}: {key}={raw!r} is invalid ({param.describe()}); "
                f"reset to {param.default!r}"
            )
            continue
        values[param.name] = checked
    return ValidatedParams(values=values, notes=tuple(notes))
