"""Coupon problems to and from JSON (the ``Problem`` field of generated tasks).

Amounts are decimal strings (``"0.65"``, ``"497.5"``) so they stay exact; errors name
the field path.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from adhere.errors import SpecError
from adhere.spec import json_kind
from adhere.suites.guidebench._coupons import (
    Coupon,
    Item,
    Kind,
    Policy,
    Problem,
    Purchase,
    Window,
    fraction,
    money,
)


def problem_to_json(problem: Problem) -> dict[str, Any]:
    """A JSON-ready dict of a problem."""
    return {
        "items": [
            {"name": i.name, "category": i.category, "price": money(i.price)} for i in problem.items
        ],
        "coupons": [_coupon_to_json(c) for c in problem.coupons],
        "purchase": {"day": problem.purchase.day, "weekday": problem.purchase.weekday},
        "policy": {
            "order": [k.value for k in problem.policy.order],
            "same_kind": problem.policy.same_kind,
            "same_kind_cap": (
                None
                if problem.policy.same_kind_cap is None
                else money(problem.policy.same_kind_cap)
            ),
        },
    }


def _coupon_to_json(c: Coupon) -> dict[str, Any]:
    out: dict[str, Any] = {"id": c.id, "kind": c.kind.value}
    if c.kind == Kind.DISCOUNT:
        out["rate"] = money(c.rate)
    else:
        out["amount"] = money(c.amount)
    if c.threshold:
        out["threshold"] = money(c.threshold)
    if c.include is not None:
        out["include"] = sorted(c.include)
    if c.exclude:
        out["exclude"] = sorted(c.exclude)
    if c.forbids:
        out["forbids"] = sorted(k.value for k in c.forbids)
    if c.alone:
        out["alone"] = True
    window = c.window
    if window.first_day is not None:
        out["days"] = [window.first_day, window.last_day]
    if window.weekdays is not None:
        out["weekdays"] = sorted(window.weekdays)
    return out


def problem_from_json(data: Any, *, where: str, field: str = "Problem") -> Problem:
    """A problem from its JSON form.

    Raises:
        SpecError: A field is missing or malformed (the error names ``where`` and the field).
    """
    reader = _Reader(where)
    root = reader.mapping(data, field)
    items = []
    for n, raw_item in enumerate(reader.sequence(root.get("items"), f"{field}.items")):
        at = f"{field}.items[{n}]"
        item = reader.mapping(raw_item, at)
        items.append(
            Item(
                name=reader.text(item.get("name", ""), f"{at}.name"),
                category=reader.text(item.get("category"), f"{at}.category"),
                price=reader.amount(item.get("price"), f"{at}.price"),
            )
        )
    coupons = tuple(
        _coupon_from_json(
            reader, reader.mapping(raw, f"{field}.coupons[{n}]"), f"{field}.coupons[{n}]"
        )
        for n, raw in enumerate(reader.sequence(root.get("coupons"), f"{field}.coupons"))
    )
    if not items:
        raise SpecError("a problem needs at least one item", file=where, field=f"{field}.items")
    purchase_raw = reader.mapping(root.get("purchase", {}), f"{field}.purchase")
    purchase = Purchase(
        day=reader.optional_int(purchase_raw.get("day"), f"{field}.purchase.day"),
        weekday=reader.optional_int(purchase_raw.get("weekday"), f"{field}.purchase.weekday"),
    )
    policy_raw = reader.mapping(root.get("policy", {}), f"{field}.policy")
    default_order = [k.value for k in Policy().order]
    raw_order = reader.sequence(policy_raw.get("order", default_order), f"{field}.policy.order")
    order = tuple(reader.kind(k, f"{field}.policy.order[{n}]") for n, k in enumerate(raw_order))
    cap = policy_raw.get("same_kind_cap")
    policy = Policy(
        order=order,
        same_kind=bool(policy_raw.get("same_kind", True)),
        same_kind_cap=None if cap is None else reader.amount(cap, f"{field}.policy.same_kind_cap"),
    )
    return Problem(items=tuple(items), coupons=coupons, purchase=purchase, policy=policy)


def _coupon_from_json(reader: _Reader, raw: Mapping[str, Any], at: str) -> Coupon:
    kind = reader.kind(raw.get("kind"), f"{at}.kind")
    days = raw.get("days")
    first_day = last_day = None
    if days is not None:
        pair = reader.sequence(days, f"{at}.days")
        if len(pair) != 2:
            raise SpecError("expected [first day, last day]", file=reader.where, field=f"{at}.days")
        first_day = reader.optional_int(pair[0], f"{at}.days[0]")
        last_day = reader.optional_int(pair[1], f"{at}.days[1]")
    weekdays = raw.get("weekdays")
    return Coupon(
        id=reader.text(raw.get("id"), f"{at}.id"),
        kind=kind,
        amount=reader.amount(raw.get("amount", 0), f"{at}.amount"),
        rate=reader.amount(raw.get("rate", 1), f"{at}.rate"),
        threshold=reader.amount(raw.get("threshold", 0), f"{at}.threshold"),
        include=(
            None if raw.get("include") is None else reader.names(raw["include"], f"{at}.include")
        ),
        exclude=reader.names(raw.get("exclude", []), f"{at}.exclude"),
        forbids=frozenset(
            reader.kind(k, f"{at}.forbids[{n}]")
            for n, k in enumerate(reader.sequence(raw.get("forbids", []), f"{at}.forbids"))
        ),
        alone=bool(raw.get("alone", False)),
        window=Window(
            first_day=first_day,
            last_day=last_day,
            weekdays=(
                None
                if weekdays is None
                else frozenset(
                    reader.weekday(w, f"{at}.weekdays[{n}]")
                    for n, w in enumerate(reader.sequence(weekdays, f"{at}.weekdays"))
                )
            ),
        ),
    )


class _Reader:
    """Typed reads from JSON data with errors naming the file and field."""

    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, message: str, field: str) -> SpecError:
        return SpecError(message, file=self.where, field=field)

    def mapping(self, value: Any, field: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(f"expected an object, got {json_kind(value)}", field)
        return value

    def sequence(self, value: Any, field: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(f"expected a list, got {json_kind(value)}", field)
        return value

    def names(self, value: Any, field: str) -> frozenset[str]:
        items = self.sequence(value, field)
        return frozenset(self.text(item, f"{field}[{n}]") for n, item in enumerate(items))

    def weekday(self, value: Any, field: str) -> int:
        day = self.optional_int(value, field)
        if day is None or not 0 <= day <= 6:
            raise self.fail(f"expected a weekday 0 (Monday) to 6, got {value!r}", field)
        return day

    def text(self, value: Any, field: str) -> str:
        if not isinstance(value, str):
            raise self.fail(f"expected a string, got {json_kind(value)}", field)
        return value

    def amount(self, value: Any, field: str) -> Fraction:
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise self.fail(f"expected a decimal amount, got {value!r}", field)
        try:
            return fraction(value)
        except (ArithmeticError, ValueError):
            raise self.fail(f"expected a decimal amount, got {value!r}", field) from None

    def optional_int(self, value: Any, field: str) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(f"expected an integer, got {value!r}", field)
        return value

    def kind(self, value: Any, field: str) -> Kind:
        try:
            return Kind(value)
        except ValueError:
            raise self.fail(
                f"expected one of {[k.value for k in Kind]}, got {value!r}", field
            ) from None
