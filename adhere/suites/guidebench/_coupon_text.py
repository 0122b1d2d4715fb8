"""Chinese wording of coupon problems: guideline rules, the context and the analysis.

The wording follows the shape of the published math tasks (rule types 满减优惠券,
折扣优惠券, 固定金额优惠券, 组合优惠券使用限制; restrictions written out in full);
the sentences are this project's own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

from adhere.suites.guidebench._coupons import (
    Coupon,
    Kind,
    Plan,
    Policy,
    Problem,
    Purchase,
    Solution,
    Window,
    money,
)

CATEGORY_NAMES: Mapping[str, str] = {
    "home": "家居用品",
    "sports": "运动器材",
    "food": "食品饮料",
    "electronics": "电子产品",
    "beauty": "美妆",
    "toys": "玩具",
    "stationery": "文具",
    "jewelry": "饰品",
    "baby": "母婴用品",
}
"""Category key → its Chinese name (the published tasks' categories)."""

KIND_NAMES: Mapping[Kind, str] = {
    Kind.DISCOUNT: "折扣优惠券",
    Kind.THRESHOLD: "满减优惠券",
    Kind.FIXED: "固定金额优惠券",
}
COMBINATION = "组合优惠券使用限制"
WEEKDAY_NAMES = ("一", "二", "三", "四", "五", "六", "日")


def show(value: Fraction) -> str:
    """An amount for prose: exact when it is a whole number of cents, else about it."""
    if (value * 100).denominator == 1:
        return money(value)
    return f"约{float(value):.2f}"


def rate_text(rate: Fraction) -> str:
    """``0.85`` → ``8.5折``."""
    return f"{money(rate * 10)}折"


def coupon_title(coupon: Coupon) -> str:
    """The coupon's short name: ``8.5折优惠券``, ``满500减120``, ``25元优惠券``."""
    if coupon.kind == Kind.DISCOUNT:
        return f"{rate_text(coupon.rate)}优惠券"
    if coupon.kind == Kind.THRESHOLD:
        return f"满{money(coupon.threshold)}减{money(coupon.amount)}"
    return f"{money(coupon.amount)}元优惠券"


def scope_text(coupon: Coupon) -> str:
    """Which items the coupon covers, in words."""
    if coupon.include is not None:
        names = "、".join(CATEGORY_NAMES[c] for c in sorted(coupon.include))
        base = f"平台内{names}类商品"
        if coupon.exclude:
            base += f"（{'、'.join(CATEGORY_NAMES[c] for c in sorted(coupon.exclude))}除外）"
        return base
    if coupon.exclude:
        return (
            f"平台内除{'和'.join(CATEGORY_NAMES[c] for c in sorted(coupon.exclude))}类外的所有商品"
        )
    return "平台内所有商品"


def window_text(window: Window) -> str:
    """When the coupon may be used, in words."""
    parts = []
    if window.first_day is not None:
        known = {(1, 10): "每月上旬（1号-10号）", (11, 20): "每月中旬（11号-20号）"}
        known[(21, 31)] = "每月下旬（21号至月底）"
        span = (window.first_day, window.last_day or 31)
        parts.append(known.get(span, f"每月{span[0]}号-{span[1]}号"))
    if window.weekdays is not None:
        days = sorted(window.weekdays)
        named = {(5, 6): "周末（周六、周日）", (0, 1, 2, 3, 4): "工作日（周一至周五）"}
        if tuple(days) in named:
            parts.append(named[tuple(days)])
        elif days == list(range(days[0], days[-1] + 1)):
            parts.append(f"每周{WEEKDAY_NAMES[days[0]]}至周{WEEKDAY_NAMES[days[-1]]}")
        else:
            parts.append("每周" + "、".join(f"周{WEEKDAY_NAMES[d]}" for d in days))
    return "且".join(parts) if parts else ""


def stacking_text(coupon: Coupon) -> str:
    """What the coupon may be combined with (other kinds; same kind is a policy rule)."""
    if coupon.alone:
        return "不可与任何其他优惠券叠加使用"
    others = [k for k in Kind if k != coupon.kind]
    allowed = [KIND_NAMES[k] for k in others if k not in coupon.forbids]
    refused = [KIND_NAMES[k] for k in others if k in coupon.forbids]
    parts = []
    if allowed:
        parts.append(f"可与{'、'.join(allowed)}叠加使用")
    if refused:
        parts.append(f"不可与{'、'.join(refused)}叠加使用")
    return "，".join(parts)


def coupon_rule(coupon: Coupon, *, new: bool) -> str:
    """The guideline text of one coupon (``new``: marked as added by a rule update)."""
    mark = "新增" if new else ""
    if coupon.kind == Kind.DISCOUNT:
        head = f"{mark}{coupon_title(coupon)}，适用于{scope_text(coupon)}"
    elif coupon.kind == Kind.THRESHOLD:
        head = f"{mark}{coupon_title(coupon)}（适用商品金额满{money(coupon.threshold)}元减"
        head += f"{money(coupon.amount)}元），适用于{scope_text(coupon)}"
    else:
        threshold = (
            f"适用商品金额满{money(coupon.threshold)}元可用" if coupon.threshold else "无消费门槛"
        )
        head = f"{mark}{coupon_title(coupon)}，{threshold}，可用于购买{scope_text(coupon)}"
    when = window_text(coupon.window)
    head += f"，适用时间为{when}" if when else "，无适用时间限制"
    return f"{KIND_NAMES[coupon.kind]}：{head}，每个订单仅限使用一次，{stacking_text(coupon)}"


def policy_rules(policy: Policy) -> list[str]:
    """The order-wide rules, in words."""
    order = "、".join(KIND_NAMES[k] for k in policy.order)
    rules = [
        f"同一订单中同时使用多种优惠券时，按照{order}的顺序依次计算，后一步在前一步计算后的"
        "金额上进行；满减门槛按此时适用商品的金额判断",
        "若一张优惠券标注不可与某类优惠券叠加，另一张标注可以叠加，以不可叠加规则为准；"
        "叠加限制对同一订单中的所有优惠券生效",
        "优惠券只抵扣其适用类别商品的金额，抵扣后金额不低于0元；不在适用时间内的优惠券不可使用",
    ]
    if not policy.same_kind:
        rules.append("同一订单中同一类型的优惠券最多使用一张")
    elif policy.same_kind_cap is not None:
        share = money(policy.same_kind_cap * 100)
        rules.append(
            f"同一类型的多张优惠券可以叠加使用，但同类型叠加后的优惠总额不能超过订单商品原价的"
            f"{share}%，超出部分不予抵扣"
        )
    else:
        rules.append("同一类型的多张优惠券可以叠加使用")
    return rules


def purchase_text(purchase: Purchase) -> str:
    """``本月12号（星期六）``."""
    parts = []
    if purchase.day is not None:
        parts.append(f"本月{purchase.day}号")
    if purchase.weekday is not None:
        parts.append(f"星期{WEEKDAY_NAMES[purchase.weekday]}")
    if len(parts) == 2:
        return f"{parts[0]}（{parts[1]}）"
    return parts[0] if parts else "某天"


def context_text(problem: Problem, buyer: str, names: Sequence[str], numbers: Sequence[str]) -> str:
    """The task's context: who buys what when, which coupons they hold, the question."""
    goods = "、".join(
        f"一件价格为{money(item.price)}元的{name}（{CATEGORY_NAMES[item.category]}类）"
        for item, name in zip(problem.items, names, strict=True)
    )
    held = "；".join(
        f"{number}{coupon_title(c)}（{KIND_NAMES[c.kind]}）"
        for c, number in zip(problem.coupons, numbers, strict=True)
    )
    return (
        f"{buyer}在{purchase_text(problem.purchase)}于某电商平台下单，购买了{goods}。"
        f"账户中有以下优惠券：{held}。各优惠券的适用范围、适用时间和叠加规则以平台规则为准。"
        f"{buyer}希望按规则选择优惠券使实付金额最少，请问{buyer}最少需要支付多少钱（单位：元）？"
    )


def analysis_text(
    problem: Problem, solution: Solution, numbers: Mapping[str, str], names: Sequence[str]
) -> str:
    """The reference analysis: usable coupons, number of combinations, the best plan."""
    by_id = {c.id: c for c in problem.coupons}

    def label(coupon_id: str) -> str:
        return f"{numbers[coupon_id]}{coupon_title(by_id[coupon_id])}"

    unusable = [c.id for c in problem.coupons if c.id not in solution.usable]
    lines = [
        f"下单时间为{purchase_text(problem.purchase)}，商品原价合计{show(solution.original)}元。"
    ]
    if unusable:
        lines.append("不在适用时间内、不能使用的优惠券：" + "、".join(map(label, unusable)) + "。")
    lines.append(
        f"按叠加规则，可用优惠券共有{len(solution.plans)}种可行组合（含不使用优惠券），"
        "逐一计算后取实付最少者。"
    )
    best = solution.best
    if not best.coupons:
        lines.append(f"任何组合都不比原价更便宜，实付{show(best.total)}元。")
        return "".join(lines)
    lines.append("最优组合：" + "、".join(map(label, best.coupons)) + "。")
    lines += _plan_steps(best, by_id, label)
    runner_up = next((p for p in solution.plans[1:] if p.total > best.total), None)
    if runner_up is not None:
        others = "、".join(map(label, runner_up.coupons)) or "不使用优惠券"
        lines.append(f"次优的组合（{others}）需支付{show(runner_up.total)}元。")
    lines.append(f"因此最少需要支付{show(best.total)}元。")
    return "".join(lines)


def _plan_steps(plan: Plan, by_id: Mapping[str, Coupon], label: Callable[[str], str]) -> list[str]:
    lines = []
    for step in plan.steps:
        coupon = by_id[step.coupon]
        if coupon.kind == Kind.DISCOUNT:
            lines.append(
                f"{label(step.coupon)}：适用商品金额{show(step.base)}元×{money(coupon.rate)}，"
                f"优惠{show(step.saving)}元；"
            )
        elif step.saving:
            lines.append(
                f"{label(step.coupon)}：适用商品金额{show(step.base)}元，抵扣{show(step.saving)}元；"
            )
        else:
            lines.append(f"{label(step.coupon)}：未达到使用条件，不抵扣；")
    for kind, cut in plan.capped:
        lines.append(f"{KIND_NAMES[kind]}叠加优惠超过上限，少抵扣{show(cut)}元；")
    return lines
