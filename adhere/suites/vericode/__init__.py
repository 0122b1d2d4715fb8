"""VeriCode / Vibe Checker: verifiable code instructions (SUITES.md §4).

The 30 instructions with parameters and prompts, the code extraction rule and the
three custom checks, base tasks (written by this project; BigCodeBench- and
LiveCodeBench-style loaders), the deterministic and LLM instruction selectors, the
single-turn and multi-turn protocols, oracle rendering, and the metrics (pass@1,
FR_k, IF_instruction, IF_task per k, category and position). Ruff and the unit tests
run at the edge, as evidence (see :mod:`adhere.scoring._ruff_batch`).
"""

from adhere.suites.vericode._catalog import CONFLICTS, INSTRUCTIONS, by_id, conflicts
from adhere.suites.vericode._checks import (
    CUSTOM_CHECKS,
    CheckResult,
    extract_code,
    fences,
    has_code,
)
from adhere.suites.vericode._instances import selection_instances
from adhere.suites.vericode._instruction import (
    CATEGORIES,
    Instruction,
    Param,
    ValidatedParams,
    validate_params,
)
from adhere.suites.vericode._load import builtin_tasks, load_tasks, parse_task
from adhere.suites.vericode._metrics import (
    POINTS,
    error_rates,
    excluded_models,
    model_scores,
    report_tables,
    units,
)
from adhere.suites.vericode._options import read_selections
from adhere.suites.vericode._paper_rules import PAPER_CUSTOM_CHECKS, paper_extract
from adhere.suites.vericode._prompt import SYSTEM_PROMPT, multi_turns, single_turn
from adhere.suites.vericode._render import break_solution, render_reply, strip_docs, violation
from adhere.suites.vericode._select import (
    SELECTOR_SYSTEM,
    Chosen,
    Selection,
    parse_selector_reply,
    permutation,
    relevant,
    select_deterministic,
    selector_prompt,
)
from adhere.suites.vericode._suite import VeriCodeSuite
from adhere.suites.vericode._task import Task, TaskTests, derive_tags
from adhere.suites.vericode._templates import (
    ADHERE_PROMPTS,
    PAPER_PROMPTS,
    TEMPLATE_VARIABLES,
    Prompts,
    prompts_from,
)
from adhere.suites.vericode._verdicts import ENVIRONMENT_LOCK, ENVIRONMENT_PYTHON, SUITE_ENVIRONMENT

__all__ = [
    "ADHERE_PROMPTS",
    "CATEGORIES",
    "PAPER_CUSTOM_CHECKS",
    "PAPER_PROMPTS",
    "POINTS",
    "TEMPLATE_VARIABLES",
    "Prompts",
    "error_rates",
    "excluded_models",
    "paper_extract",
    "prompts_from",
    "CONFLICTS",
    "CUSTOM_CHECKS",
    "ENVIRONMENT_LOCK",
    "ENVIRONMENT_PYTHON",
    "INSTRUCTIONS",
    "SELECTOR_SYSTEM",
    "SUITE_ENVIRONMENT",
    "SYSTEM_PROMPT",
    "CheckResult",
    "Chosen",
    "Instruction",
    "Param",
    "Selection",
    "Task",
    "TaskTests",
    "ValidatedParams",
    "VeriCodeSuite",
    "break_solution",
    "builtin_tasks",
    "by_id",
    "conflicts",
    "derive_tags",
    "extract_code",
    "fences",
    "has_code",
    "load_tasks",
    "model_scores",
    "multi_turns",
    "parse_selector_reply",
    "parse_task",
    "permutation",
    "read_selections",
    "relevant",
    "render_reply",
    "report_tables",
    "select_deterministic",
    "selection_instances",
    "selector_prompt",
    "single_turn",
    "strip_docs",
    "units",
    "validate_params",
    "violation",
]
