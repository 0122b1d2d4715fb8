"""ManyIH: many-tier instruction hierarchies (SUITES.md §3).

The coding subset: MBPP tasks with 12 privilege-tagged style instructions each, in
the ordinal (``[[Privilege k]]``) or scalar (``[[z=v]]``) interface; winners resolved
by privilege (ties to the later instruction); unit tests run in the sandbox; 41 style
checkers over tokens and syntax trees; a restyler for the scripted oracle; tier
variants, scalar perturbations and a generator of new samples. The IF subset's
schema is read too (code checks sandboxed, the rest judged). Protocols: adhere's
default, or the paper's (public-compatible checkers, published prompt, public
extraction, §6.4 shifts), with prompt templates from files.
"""

from adhere.suites.manyih._checkers import CHECKERS, check_style, check_styles
from adhere.suites.manyih._code import Code, Outcome
from adhere.suites.manyih._extract import extract_code
from adhere.suites.manyih._generate import (
    Generated,
    GenerateParams,
    Problem,
    generate,
    load_problems,
    variant_document,
)
from adhere.suites.manyih._hierarchy import (
    INTERFACES,
    META_PROMPTS,
    Interface,
    Tagged,
    ordinal_ranks,
    parse_tags,
    render_prompt,
    resolve,
    strongest_first,
    winners_from_prompt,
)
from adhere.suites.manyih._ifsubset import IfConstraint, IfSample, if_to_instance, load_if
from adhere.suites.manyih._instances import answer_key, sample_to_instance
from adhere.suites.manyih._metrics import flip_rates, outcome, rates, report_tables
from adhere.suites.manyih._oracle import oracle_code
from adhere.suites.manyih._protocol import (
    PROTOCOLS,
    TEMPLATE_VARIABLES,
    Protocol,
    extract_public,
    published_prompt,
)
from adhere.suites.manyih._public import PUBLIC_CHECKERS, check_public, public_verdict
from adhere.suites.manyih._restyle import Restyled, Task, restyle
from adhere.suites.manyih._sample import (
    SLOW_TASKS,
    CodingSample,
    InstructionRecord,
    entry_point,
    load_coding,
    n_conflicts,
    parse_sample,
    prompt_order,
    split_tests,
    tagged,
    winners,
)
from adhere.suites.manyih._styles import GROUPS, STYLES, StyleDef, conflicts
from adhere.suites.manyih._suite import ManyIHSuite
from adhere.suites.manyih._variants import TIER_CONFLICTS, perturb, tier_variant

__all__ = [
    "CHECKERS",
    "GROUPS",
    "INTERFACES",
    "META_PROMPTS",
    "PROTOCOLS",
    "PUBLIC_CHECKERS",
    "SLOW_TASKS",
    "STYLES",
    "TEMPLATE_VARIABLES",
    "TIER_CONFLICTS",
    "Code",
    "CodingSample",
    "GenerateParams",
    "Generated",
    "IfConstraint",
    "IfSample",
    "InstructionRecord",
    "Interface",
    "ManyIHSuite",
    "Outcome",
    "Problem",
    "Protocol",
    "Restyled",
    "StyleDef",
    "Tagged",
    "Task",
    "answer_key",
    "check_public",
    "check_style",
    "check_styles",
    "conflicts",
    "entry_point",
    "extract_code",
    "extract_public",
    "flip_rates",
    "generate",
    "if_to_instance",
    "load_coding",
    "load_if",
    "load_problems",
    "n_conflicts",
    "oracle_code",
    "ordinal_ranks",
    "outcome",
    "parse_sample",
    "parse_tags",
    "perturb",
    "prompt_order",
    "public_verdict",
    "published_prompt",
    "rates",
    "render_prompt",
    "report_tables",
    "resolve",
    "restyle",
    "sample_to_instance",
    "split_tests",
    "strongest_first",
    "tagged",
    "tier_variant",
    "variant_document",
    "winners",
    "winners_from_prompt",
]
