"""GuideBench: domain guideline following (SUITES.md §5).

Loader for the public Chinese task files, the prompt frame (with or without the
guidelines; reasoning or direct answers), answer parsing with recorded
normalizations, per-category accuracy and macro precision/recall/F1, and an exact
coupon solver with a generator of fresh coupon-math tasks.
"""

from adhere.suites.guidebench._coupon_gen import CouponParams, generate_coupon_tasks
from adhere.suites.guidebench._coupons import (
    Coupon,
    Item,
    Kind,
    Policy,
    Problem,
    Purchase,
    Semantics,
    Solution,
    Window,
    money,
    robust_total,
    solve,
)
from adhere.suites.guidebench._load import load_directory, load_file
from adhere.suites.guidebench._metrics import Answer, Scores, macro_prf, report_tables, score
from adhere.suites.guidebench._normalize import STEPS, normalize
from adhere.suites.guidebench._parse import ParsedAnswer, parse_answer
from adhere.suites.guidebench._prompt import render_prompt, system_prompt
from adhere.suites.guidebench._suite import GuideBenchSuite, subset, task_to_instance
from adhere.suites.guidebench._task import CATEGORIES, CategoryInfo, Rule, Task

__all__ = [
    "CATEGORIES",
    "STEPS",
    "Answer",
    "CategoryInfo",
    "Coupon",
    "CouponParams",
    "GuideBenchSuite",
    "Item",
    "Kind",
    "ParsedAnswer",
    "Policy",
    "Problem",
    "Purchase",
    "Rule",
    "Scores",
    "Semantics",
    "Solution",
    "Task",
    "Window",
    "generate_coupon_tasks",
    "load_directory",
    "load_file",
    "macro_prf",
    "money",
    "normalize",
    "parse_answer",
    "render_prompt",
    "report_tables",
    "robust_total",
    "score",
    "solve",
    "subset",
    "system_prompt",
    "task_to_instance",
]
