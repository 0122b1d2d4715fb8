"""The coupon solver on hand-worked cases, and against the published math answers."""

from dataclasses import replace
from fractions import Fraction

import pytest

from adhere.errors import SpecError
from adhere.suites.guidebench import (
    Kind,
    Policy,
    Problem,
    Purchase,
    Semantics,
    money,
    robust_total,
    solve,
)
from adhere.suites.guidebench._coupon_json import problem_from_json, problem_to_json
from adhere.suites.guidebench._coupons import evaluate
from adhere.suites.guidebench._published_math import MID, disc, fix, items, thr
from tests.unit.guidebench.published_math import READINGS, agreement

D, T, F = Kind.DISCOUNT, Kind.THRESHOLD, Kind.FIXED


def best(problem: Problem) -> tuple[str, tuple[str, ...]]:
    solution = solve(problem)
    return money(solution.best.total), solution.best.coupons


def test_a_single_discount() -> None:
    # 800 × 0.7 = 560
    assert best(Problem(items(home=800), (disc("7折", "0.7", only={"home"}),))) == ("560", ("7折",))


def test_refusals_on_either_side_win() -> None:
    coupons = (
        disc("7折", "0.7"),
        thr("满700减180", 700, 180, forbids={D}),
        fix("25元", 25, forbids={T}),
    )
    # {} 800; {7折} 560; {满减} 620; {25元} 775; {7折, 25元} 560 − 25 = 535;
    # {7折, 满减} refused by the threshold coupon; {满减, 25元} refused by the fixed one.
    solution = solve(Problem(items(home=800), coupons))
    assert money(solution.best.total) == "535"
    assert solution.best.coupons == ("7折", "25元")
    assert len(solution.plans) == 5  # the five allowed combinations above


def test_the_calculation_order_decides_whether_a_threshold_is_reached() -> None:
    coupons = (thr("满800减200", 800, 200), disc("7折", "0.7"))
    # discounts first: 1000 × 0.7 = 700 < 800, the threshold is missed → 700
    assert best(Problem(items(other=1000), coupons))[0] == "700"
    # thresholds first: 1000 − 200 = 800, then × 0.7 = 560
    assert best(Problem(items(other=1000), coupons, policy=Policy(order=(T, D, F))))[0] == "560"


def test_a_threshold_counts_only_the_items_it_covers() -> None:
    coupon = thr("满350减90", 350, 90, only={"toys"})
    # toys 400 ≥ 350 → 400 − 90 = 310; home 300 untouched → 610
    assert best(Problem(items(home=300, toys=400), (coupon,)))[0] == "610"
    # toys 300 < 350 → no saving → 600
    assert best(Problem(items(home=300, toys=300), (coupon,)))[0] == "600"


def test_same_kind_stacking_is_a_policy_choice() -> None:
    coupons = (disc("9折", "0.9"), disc("7折", "0.7"))
    # both: 600 × 0.9 × 0.7 = 378
    assert best(Problem(items(home=600), coupons))[0] == "378"
    # one discount at most: the better one, 600 × 0.7 = 420
    assert best(Problem(items(home=600), coupons, policy=Policy(same_kind=False)))[0] == "420"


def test_a_cap_on_same_kind_savings() -> None:
    coupons = (disc("8折a", "0.8"), disc("8折b", "0.8"))
    # 600 × 0.8 × 0.8 = 384, saving 216 ≤ 50% of 600 = 300 → 384
    capped = Policy(same_kind_cap=Fraction(1, 2))
    assert best(Problem(items(other=600), coupons, policy=capped))[0] == "384"
    # cap 30%: saving 216 > 180 → cut to 180 → 600 − 180 = 420 (36 not granted)
    tight = Policy(same_kind_cap=Fraction(3, 10))
    plan = solve(Problem(items(other=600), coupons, policy=tight)).best
    assert money(plan.total) == "420" and plan.capped == ((D, Fraction(36)),)


@pytest.mark.parametrize(
    ("purchase", "expected"),
    [(Purchase(day=15), "130"), (Purchase(day=21), "200"), (Purchase(), "200")],
)
def test_time_windows(purchase: Purchase, expected: str) -> None:
    coupon = disc("6.5折", "0.65", only={"sports"}, when=MID)
    # mid-month: 200 × 0.65 = 130; on the 21st, or with no date given, not usable → 200
    assert best(Problem(items(sports=200), (coupon,), purchase))[0] == expected


def test_a_fixed_amount_never_exceeds_what_the_items_cost() -> None:
    # 15 off a 10-yuan notebook saves 10, not 15; the order costs 0 + 50 = 50
    problem = Problem(items(stationery=10, food=50), (fix("15元", 15, only={"stationery"}),))
    plan = solve(problem).best
    assert money(plan.total) == "50" and plan.steps[0].saving == 10


def test_a_coupon_that_stacks_with_nothing() -> None:
    coupons = (
        thr("满400减100", 400, 100),
        disc("8折", "0.8"),
        fix("满300减50", 50, threshold=300, alone=True),
    )
    # 500 × 0.8 = 400 ≥ 400 → 400 − 100 = 300; the lone coupon alone: 500 − 50 = 450
    assert best(Problem(items(other=500), coupons)) == ("300", ("满400减100", "8折"))


def test_the_open_readings_and_robustness() -> None:
    # Sharing: 满150减100 over home 100 + toys 100, then 60 off home only.
    # Pro rata: each loses 50, home 50 → the 60 saves 50 → 200 − 100 − 50 = 50.
    # Largest first (tie → first item): home 100 → 0, the 60 saves 0 → 100.
    problem = Problem(
        items(home=100, toys=100), (thr("满150减100", 150, 100), fix("60元", 60, only={"home"}))
    )
    chosen = problem.coupons
    assert evaluate(problem, chosen, Semantics("pro_rata")).total == 50
    assert evaluate(problem, chosen, Semantics("largest_first")).total == 100
    assert robust_total(problem) is None
    # Two thresholds in one stage on 400: at the stage's start both apply (400 − 100 − 50 =
    # 250); checked one after the other the second sees 300 < 350 and is missed (300).
    both = Problem(items(other=400), (thr("满400减100", 400, 100), thr("满350减50", 350, 50)))
    assert evaluate(both, both.coupons, Semantics(threshold_base="stage")).total == 250
    assert evaluate(both, both.coupons, Semantics(threshold_base="running")).total == 300
    assert robust_total(both) is None
    assert robust_total(Problem(items(home=800), (disc("7折", "0.7"),))) == 560


def test_item_level_stacking_reading() -> None:
    # Published task 2: the 9折 jewelry coupon refuses fixed coupons. Order-wide that
    # rules out the 10元 food coupon: 300×0.65 + 80 + 120×0.9 = 195 + 80 + 108 = 383.
    # Per item (coupons on different items never "stack"): 195 + 70 + 108 = 373.
    problem = READINGS[2].problem
    assert money(solve(problem).best.total) == "383"
    per_item = replace(problem, policy=replace(problem.policy, stacking="item"))
    assert money(solve(per_item).best.total) == "373"


def test_money() -> None:
    assert money(Fraction(995, 2)) == "497.5"
    assert money(Fraction(170)) == "170"
    assert money(Fraction(3, 4)) == "0.75"
    with pytest.raises(ValueError, match="finite decimal"):
        money(Fraction(1, 3))


def test_problem_json_round_trip_and_errors() -> None:
    for reading in READINGS.values():
        data = problem_to_json(reading.problem)
        assert problem_from_json(data, where="x") == reading.problem
    data = problem_to_json(READINGS[9].problem)
    data["coupons"][1]["kind"] = "voucher"
    with pytest.raises(SpecError, match="discount") as err:
        problem_from_json(data, where="tasks.json[3]")
    assert err.value.field == "Problem.coupons[1].kind"


ORDER_MISMATCHES = {2, 3, 4, 13, 15, 27, 28, 30, 46, 47}
ITEM_MISMATCHES = {13, 15, 26, 27, 28, 29, 30, 33, 46, 47}


def test_agreement_with_the_published_math_answers() -> None:
    """42 of 52 published answers agree; the other ten are explained in docs/guidebench.md.

    2, 3, 4: the answer uses a 9折 coupon that refuses fixed coupons together with the
      10元 one (agrees when refusals hold per item only).
    13: uses 满800减200, valid on the 1st–5th, though only "a working day" is given.
    15: uses a 22元 coupon valid on the 20th–25th with no date given, and treats the TV
      as electronics though the context says it is not (满400减100 would apply).
    27, 28: stacks the 25元 coupon with 满350减90, which both refuse; misses the two
      thresholds together (used by the same answers' task 25).
    30: does not stack the two home discounts (tasks 32 and 34 do) nor add 12元.
    46, 47: drop the 25元 coupon although the context says all coupons stack (43–45 keep it).
    """
    rows = agreement("order")
    assert {i for i, (mine, theirs) in rows.items() if mine != theirs} == ORDER_MISMATCHES
    assert len(rows) == 52
    item_rows = agreement("item")
    assert {i for i, (mine, theirs) in item_rows.items() if mine != theirs} == ITEM_MISMATCHES
