"""GuideBench tasks: the six public categories, their answer kinds and the task record."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

AnswerKind = Literal["binary", "relevance", "numeric", "option"]
"""How a category is answered: 0/1, a three-way relevance label, a number, an option letter."""


@dataclass(frozen=True)
class CategoryInfo:
    """One GuideBench category as published."""

    key: str
    """Short name used in instance ids, metadata and filters (``price``, ``math`` …)."""
    file: str
    """Its file in the public data directory."""
    title: str
    """The name the paper's tables use."""
    kind: AnswerKind
    published: int
    """Number of tasks in the public data (SUITES.md §5)."""


CATEGORIES: Mapping[str, CategoryInfo] = {
    info.key: info
    for info in (
        CategoryInfo("price", "price_tasks.json", "price matching", "binary", 442),
        CategoryInfo("relevance", "relevance_tasks.json", "text relevance", "relevance", 192),
        CategoryInfo("math", "math_tasks.json", "math coupon", "numeric", 52),
        CategoryInfo("chat", "chat_tasks.json", "agent chatting", "option", 180),
        CategoryInfo("summary", "summary_tasks.json", "summarization", "option", 58),
        CategoryInfo("hallucination", "hallu_tasks.json", "hallucination detection", "option", 118),
    )
}
"""The public categories in the paper's order (the audit category is not public)."""

RELEVANCE_LABELS: Mapping[str, str] = {"2": "强相关", "1": "弱相关", "0": "不相关"}
"""Relevance grade → its name; the published form is ``2（强相关）`` (full-width parentheses)."""

PRICE_LABELS: Mapping[str, str] = {"1": "同品", "0": "非同品"}
"""Price matching: 1 when the two products are the same product, 0 otherwise."""

UPDATE_MARK = "新增"
"""Rules added by a rule update carry this mark in their id or text."""


@dataclass(frozen=True)
class Rule:
    """One guideline: its type, id and text as published."""

    type: str
    rule_id: str
    rule_text: str

    @property
    def is_update(self) -> bool:
        """Whether the rule is marked as newly added (a rule update)."""
        return UPDATE_MARK in self.rule_id or UPDATE_MARK in self.rule_text


@dataclass(frozen=True)
class Task:
    """One GuideBench task."""

    id: str
    category: str
    index: int
    """Position in its file (0-based)."""
    instruction: str
    guidelines: tuple[Rule, ...]
    context: str
    options: tuple[tuple[str, str], ...]
    """Multiple-choice options as (letter, text); empty for question-answer tasks."""
    gold: str
    """The reference answer in canonical form: ``0``/``1``, ``2``, ``497.5``, ``A``."""
    analysis: str
    source: Literal["published", "generated"] = "published"
    problem: dict[str, Any] | None = field(default=None, compare=False)
    """Generated coupon tasks: the structured problem the solver answered."""
    reference: Any = field(default=None, compare=False)
    """The reference answer exactly as published (``1``, ``"2（强相关）"``, ``"497.5"``);
    the paper's exact-match scoring compares against it. ``None``: the canonical form."""
    options_text: str = field(default="", compare=False)
    """The ``MultipleOptions`` text as published (the paper's prompts show it as is)."""

    @property
    def published_reference(self) -> Any:
        """The reference as published, or the canonical gold in its published form."""
        return (
            self.reference
            if self.reference is not None
            else published_form(self.info.kind, self.gold)
        )

    @property
    def info(self) -> CategoryInfo:
        """The category's description."""
        return CATEGORIES[self.category]

    @property
    def rule_update(self) -> bool:
        """Whether any of the task's guidelines was added by a rule update."""
        return any(rule.is_update for rule in self.guidelines)

    def labels(self) -> tuple[str, ...]:
        """The closed label set of the task (empty for numeric answers)."""
        kind = self.info.kind
        if kind == "binary":
            return tuple(PRICE_LABELS)
        if kind == "relevance":
            return tuple(RELEVANCE_LABELS)
        if kind == "option":
            return tuple(letter for letter, _ in self.options)
        return ()


def published_form(kind: AnswerKind, value: str) -> str | int:
    """A canonical value written the way the public data writes its reference answers.

    Price answers are integers, relevance answers carry their name in full-width
    parentheses, numbers and letters are strings.
    """
    if kind == "binary":
        return int(value)
    if kind == "relevance":
        return f"{value}（{RELEVANCE_LABELS[value]}）"
    return value
