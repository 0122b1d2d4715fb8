"""The paper's Table 3 task formulations as transformations of a task. Pure.

- ``reorder``: the guideline rules in a random order (a permutation drawn from the
  seed and the task id, never the published order when there are two or more rules);
- ``shots``: two other tasks of the same category, with their reference answers, shown
  before the task (drawn from the seed and the task id);
- ``rewrite: program`` (the paper's PoT): each coupon rule and the order-wide rules
  written as an equivalent Python program;
- ``rewrite: math`` (the paper's Equivalent Math): the same rules as mathematical
  expressions.

The rewrites need the task's structured coupon problem: generated coupon tasks carry
it; for the published math tasks this project's reading of each task is used where it
reproduces the published answer (42 of 52). The paper converted the published tasks
with GPT-4o (PoT) and by hand (Equivalent Math) and did not publish the conversions
(docs/guidebench.md).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

from adhere.suites.guidebench._coupon_json import problem_from_json
from adhere.suites.guidebench._coupon_text import (
    CATEGORY_NAMES,
    KIND_NAMES,
    WEEKDAY_NAMES,
    coupon_title,
)
from adhere.suites.guidebench._coupons import Coupon, Kind, Policy, Problem, Window, money
from adhere.suites.guidebench._published_math import reading_of
from adhere.suites.guidebench._task import Rule, Task

__all__ = ["Rewrite", "pick_demos", "reorder", "rewrite", "structured_problem"]

Rewrite = Literal["program", "math"]

PROGRAM_TYPE = "规则程序"
MATH_TYPE = "规则公式"


def _rng(seed: int, task: Task, what: str) -> random.Random:
    return random.Random(f"{seed}:{what}:{task.id}")


def reorder(task: Task, seed: int) -> Task:
    """``task`` with its rules shuffled: deterministic by seed and id, never the same order."""
    rules = list(task.guidelines)
    if len(rules) < 2:
        return task
    rng = _rng(seed, task, "reorder")
    order = list(range(len(rules)))
    while order == sorted(order):
        rng.shuffle(order)
    return replace(task, guidelines=tuple(rules[i] for i in order))


def pick_demos(pool: Sequence[Task], task: Task, seed: int, n: int = 2) -> list[Task]:
    """``n`` other tasks of ``task``'s category from ``pool`` (all of them when fewer)."""
    others = sorted(
        (t for t in pool if t.category == task.category and t.id != task.id), key=lambda t: t.id
    )
    if len(others) <= n:
        return others
    return _rng(seed, task, "shots").sample(others, n)


def _names(categories: frozenset[str] | None) -> str:
    return "全部" if categories is None else "、".join(_name(c) for c in sorted(categories))


def _name(category: str) -> str:
    """A category's Chinese name (the readings' ``other``: goods of no named category)."""
    return CATEGORY_NAMES.get(category, "其他商品")


def _numbered(problem: Problem) -> Problem:
    """The problem with its coupons named ``c1``, ``c2`` … (names usable in code)."""
    coupons = tuple(replace(c, id=f"c{n}") for n, c in enumerate(problem.coupons, 1))
    return replace(problem, coupons=coupons)


def _window_code(window: Window) -> str:
    conds = []
    if window.first_day is not None:
        conds.append(f"{window.first_day} <= day <= {window.last_day or 31}")
    if window.weekdays is not None:
        conds.append(f"weekday in {sorted(window.weekdays)}  # 0 = 周一")
    return " and ".join(conds) or "True"


def _coupon_program(coupon: Coupon) -> str:
    include = "None" if coupon.include is None else repr(sorted(_name(c) for c in coupon.include))
    exclude = repr(sorted(_name(c) for c in coupon.exclude))
    refused = set(Kind) if coupon.alone else coupon.forbids  # alone: stacks with nothing
    refuses = repr(sorted(KIND_NAMES[k] for k in refused))
    lines = [
        f"# {KIND_NAMES[coupon.kind]} {coupon.id}：{coupon_title(coupon)}（每个订单最多用一次）",
        f"def eligible_{coupon.id}(category):",
        f"    return ({include} is None or category in {include}) and category not in {exclude}",
        f"def usable_{coupon.id}(day, weekday):",
        f"    return {_window_code(coupon.window)}",
    ]
    if coupon.kind == Kind.DISCOUNT:
        lines += [f"def apply_{coupon.id}(amount):", f"    return amount * {money(coupon.rate)}"]
    elif coupon.kind == Kind.THRESHOLD:
        lines += [
            f"def apply_{coupon.id}(amount):",
            f"    return amount - {money(coupon.amount)} "
            f"if amount >= {money(coupon.threshold)} else amount",
        ]
    else:
        lines += [
            f"def apply_{coupon.id}(amount):",
            f"    if amount < {money(coupon.threshold)}:",
            "        return amount",
            f"    return max(0, amount - {money(coupon.amount)})",
        ]
    lines.append(f"REFUSES_{coupon.id} = {refuses}  # 不可与之叠加的券种")
    return "\n".join(lines)


def _policy_program(policy: Policy) -> str:
    order = [KIND_NAMES[k] for k in policy.order]
    lines = [
        f"ORDER = {order!r}  # 依次计算，后一步用前一步之后的金额；满减门槛看此时适用商品的金额",
        "def can_combine(a, b):  # 任一方拒绝对方券种即不可叠加，对整个订单有效",
        "    return a.kind not in b.refuses and b.kind not in a.refuses",
        "# 一张券抵扣的金额按适用商品当前价格的比例分摊，商品金额不低于 0",
    ]
    if not policy.same_kind:
        lines.append("SAME_KIND_MAX = 1  # 同一类型的券最多用一张")
    elif policy.same_kind_cap is not None:
        lines.append(
            f"SAME_KIND_CAP = {money(policy.same_kind_cap)}  # 同类叠加优惠总额 ≤ 原价 × 此比例"
        )
    else:
        lines.append("SAME_KIND_MAX = None  # 同一类型的券可以叠加")
    lines.append("# 目标：在所有允许的用券组合中取最终支付金额最小者")
    return "\n".join(lines)


def _window_math(window: Window) -> str:
    conds = []
    if window.first_day is not None:
        conds.append(f"{window.first_day} ≤ d ≤ {window.last_day or 31}")
    if window.weekdays is not None:
        conds.append(
            "w ∈ {" + ", ".join(f"周{WEEKDAY_NAMES[d]}" for d in sorted(window.weekdays)) + "}"
        )
    return "，".join(conds) if conds else "任意日期"


def _coupon_math(coupon: Coupon) -> str:
    scope = f"S = {{{_names(coupon.include)}}}"
    if coupon.exclude:
        scope += f" \\ {{{_names(coupon.exclude)}}}"
    x = "x = Σ_{i∈S} p_i"
    if coupon.kind == Kind.DISCOUNT:
        effect = f"x′ = {money(coupon.rate)} · x"
    elif coupon.kind == Kind.THRESHOLD:
        effect = f"x′ = x − {money(coupon.amount)}（当 x ≥ {money(coupon.threshold)}），否则 x′ = x"
    else:
        gate = f"（当 x ≥ {money(coupon.threshold)}）" if coupon.threshold else ""
        effect = f"x′ = max(0, x − {money(coupon.amount)}){gate}"
    refuses = "全部" if coupon.alone else (_kinds(coupon.forbids) or "无")
    return (
        f"{coupon.id}（{KIND_NAMES[coupon.kind]}，{coupon_title(coupon)}）：{scope}；{x}；{effect}；"
        f"可用条件：{_window_math(coupon.window)}；每单 ≤ 1 张；不可叠加：{refuses}"
    )


def _kinds(kinds: frozenset[Kind]) -> str:
    return "、".join(KIND_NAMES[k] for k in Kind if k in kinds)


def _policy_math(policy: Policy) -> str:
    order = " → ".join(KIND_NAMES[k] for k in policy.order)
    same = (
        "n_k ≤ 1（同类券至多一张）"
        if not policy.same_kind
        else f"Σ 同类优惠 ≤ {money(policy.same_kind_cap)} · P₀"
        if policy.same_kind_cap is not None
        else "同类券可叠加"
    )
    return (
        f"计算顺序：{order}，每步 x 取上一步后的金额；组合 C 合法 ⇔ ∀a,b∈C：kind(a) ∉ R(b) "
        f"且 kind(b) ∉ R(a)；{same}；分摊按当前价格成比例，p_i ≥ 0；"
        "答案 = min_{合法 C} 最终支付金额"
    )


def structured_problem(task: Task) -> Problem | None:
    """The task's coupon problem, or ``None``.

    A generated task's own, or this project's reading of a published math task where
    that reading reproduces the published answer.
    """
    if task.problem is not None:
        return problem_from_json(task.problem, where=task.id)
    if task.category == "math" and task.source == "published":
        return reading_of(task.index, task.gold)
    return None


def rewrite(task: Task, how: Rewrite) -> Task | None:
    """``task`` with its rules rewritten as a program or as formulas (see the docstring).

    ``None`` for a task with no structured problem (:func:`structured_problem`).
    """
    found = structured_problem(task)
    if found is None:
        return None
    problem = _numbered(found)
    if how == "program":
        texts = [_coupon_program(c) for c in problem.coupons] + [_policy_program(problem.policy)]
        kind = PROGRAM_TYPE
    else:
        texts = [_coupon_math(c) for c in problem.coupons] + [_policy_math(problem.policy)]
        kind = MATH_TYPE
    rules = tuple(Rule(kind, f"rule_{n}", text) for n, text in enumerate(texts, 1))
    return replace(task, guidelines=rules)
