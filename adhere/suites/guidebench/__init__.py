"""GuideBench: domain guideline following (SUITES.md §5).

Loader for the public Chinese task files, the prompt frame (with or without the
guidelines; reasoning or direct answers), answer parsing with recorded
normalizations, per-category accuracy and macro precision/recall/F1, and an exact
coupon solver with a generator of fresh coupon-math tasks. ``protocol: paper`` follows
the paper's public code (its prompt frame, parsing and labels); prompts can come from
template files; the paper's Table 3 formulations, its Appendix B.6 rule edits and its
LLM answer parsing (through the judge panel, with the parsers' agreement) are options.
"""

from adhere.suites.guidebench._ablations import pick_demos, reorder, rewrite
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
from adhere.suites.guidebench._frame import build_prompts, template_values
from adhere.suites.guidebench._instance import subset, task_to_instance
from adhere.suites.guidebench._llm_parse import llm_prompt, read_llm_prompt
from adhere.suites.guidebench._load import load_directory, load_file
from adhere.suites.guidebench._metrics import Answer, Scores, macro_prf, report_tables, score
from adhere.suites.guidebench._normalize import STEPS, normalize
from adhere.suites.guidebench._paper import answer_fields, label_text, parse_public
from adhere.suites.guidebench._parse import ParsedAnswer, parse_answer
from adhere.suites.guidebench._prompt import render_prompt, system_prompt
from adhere.suites.guidebench._protocol import (
    PROTOCOLS,
    TEMPLATE_KEYS,
    TEMPLATE_VARIABLES,
    Protocol,
)
from adhere.suites.guidebench._suite import GuideBenchSuite
from adhere.suites.guidebench._task import (
    CATEGORIES,
    AnswerKind,
    CategoryInfo,
    Rule,
    Task,
    published_form,
)

__all__ = [
    "CATEGORIES",
    "PROTOCOLS",
    "STEPS",
    "TEMPLATE_KEYS",
    "TEMPLATE_VARIABLES",
    "Answer",
    "AnswerKind",
    "CategoryInfo",
    "Coupon",
    "CouponParams",
    "GuideBenchSuite",
    "Item",
    "Kind",
    "ParsedAnswer",
    "Policy",
    "Problem",
    "Protocol",
    "Purchase",
    "Rule",
    "Scores",
    "Semantics",
    "Solution",
    "Task",
    "Window",
    "answer_fields",
    "build_prompts",
    "generate_coupon_tasks",
    "label_text",
    "llm_prompt",
    "load_directory",
    "load_file",
    "macro_prf",
    "money",
    "normalize",
    "parse_answer",
    "parse_public",
    "pick_demos",
    "published_form",
    "read_llm_prompt",
    "render_prompt",
    "reorder",
    "report_tables",
    "rewrite",
    "robust_total",
    "score",
    "solve",
    "subset",
    "system_prompt",
    "task_to_instance",
    "template_values",
]
