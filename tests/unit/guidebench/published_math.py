"""The 52 published GuideBench math tasks, read by hand into the solver's model.

The readings live in :mod:`adhere.suites.guidebench._published_math` (the Table 3
rewrites use them); this module compares the solver's answers with the published
ReferenceAnswer (test_gb_coupons.py lists the tasks where they differ, with the reason).

Run ``uv run python -m tests.unit.guidebench.published_math`` for the table.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from adhere.suites.guidebench._coupons import money, solve
from adhere.suites.guidebench._published_math import READINGS, Reading

__all__ = ["READINGS", "Reading", "agreement", "published_answers"]

DATA = Path(__file__).resolve().parents[4] / "shared" / "data" / "guidebench" / "math_tasks.json"


def published_answers() -> list[str]:
    """The published ReferenceAnswer of every math task, in file order."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    return [str(task["Groundtruth"]["ReferenceAnswer"]) for task in data]


def agreement(stacking: str = "order") -> dict[int, tuple[str, str]]:
    """Task index → (solver's answer, published answer) under a stacking reading."""
    published = published_answers()
    out = {}
    for index, reading in READINGS.items():
        policy = replace(reading.problem.policy, stacking=stacking)
        solution = solve(replace(reading.problem, policy=policy))
        out[index] = (money(solution.best.total), published[index])
    return out


if __name__ == "__main__":
    for stacking in ("order", "item"):
        rows = agreement(stacking)
        same = [i for i, (a, b) in rows.items() if a == b]
        print(f"stacking={stacking}: {len(same)}/{len(rows)} agree")  # noqa: T201
        for i, (mine, theirs) in rows.items():
            if mine != theirs:
                print(f"  task {i}: solver {mine}, published {theirs}")  # noqa: T201
