"""PACIFIC: sequential code instruction following and dry running (SUITES.md §2).

A generator of chains of the 22 instructions, their renderings in Python, Java, C++
and natural language, the ``[ANSWER][i]`` prompt format (as templates), the parser,
the scorer, the paper's protocol as an option and per-instruction accuracy.
"""

from adhere.suites.pacific._accuracy import (
    InstructionTally,
    accuracy_tables,
    instruction_accuracy,
    step_instructions,
)
from adhere.suites.pacific._generate import GeneratorParams, generate, generate_sample
from adhere.suites.pacific._instructions import INSTRUCTIONS, Instruction, by_id, by_name
from adhere.suites.pacific._parse import ParsedReply, StepOutcome, classify, parse_reply
from adhere.suites.pacific._prompt import SYSTEM_PROMPT, format_answer, render_prompt
from adhere.suites.pacific._protocol import OPTIONS, PROTOCOLS, Protocol
from adhere.suites.pacific._sample import Sample, Step
from adhere.suites.pacific._suite import PacificSuite, load_samples, sample_to_instance
from adhere.suites.pacific._templates import (
    ADHERE_TEMPLATES,
    PAPER_TEMPLATES,
    TEMPLATE_VARIABLES,
    PromptTemplates,
    render_turns,
)

__all__ = [
    "ADHERE_TEMPLATES",
    "INSTRUCTIONS",
    "OPTIONS",
    "PAPER_TEMPLATES",
    "PROTOCOLS",
    "SYSTEM_PROMPT",
    "TEMPLATE_VARIABLES",
    "GeneratorParams",
    "Instruction",
    "InstructionTally",
    "PacificSuite",
    "ParsedReply",
    "PromptTemplates",
    "Protocol",
    "Sample",
    "Step",
    "StepOutcome",
    "accuracy_tables",
    "by_id",
    "by_name",
    "classify",
    "format_answer",
    "generate",
    "generate_sample",
    "instruction_accuracy",
    "load_samples",
    "parse_reply",
    "render_prompt",
    "render_turns",
    "sample_to_instance",
    "step_instructions",
]
