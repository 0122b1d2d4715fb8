"""How far the LLM answer parser and the rule-based parser agree (``parse: llm``). Pure.

From the stored verdicts: each LLM-parsed verdict keeps what the rule-based parser
found in the same reply (``details.rules``). Per model and category: the replies both
parsers read, how many got the same answer from both, and how many the same verdict
(correct or not), with the verdict's Cohen's κ (``–`` when undefined: one class only).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from adhere.judging import cohen_kappa
from adhere.metrics import Table, pct
from adhere.suites.guidebench._task import CATEGORIES

if TYPE_CHECKING:
    from adhere.suites.guidebench._metrics import Answer

__all__ = ["parser_table"]


def _rows(key: tuple[str, ...], name: str, answers: Sequence[Answer]) -> list[str]:
    llm = ["correct" if a.outcome == "correct" else "not" for a in answers]
    rules = ["correct" if a.rules_outcome == "correct" else "not" for a in answers]
    same = sum(1 for a in answers if a.same_answer)
    verdicts = sum(1 for x, y in zip(llm, rules, strict=True) if x == y)
    kappa = cohen_kappa(llm, rules)
    n = len(answers)
    return [
        *key, name, str(n), str(same), pct(same / n), str(verdicts), pct(verdicts / n),
        "–" if kappa is None else f"{kappa:.3f}",
        pct(sum(1 for a in answers if a.outcome == "correct") / n),
        pct(sum(1 for a in answers if a.rules_outcome == "correct") / n),
    ]  # fmt: skip


def parser_table(
    group: list[str], answers: Mapping[tuple[str, ...], Sequence[Answer]]
) -> Table | None:
    """The agreement table, or ``None`` when no answer was parsed by an LLM."""
    rows = []
    for key, mine in answers.items():
        parsed = [a for a in mine if a.rules_outcome is not None]
        if not parsed:
            continue
        categories = [c for c in CATEGORIES if any(a.category == c for a in parsed)]
        for category in categories:
            rows.append(_rows(key, category, [a for a in parsed if a.category == category]))
        rows.append(_rows(key, "overall", parsed))
    if not rows:
        return None
    return Table(
        title="GuideBench answer parsers: LLM (scored) vs rule-based, on the same replies",
        header=[*group, "category", "replies", "same answer", "same answer %", "same verdict",
                "same verdict %", "Cohen's κ (verdict)", "accuracy (LLM)", "accuracy (rules)"],
        rows=rows,
    )  # fmt: skip
