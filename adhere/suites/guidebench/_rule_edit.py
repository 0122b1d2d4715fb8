"""The rule-edit protocol of the paper's Appendix B.6, for coupon-math tasks. Pure.

The paper has an LLM edit one rule of a task "so that the label of the question
changes" and records the edited rule and the new label; a model that follows the
guidelines must then give the new answer. Here the edit is exact: for a task that
carries its structured coupon problem, one coupon rule's applicable scope, validity
window or stacking restriction is changed (its name and amount stay, so the task's
Context still lists it correctly), the solver answers the edited problem, and the edit
is kept only when the answer changes and is the same under every open reading of the
rules. Candidate edits are tried in an order drawn from the seed and the task id, so
the same seed gives the same edited tasks.

Which categories the data allows, and why the others do not: docs/guidebench.md,
"Rule edits".
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from adhere.suites.guidebench._coupon_gen import _NUMBERS
from adhere.suites.guidebench._coupon_json import problem_from_json, problem_to_json
from adhere.suites.guidebench._coupon_text import (
    KIND_NAMES,
    analysis_text,
    coupon_rule,
)
from adhere.suites.guidebench._coupons import (
    ALWAYS,
    Coupon,
    Kind,
    Problem,
    Window,
    money,
    robust_total,
    solve,
)
from adhere.suites.guidebench._task import Rule, Task

__all__ = ["EDIT_SUFFIX", "edit_rule", "edits_of"]

EDIT_SUFFIX = "-edit"
"""Appended to the id of an edited task."""


def edits_of(coupon: Coupon, problem: Problem) -> list[tuple[str, Coupon]]:
    """Every single-rule edit of ``coupon``: (what changed, the edited coupon)."""
    out: list[tuple[str, Coupon]] = []
    for kind in Kind:
        if kind == coupon.kind or coupon.alone:
            continue
        if kind in coupon.forbids:
            out.append(
                (f"now stacks with {kind.value}", replace(coupon, forbids=coupon.forbids - {kind}))
            )
        else:
            out.append(
                (
                    f"no longer stacks with {kind.value}",
                    replace(coupon, forbids=coupon.forbids | {kind}),
                )
            )
    if coupon.window != ALWAYS:
        out.append(("valid at any time", replace(coupon, window=ALWAYS)))
    elif problem.purchase.day is not None:
        day = problem.purchase.day
        window = Window(21, 31) if day <= 20 else Window(1, 10)
        out.append(
            (
                f"valid only on days {window.first_day}-{window.last_day}",
                replace(coupon, window=window),
            )
        )
    categories = sorted({item.category for item in problem.items})
    if coupon.include is not None:
        out.append(("applies to every category", replace(coupon, include=None)))
    for category in categories:
        if coupon.applies_to(category):
            out.append(
                (f"excludes {category}", replace(coupon, exclude=coupon.exclude | {category}))
            )
        elif category in coupon.exclude and coupon.include is None:
            out.append(
                (
                    f"no longer excludes {category}",
                    replace(coupon, exclude=coupon.exclude - {category}),
                )
            )
    return out


def _rule_text(coupon: Coupon, number: str, new: bool) -> str:
    return coupon_rule(coupon, new=new).replace("优惠券：", f"优惠券：{number}", 1)


def edit_rule(task: Task, seed: int) -> tuple[Task, dict[str, Any]] | None:
    """The edited task (new rule, new answer) and what was edited.

    ``None`` when no single edit changes the answer, or the task carries no structured
    coupon problem.
    """
    if task.problem is None:
        return None
    problem = problem_from_json(task.problem, where=task.id)
    before = robust_total(problem)
    candidates = [
        (index, what, edited)
        for index, coupon in enumerate(problem.coupons)
        for what, edited in edits_of(coupon, problem)
    ]
    random.Random(f"{seed}:rule-edit:{task.id}").shuffle(candidates)
    for index, what, edited in candidates:
        coupons = list(problem.coupons)
        coupons[index] = edited
        changed = replace(problem, coupons=tuple(coupons))
        after = robust_total(changed)
        if after is None or after == before or (after * 100).denominator != 1:
            continue
        return _edited_task(task, changed, index, what, money(after))
    return None


def _edited_task(
    task: Task, problem: Problem, index: int, what: str, answer: str
) -> tuple[Task, dict[str, Any]]:
    old = task.guidelines[index]
    coupon = problem.coupons[index]
    rule = Rule(old.type, old.rule_id, _rule_text(coupon, _NUMBERS[index], "新增" in old.rule_text))
    rules = list(task.guidelines)
    rules[index] = rule
    numbers = [_NUMBERS[n] for n in range(len(problem.coupons))]
    names = [item.name for item in problem.items]
    by_id = dict(zip([c.id for c in problem.coupons], numbers, strict=True))
    analysis = analysis_text(problem, solve(problem), by_id, names)
    edit: dict[str, Any] = {
        "rule_id": old.rule_id,
        "type": old.type,
        "before": old.rule_text,
        "after": rule.rule_text,
        "change": f"{KIND_NAMES[coupon.kind]} {coupon.id}: {what}",
        "original_answer": task.gold,
        "original_id": task.id,
    }
    edited = replace(
        task,
        id=task.id + EDIT_SUFFIX,
        guidelines=tuple(rules),
        gold=answer,
        reference=answer,
        analysis=analysis,
        problem=problem_to_json(problem),
    )
    return edited, edit
