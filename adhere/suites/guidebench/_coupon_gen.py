"""A generator of fresh coupon-math tasks whose answers the solver computes exactly.

Each task is drawn from its own random stream (``seed`` and the task's index), so a
task does not change when ``n`` does. A draw is kept only when

* its answer is the same under every reading the written rules leave open
  (:data:`~adhere.suites.guidebench._coupons.ALTERNATIVES`) and is a whole number of
  cents, and
* it is worth asking: the best plan uses a coupon, and at least three combinations
  are allowed;

otherwise the stream draws again. Tasks come out in the published shape (Instruction,
Guidelines, Context, Groundtruth) plus ``Id`` and ``Problem`` (the structured problem,
so a loader can solve it again and check the answer).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from adhere.errors import SpecError
from adhere.suites.guidebench._coupon_json import problem_to_json
from adhere.suites.guidebench._coupon_text import (
    CATEGORY_NAMES,
    COMBINATION,
    KIND_NAMES,
    analysis_text,
    context_text,
    coupon_rule,
    policy_rules,
)
from adhere.suites.guidebench._coupons import (
    ALWAYS,
    Coupon,
    Item,
    Kind,
    Policy,
    Problem,
    Purchase,
    Solution,
    Window,
    money,
    robust_total,
    solve,
)

INSTRUCTION = "优惠券数学计算题目"
"""The Instruction of every math task (as published)."""

_GOODS = {
    "home": ("台灯", "收纳柜", "四件套", "餐具套装"),
    "sports": ("跑步机", "羽毛球拍", "瑜伽垫", "哑铃"),
    "food": ("坚果礼盒", "咖啡豆", "茶叶"),
    "electronics": ("蓝牙耳机", "平板电脑", "智能手表"),
    "beauty": ("精华液", "口红套装", "面霜"),
    "toys": ("积木", "遥控车", "拼图"),
    "stationery": ("钢笔", "笔记本套装", "画笔"),
    "jewelry": ("手链", "项链", "耳环"),
    "baby": ("婴儿推车", "奶瓶套装"),
}
_BUYERS = ("小林", "小周", "小陈", "小刘", "小何", "小郑", "小冯", "小许")
_NUMBERS = ("①", "②", "③", "④", "⑤", "⑥")
_RATES = ("0.6", "0.65", "0.7", "0.75", "0.8", "0.85", "0.9", "0.95")
_WINDOWS = (
    Window(1, 10),
    Window(11, 20),
    Window(21, 31),
    Window(1, 5),
    Window(20, 25),
    Window(weekdays=frozenset({5, 6})),
    Window(weekdays=frozenset({0, 1, 2, 3, 4})),
    Window(weekdays=frozenset({4, 5, 6})),
    Window(weekdays=frozenset({1, 2, 3})),
)
_ATTEMPTS = 500


@dataclass(frozen=True)
class CouponParams:
    """What to generate."""

    n: int = 10
    seed: int = 0
    max_items: int = 3
    max_coupons: int = 5

    def validate(self) -> None:
        """Raise SpecError naming the bad field."""
        if self.n < 1:
            raise SpecError("n must be at least 1", field="n")
        if not 1 <= self.max_items <= 4:
            raise SpecError("max_items must be between 1 and 4", field="max_items")
        if not 2 <= self.max_coupons <= len(_NUMBERS):
            raise SpecError(
                f"max_coupons must be between 2 and {len(_NUMBERS)}", field="max_coupons"
            )


def generate_coupon_tasks(params: CouponParams) -> list[dict[str, Any]]:
    """``params.n`` tasks in the published JSON shape (plus ``Id`` and ``Problem``)."""
    params.validate()
    return [_task(params, index) for index in range(params.n)]


def _task(params: CouponParams, index: int) -> dict[str, Any]:
    rng = random.Random(f"guidebench-coupons:{params.seed}:{index}")
    for _ in range(_ATTEMPTS):
        problem, updated = _draw(rng, params)
        total = robust_total(problem)
        if total is None or (total * 100).denominator != 1:
            continue
        solution = solve(problem)
        if not solution.best.coupons or len(solution.plans) < 3:
            continue
        return _render(rng, problem, updated, solution, f"coupon-s{params.seed}-{index:04d}")
    raise SpecError(  # pragma: no cover - the draw succeeds within a few attempts
        f"no well-posed coupon problem in {_ATTEMPTS} draws (seed {params.seed}, task {index})"
    )


def _draw(rng: random.Random, params: CouponParams) -> tuple[Problem, frozenset[str]]:
    categories = rng.sample(sorted(_GOODS), rng.randint(1, params.max_items))
    items = tuple(
        Item(rng.choice(_GOODS[c]), c, Fraction(rng.randrange(60, 1500, 10))) for c in categories
    )
    coupons = []
    updated = set()
    for n in range(rng.randint(3, params.max_coupons)):
        coupon = _coupon(rng, f"c{n + 1}", categories)
        coupons.append(coupon)
        if rng.random() < 0.3:
            updated.add(coupon.id)
    order = (Kind.DISCOUNT, Kind.THRESHOLD, Kind.FIXED)
    if rng.random() < 0.3:
        order = (Kind.THRESHOLD, Kind.DISCOUNT, Kind.FIXED)
    same_kind = rng.random() < 0.4
    policy = Policy(
        order=order,
        same_kind=same_kind,
        same_kind_cap=Fraction(1, 2) if same_kind and rng.random() < 0.5 else None,
    )
    purchase = Purchase(day=rng.randint(1, 28), weekday=rng.randint(0, 6))
    return Problem(items, tuple(coupons), purchase, policy), frozenset(updated)


def _coupon(rng: random.Random, cid: str, in_order: list[str]) -> Coupon:
    kind = rng.choice(list(Kind))
    include: frozenset[str] | None = None
    exclude: frozenset[str] = frozenset()
    roll = rng.random()
    if roll < 0.45:
        include = frozenset({rng.choice(in_order)})
    elif roll < 0.8:
        exclude = frozenset(rng.sample(sorted(_GOODS), rng.randint(1, 2)))
    forbids = frozenset(k for k in Kind if k != kind and rng.random() < 0.4)
    window = rng.choice(_WINDOWS) if rng.random() < 0.45 else ALWAYS
    common: dict[str, Any] = {
        "include": include,
        "exclude": exclude,
        "forbids": forbids,
        "window": window,
    }
    if kind == Kind.DISCOUNT:
        return Coupon(cid, kind, rate=Fraction(rng.choice(_RATES)), **common)
    if kind == Kind.THRESHOLD:
        threshold = rng.randrange(200, 1300, 50)
        amount = threshold * rng.choice((10, 15, 20, 25, 30)) // 100 // 10 * 10
        return Coupon(cid, kind, amount=Fraction(amount), threshold=Fraction(threshold), **common)
    amount = rng.choice((10, 12, 15, 18, 20, 25, 30, 35, 40, 50))
    return Coupon(cid, kind, amount=Fraction(amount), **common)


def _render(
    rng: random.Random,
    problem: Problem,
    updated: frozenset[str],
    solution: Solution,
    task_id: str,
) -> dict[str, Any]:
    numbers = {c.id: _NUMBERS[n] for n, c in enumerate(problem.coupons)}
    names = [item.name for item in problem.items]
    guidelines = [
        {
            "type": KIND_NAMES[c.kind],
            "rule_id": f"rule_{n + 1}",
            "rule_text": coupon_rule(c, new=c.id in updated).replace(
                "优惠券：", f"优惠券：{numbers[c.id]}", 1
            ),
        }
        for n, c in enumerate(problem.coupons)
    ]
    start = len(guidelines)
    guidelines += [
        {"type": COMBINATION, "rule_id": f"rule_{start + n + 1}", "rule_text": text}
        for n, text in enumerate(policy_rules(problem.policy))
    ]
    buyer = rng.choice(_BUYERS)
    return {
        "Id": task_id,
        "Instruction": INSTRUCTION,
        "Guidelines": guidelines,
        "Context": context_text(problem, buyer, names, [numbers[c.id] for c in problem.coupons]),
        "Groundtruth": {
            "ReferenceAnswer": money(solution.best.total),
            "ReferenceAnalysis": analysis_text(problem, solution, numbers, names),
        },
        "Problem": problem_to_json(problem),
    }


__all__ = ["CATEGORY_NAMES", "INSTRUCTION", "CouponParams", "generate_coupon_tasks"]
