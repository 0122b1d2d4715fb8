"""The 52 published GuideBench math tasks, read by hand into the solver's model. Pure.

Each entry is this project's reading of a task's Context (the coupons it lists, the
order, the date) with the Guidelines' restrictions for the coupons it names. Where the
text leaves something open, the entry says what was assumed (``assumption``). The
solver's answer equals the published ReferenceAnswer for 42 of the 52 tasks
(docs/guidebench.md, "Agreement with the published answers"); :func:`reading_of` gives
the reading only for those, which the Table 3 rewrites use.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from fractions import Fraction

from adhere.suites.guidebench._coupons import (
    ALWAYS,
    Coupon,
    Item,
    Kind,
    Policy,
    Problem,
    Purchase,
    Window,
    fraction,
    money,
    solve,
)

__all__ = ["READINGS", "Reading", "disc", "fix", "items", "reading_of", "thr"]

D, T, F = Kind.DISCOUNT, Kind.THRESHOLD, Kind.FIXED
EARLY, MID, LATE = Window(1, 10), Window(11, 20), Window(21, 31)
DAYS_1_5, DAYS_20_25 = Window(1, 5), Window(20, 25)
WEEKEND = Window(weekdays=frozenset({5, 6}))
WORKDAY = Window(weekdays=frozenset({0, 1, 2, 3, 4}))
FRI_SUN = Window(weekdays=frozenset({4, 5, 6}))
TUE_THU = Window(weekdays=frozenset({1, 2, 3}))
SAT, TUE = 5, 1
TD = (T, D, F)  # rule_24 variant: thresholds, then discounts, then fixed amounts


def disc(
    cid: str,
    rate: str,
    *,
    only: Iterable[str] | None = None,
    but: Iterable[str] = (),
    forbids: Iterable[Kind] = (),
    when: Window = ALWAYS,
    alone: bool = False,
    threshold: int = 0,
) -> Coupon:
    return Coupon(
        cid, D, rate=fraction(rate), threshold=fraction(threshold),
        include=None if only is None else frozenset(only), exclude=frozenset(but),
        forbids=frozenset(forbids), alone=alone, window=when,
    )  # fmt: skip


def thr(
    cid: str,
    threshold: int,
    amount: int,
    *,
    only: Iterable[str] | None = None,
    but: Iterable[str] = (),
    forbids: Iterable[Kind] = (),
    when: Window = ALWAYS,
    alone: bool = False,
) -> Coupon:
    return Coupon(
        cid, T, amount=fraction(amount), threshold=fraction(threshold),
        include=None if only is None else frozenset(only), exclude=frozenset(but),
        forbids=frozenset(forbids), alone=alone, window=when,
    )  # fmt: skip


def fix(
    cid: str,
    amount: int,
    *,
    only: Iterable[str] | None = None,
    but: Iterable[str] = (),
    forbids: Iterable[Kind] = (),
    when: Window = ALWAYS,
    alone: bool = False,
    threshold: int = 0,
) -> Coupon:
    return Coupon(
        cid, F, amount=fraction(amount), threshold=fraction(threshold),
        include=None if only is None else frozenset(only), exclude=frozenset(but),
        forbids=frozenset(forbids), alone=alone, window=when,
    )  # fmt: skip


def items(**prices: int | str) -> tuple[Item, ...]:
    return tuple(Item(name, name.rstrip("0123456789"), fraction(p)) for name, p in prices.items())


# The coupons of the Guidelines, by rule id (what a Context restates refers to these).
R1 = thr("满300减80", 300, 80, only={"electronics"})
R2 = disc("7折", "0.7", only={"home"}, but={"sports"})
R3 = fix("20元", 20, only={"beauty"})
R5 = disc("8.5折", "0.85", only={"toys"}, but={"baby"})
R6 = fix("15元", 15, only={"stationery"})
R8 = disc("9折饰品", "0.9", only={"jewelry"}, but={"beauty"}, forbids={T, F})
R9 = thr("满400减100", 400, 100, but={"food", "electronics"}, forbids={F})
R11 = fix("25元", 25, but={"food", "beauty"}, forbids={T})
R12 = thr("满500减120", 500, 120, only={"sports"}, forbids={D})
R14 = disc("6折", "0.6", but={"electronics", "jewelry"}, forbids={F})
R15 = thr("满700减180", 700, 180, but={"food", "electronics", "sports"}, forbids={D})
R18 = fix("40元", 40, only={"sports"}, forbids={T, D}, when=WEEKEND)
R19 = thr("满800减200", 800, 200, forbids={F}, when=DAYS_1_5)
R29 = fix("10元", 10, only={"food"})
R30 = fix("35元", 35, only={"home"}, forbids={T}, when=WORKDAY)
R31 = thr("满1000减250", 1000, 250, but={"baby", "toys"}, forbids={D}, when=WEEKEND)
R42 = fix("12元", 12, only={"toys"})
R43 = thr("满900减220", 900, 220, but={"beauty", "home"}, forbids={D}, when=LATE)
R44 = thr("满350减90", 350, 90, only={"toys"}, forbids={F})
R51 = disc("6.5折", "0.65", only={"sports"}, forbids={T}, when=MID)
R52 = disc("9折家居", "0.9", only={"home"}, but={"food"}, when=FRI_SUN)
R53 = fix("22元", 22, but={"sports"}, forbids={D}, when=DAYS_20_25)
R54 = fix("18元", 18, but={"home"}, forbids={T}, when=TUE_THU)
R55 = thr("满550减130", 550, 130, but={"baby"}, forbids={D}, when=EARLY)

EIGHT = (R31, R3, R54, R9, R2, R5, R53, R18)  # tasks 15–19 list these eight


@dataclass(frozen=True)
class Reading:
    """Our reading of one published task."""

    problem: Problem
    assumption: str = ""


def p(
    goods: tuple[Item, ...],
    coupons: Iterable[Coupon],
    *,
    day: int | None = None,
    weekday: int | None = None,
    order: tuple[Kind, ...] = (D, T, F),
    cap: str | None = None,
    assumption: str = "",
) -> Reading:
    policy = Policy(order=order, same_kind_cap=None if cap is None else Fraction(cap))
    problem = Problem(goods, tuple(coupons), Purchase(day, weekday), policy)
    return Reading(problem, assumption)


def _goods_50(amount: int) -> tuple[Item, ...]:
    return items(other=amount)


def _rules_35_to_42(
    amount: int,
    threshold: int,
    cut: int,
    rate: str,
    f_threshold: int,
    f_cut: int,
    order: tuple[Kind, ...],
) -> Reading:
    coupons = (
        thr(f"满{threshold}减{cut}", threshold, cut),
        disc(f"{rate}折", rate),
        fix(f"满{f_threshold}减{f_cut}", f_cut, threshold=f_threshold, alone=True),
    )
    return p(items(other=amount), coupons, order=order)


_ALL_STACK = (replace(R2, forbids=frozenset()), R1, replace(R11, forbids=frozenset()))
"""Tasks 43–47: "已知这些优惠券可叠加使用" overrides the Guidelines' refusals."""

_DISCOUNT_9 = disc("9折", "0.9")
_DISCOUNT_8 = disc("8折", "0.8")

READINGS: dict[int, Reading] = {
    0: p(items(sports=200, food=50), (R51, R29), day=15),
    1: p(items(jewelry=150, sports=300), (R51, R29, R8), day=15),
    2: p(items(sports=300, food=80, jewelry=120), (R51, R29, R8), day=15),
    3: p(items(sports=400, food=60, jewelry=180), (R51, R29, R8), day=15),
    4: p(items(sports=350, food=100, jewelry=200), (R51, R29, R8), day=15),
    5: p(items(electronics=400), (R53, thr("满200减50", 200, 50),
         disc("9折", "0.9", only={"electronics"}, forbids={T, F})), day=22),
    6: p(items(other=300), (R53, thr("满200减30", 200, 30),
         disc("8折", "0.8", but={"sports"}, forbids={T, F})), day=23),
    7: p(items(home=300), (R53, thr("满300减80", 300, 80),
         disc("9折", "0.9", only={"home"}, forbids={T, F})), day=21),
    8: p(items(other=500), (R53, thr("满300减60", 300, 60),
         disc("8折", "0.8", but={"sports"}, forbids={T, F})), day=24),
    9: p(items(other=600), (R53, thr("满500减100", 500, 100),
         disc("8折a", "0.8", but={"sports"}), disc("8折b", "0.8", but={"sports"})),
         day=23, cap="0.5"),
    10: p(items(home=500, stationery=500), (R55, R30, R6), day=5,
          assumption="the 1000 yuan are split 500 home / 500 stationery (not stated)"),
    11: p(items(stationery=200, other=700), (R19, R6, R30, _DISCOUNT_9), day=3),
    12: p(items(stationery=300, other=400), (R55, R6, _DISCOUNT_8), day=5),
    13: p(items(home=400, stationery=300, other=500),
          (R19, R30, R6, disc("9.5折", "0.95")), weekday=TUE),
    14: p(items(stationery=300, other=800), (R19, R6, disc("8.5折", "0.85")), day=3),
    15: p(items(other=1500, beauty=200), EIGHT, weekday=SAT),
    16: p(items(electronics=500, toys=300), EIGHT, day=20),
    17: p(items(electronics=800, toys=150), EIGHT, weekday=TUE,
          assumption="the 'non-home appliance' (非家居用品类电器) is electronics"),
    18: p(items(electronics=1200, sports=300), EIGHT, weekday=SAT),
    19: p(items(other=450, beauty=180), EIGHT, day=22),
    20: p(items(home=800), (R2, R11, R15)),
    21: p(items(home=900), (R2, R11, R15)),
    22: p(items(home=600, other=200), (R2, R11, R15)),
    23: p(items(home=500, other=300), (R2, R11, R15)),
    24: p(items(home=750, other=50), (R2, R11, R15)),
    25: p(items(home=500, jewelry=200, toys=400), (R2, R8, R44, R11, R15)),
    26: p(items(home=600, jewelry=300, toys=500), (R2, R8, R44, R11, R15)),
    27: p(items(home=400, jewelry=150, toys=380), (R2, R8, R44, R11, R15)),
    28: p(items(home=800, jewelry=180, toys=360), (R2, R8, R44, R11, R15)),
    29: p(items(home=650, jewelry=220, toys=420), (R2, R8, R44, R11, R15)),
    30: p(items(home=800, toys=300), (R2, R11, R15, R42, R52), weekday=SAT),
    31: p(items(sports=1000, other=500), (R2, R11, R15, R42, R51, R52, R43), day=15),
    32: p(items(other=950, home=600), (R2, R11, R15, R42, R51, R52, R43), weekday=SAT),
    33: p(items(other=1200, sports=700), (R2, R11, R15, R42, R51, R52, R43), day=15),
    34: p(items(home=550, other=1100), (R2, R11, R15, R42, R51, R52, R43), weekday=SAT),
    35: _rules_35_to_42(500, 400, 100, "0.8", 300, 50, (D, T, F)),
    36: _rules_35_to_42(800, 600, 150, "0.9", 500, 80, (D, T, F)),
    37: _rules_35_to_42(1000, 800, 200, "0.7", 600, 100, TD),
    38: _rules_35_to_42(1000, 800, 200, "0.7", 600, 100, (D, T, F)),
    39: _rules_35_to_42(1200, 1000, 250, "0.85", 800, 150, TD),
    40: _rules_35_to_42(1200, 1000, 250, "0.85", 800, 150, (D, T, F)),
    41: _rules_35_to_42(1500, 1200, 300, "0.75", 1000, 200, (D, T, F)),
    42: _rules_35_to_42(1500, 1200, 300, "0.75", 1000, 200, TD),
    43: p(items(electronics=500, home=200), _ALL_STACK),
    44: p(items(electronics=400, home=300), _ALL_STACK),
    45: p(items(electronics=600, home=400), _ALL_STACK),
    46: p(items(electronics=700, home=500), _ALL_STACK),
    47: p(items(electronics=800, home=600), _ALL_STACK),
    48: p(items(home=800, toys=300), (R2, R5, R11, R15)),
    49: p(items(beauty=600, other=900), (R14, R3, R15)),
    50: p(items(sports=1000), (R5, R11, R3, R12)),
    51: p(items(other=900, beauty=400), (R14, R3, R15)),
}  # fmt: skip
"""Task index → our reading. Tasks 35 and 36 name both rule_21 (discounts first) and
rule_24 (thresholds first); we follow rule_21, the more specific one, as the published
answers do. Tasks 37–42 follow whichever of the two their Guidelines name."""


def reading_of(index: int, gold: str) -> Problem | None:
    """The reading of published math task ``index`` when its answer is ``gold``, else ``None``."""
    reading = READINGS.get(index)
    if reading is None or money(solve(reading.problem).best.total) != gold:
        return None
    return reading.problem
