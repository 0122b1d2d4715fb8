"""PACIFIC: sequential code instruction following and dry running (SUITES.md §2).

A generator of chains of the 22 instructions, their renderings in Python, Java, C++
and natural language, the ``[ANSWER][i]`` prompt format, the parser and the scorer.
"""

from adhere.suites.pacific._generate import GeneratorParams, generate, generate_sample
from adhere.suites.pacific._instructions import INSTRUCTIONS, Instruction, by_id, by_name
from adhere.suites.pacific._parse import ParsedReply, StepOutcome, classify, parse_reply
from adhere.suites.pacific._prompt import SYSTEM_PROMPT, format_answer, render_prompt
from adhere.suites.pacific._sample import Sample, Step
from adhere.suites.pacific._suite import PacificSuite, load_samples, sample_to_instance

__all__ = [
    "INSTRUCTIONS",
    "SYSTEM_PROMPT",
    "GeneratorParams",
    "Instruction",
    "PacificSuite",
    "ParsedReply",
    "Sample",
    "Step",
    "StepOutcome",
    "by_id",
    "by_name",
    "classify",
    "format_answer",
    "generate",
    "generate_sample",
    "load_samples",
    "parse_reply",
    "render_prompt",
    "sample_to_instance",
]
