"""Coupon problems and an exact solver that enumerates coupon combinations.

The model (documented with worked examples in docs/guidebench.md):

* An order holds items, each with a category and a price.
* A coupon is a **discount** (折扣: eligible prices × rate), a **threshold** coupon
  (满减: when the eligible amount reaches the threshold, take the amount off) or a
  **fixed** coupon (固定金额: take the amount off, no threshold unless given). It
  applies to the items of its categories (``include``; all when ``None``) minus
  ``exclude``, may be limited to days of the month and/or weekdays, may refuse to
  be combined with some kinds (``forbids``), or with anything (``alone``). Each
  coupon is used at most once.
* Two coupons may be used together when neither forbids the other's kind; a
  refusal on either side wins (the published rule "以不可叠加规则为准"), for the whole
  order (``Policy.stacking``; ``item`` limits it to coupons sharing an item). Two of the
  same kind may be used together only when the policy says so (``same_kind``),
  optionally with their combined saving capped at a share of the order's price.
* Kinds are applied stage by stage in the policy's ``order`` (default: discounts,
  then thresholds, then fixed amounts). A threshold is checked against the eligible
  amount at the start of its stage, after the earlier stages. An amount taken off
  several items is shared among them in proportion to their current prices, and
  never exceeds what the eligible items still cost.

The solver tries every combination of the coupons valid at the purchase time that
the stacking rules allow, and returns the cheapest (ties: fewer coupons, then ids).
Arithmetic is exact (:class:`fractions.Fraction`).

Two choices above are not forced by rules written in words: how an amount is shared
among items, and whether a second threshold coupon of the same stage sees the amount
before or after the first. :class:`Semantics` names the alternatives, so a generator
can keep only problems whose answer is the same under all of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum
from fractions import Fraction
from itertools import combinations
from typing import Literal


class Kind(str, Enum):
    """The three coupon kinds of the published math tasks."""

    DISCOUNT = "discount"
    THRESHOLD = "threshold"
    FIXED = "fixed"


@dataclass(frozen=True)
class Window:
    """When a coupon may be used: days of the month and/or weekdays (0 = Monday)."""

    first_day: int | None = None
    last_day: int | None = None
    weekdays: frozenset[int] | None = None

    def allows(self, purchase: Purchase) -> bool:
        """Whether a purchase falls in the window (an unknown date fails a condition)."""
        if self.first_day is not None:
            last = self.last_day if self.last_day is not None else 31
            if purchase.day is None or not self.first_day <= purchase.day <= last:
                return False
        if self.weekdays is not None:
            if purchase.weekday is None or purchase.weekday not in self.weekdays:
                return False
        return True


ALWAYS = Window()


@dataclass(frozen=True)
class Coupon:
    """One coupon (see the module docstring for the meaning of each field)."""

    id: str
    kind: Kind
    amount: Fraction = Fraction(0)
    rate: Fraction = Fraction(1)
    threshold: Fraction = Fraction(0)
    include: frozenset[str] | None = None
    exclude: frozenset[str] = frozenset()
    forbids: frozenset[Kind] = frozenset()
    alone: bool = False
    window: Window = ALWAYS

    def applies_to(self, category: str) -> bool:
        """Whether an item of ``category`` is eligible."""
        if self.include is not None and category not in self.include:
            return False
        return category not in self.exclude


@dataclass(frozen=True)
class Item:
    """One line of the order."""

    name: str
    category: str
    price: Fraction


@dataclass(frozen=True)
class Purchase:
    """When the order is placed (``None``: not stated)."""

    day: int | None = None
    weekday: int | None = None


@dataclass(frozen=True)
class Policy:
    """Order-wide rules: calculation order and same-kind stacking."""

    order: tuple[Kind, ...] = (Kind.DISCOUNT, Kind.THRESHOLD, Kind.FIXED)
    same_kind: bool = True
    same_kind_cap: Fraction | None = None
    """Combined saving of several coupons of one kind ≤ this share of the order's price."""
    stacking: Literal["order", "item"] = "order"
    """``order``: a refusal to combine holds for the whole order (the default);
    ``item``: only for coupons that share an eligible item (a reading some published
    answers follow)."""


@dataclass(frozen=True)
class Semantics:
    """Choices the rules leave open; the default is the documented one."""

    allocation: Literal["pro_rata", "largest_first"] = "pro_rata"
    threshold_base: Literal["stage", "running"] = "stage"


DOCUMENTED = Semantics()
"""The documented reading (pro-rata sharing, thresholds checked at the stage's start)."""

ALTERNATIVES: tuple[Semantics, ...] = tuple(
    Semantics(allocation, base)
    for allocation in ("pro_rata", "largest_first")
    for base in ("stage", "running")
)
"""Every combination of the open choices."""


@dataclass(frozen=True)
class Problem:
    """An order, the coupons on offer, when it is placed and the order-wide rules."""

    items: tuple[Item, ...]
    coupons: tuple[Coupon, ...]
    purchase: Purchase = Purchase()
    policy: Policy = Policy()

    @property
    def original(self) -> Fraction:
        """The order's price before coupons."""
        return sum((item.price for item in self.items), Fraction(0))


@dataclass(frozen=True)
class Step:
    """What one coupon did: the eligible amount it saw and what it saved."""

    coupon: str
    base: Fraction
    saving: Fraction


@dataclass(frozen=True)
class Plan:
    """A combination of coupons and the price it leads to."""

    coupons: tuple[str, ...]
    total: Fraction
    steps: tuple[Step, ...] = ()
    capped: tuple[tuple[Kind, Fraction], ...] = ()
    """Kinds whose combined saving was cut to the cap, with the amount cut."""


@dataclass(frozen=True)
class Solution:
    """The cheapest plan and what was compared."""

    best: Plan
    original: Fraction
    usable: tuple[str, ...]
    """Coupons valid at the purchase time."""
    plans: tuple[Plan, ...] = field(default=(), repr=False)
    """Every allowed combination, cheapest first."""


def compatible(coupons: Sequence[Coupon], policy: Policy, items: Sequence[Item] = ()) -> bool:
    """Whether the coupons may all be used in one order (``items``: for item-level stacking)."""
    if len(coupons) > 1 and any(c.alone for c in coupons):
        return False
    for a, b in combinations(coupons, 2):
        if policy.stacking == "item" and not any(
            a.applies_to(i.category) and b.applies_to(i.category) for i in items
        ):
            continue
        if a.kind == b.kind:
            if not policy.same_kind:
                return False
        elif b.kind in a.forbids or a.kind in b.forbids:
            return False
    return True


def evaluate(problem: Problem, chosen: Sequence[Coupon], semantics: Semantics = DOCUMENTED) -> Plan:
    """The price of the order with ``chosen`` applied under the policy's order."""
    items = problem.items
    prices = [item.price for item in items]
    steps: list[Step] = []
    capped: list[tuple[Kind, Fraction]] = []
    for kind in problem.policy.order:
        stage = [c for c in chosen if c.kind == kind]
        if not stage:
            continue
        start = list(prices)
        for coupon in stage:
            eligible = [i for i, item in enumerate(items) if coupon.applies_to(item.category)]
            current = sum((prices[i] for i in eligible), Fraction(0))
            seen = start if semantics.threshold_base == "stage" else prices
            if not eligible or sum((seen[i] for i in eligible), Fraction(0)) < coupon.threshold:
                steps.append(Step(coupon.id, current, Fraction(0)))
                continue
            if kind == Kind.DISCOUNT:
                for i in eligible:
                    prices[i] *= coupon.rate
                saving = current * (1 - coupon.rate)
            else:
                saving = min(coupon.amount, current)
                _take_off(prices, eligible, saving, semantics)
            steps.append(Step(coupon.id, current, saving))
        cap = problem.policy.same_kind_cap
        if len(stage) > 1 and cap is not None:
            saved = sum(start, Fraction(0)) - sum(prices, Fraction(0))
            limit = cap * problem.original
            if saved > limit:
                share = limit / saved
                prices = [s - (s - p) * share for s, p in zip(start, prices, strict=True)]
                capped.append((kind, saved - limit))
    return Plan(
        coupons=tuple(c.id for c in chosen),
        total=sum(prices, Fraction(0)),
        steps=tuple(steps),
        capped=tuple(capped),
    )


def _take_off(
    prices: list[Fraction], eligible: Sequence[int], amount: Fraction, semantics: Semantics
) -> None:
    """Take ``amount`` off the eligible items (at most what they cost)."""
    if semantics.allocation == "pro_rata":
        total = sum((prices[i] for i in eligible), Fraction(0))
        if total:
            for i in eligible:
                prices[i] -= amount * prices[i] / total
        return
    left = amount
    for i in sorted(eligible, key=lambda i: (-prices[i], i)):
        cut = min(left, prices[i])
        prices[i] -= cut
        left -= cut


def usable(problem: Problem) -> list[Coupon]:
    """Coupons valid at the purchase time, in the order given."""
    return [c for c in problem.coupons if c.window.allows(problem.purchase)]


def solve(problem: Problem, semantics: Semantics = DOCUMENTED) -> Solution:
    """The cheapest allowed combination, by enumerating every subset of usable coupons."""
    valid = usable(problem)
    plans = [
        evaluate(problem, chosen, semantics)
        for size in range(len(valid) + 1)
        for chosen in combinations(valid, size)
        if compatible(chosen, problem.policy, problem.items)
    ]
    plans.sort(key=lambda p: (p.total, len(p.coupons), p.coupons))
    return Solution(
        best=plans[0],
        original=problem.original,
        usable=tuple(c.id for c in valid),
        plans=tuple(plans),
    )


def robust_total(problem: Problem) -> Fraction | None:
    """The cheapest price if it is the same under every open choice, else ``None``."""
    totals = {solve(problem, s).best.total for s in ALTERNATIVES}
    return totals.pop() if len(totals) == 1 else None


def money(value: Fraction) -> str:
    """An exact amount as a plain decimal (``497.5``, ``170``).

    Raises:
        ValueError: The amount has no finite decimal form (e.g. one third).
    """
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    if denominator != 1:
        raise ValueError(f"{value} has no finite decimal form")
    text = format(Decimal(value.numerator) / Decimal(value.denominator), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def fraction(text: str | int | float) -> Fraction:
    """An exact amount from a decimal string or number (``"0.65"``, ``170``)."""
    return Fraction(Decimal(str(text)))


def kinds(names: Iterable[str]) -> frozenset[Kind]:
    """Kinds from their values (``["discount", "fixed"]``)."""
    return frozenset(Kind(name) for name in names)
