"""Choosing the next instruction of a chain: adhere's rule and the paper's.

Both keep the chain **type consistent** (an instruction takes the type the previous
step produced) and inside the chain domain (integers ``0 <= n < INT_LIMIT``, strings
at most ``MAX_CHAIN_STRING`` characters, so every rendering runs without overflow);
both are driven by the sample's own random generator, so a seed reproduces them.

``adhere`` (the default): every candidate is applied to the current value; the pick is
random among those whose output lands closest to the target length (slack one); one
step in five (``EXPLORE``) is picked uniformly among all candidates instead; the same
instruction never follows itself.

``paper`` (§3.2 and §3.3.2 of the paper): instructions are put in length-aware
categories by their effect on the current expected value — those that make it longer,
shorter, or keep its length (bits for integers, characters for strings). Below the
target the pick is uniform among the lengthening ones, above it among the shortening
ones, at the target among the length-keeping ones; when that category is empty, the
keeping ones, then any candidate. Nothing else constrains the pick: an instruction may
follow itself.
"""

from __future__ import annotations

import random

from adhere.suites.pacific._instructions import INSTRUCTIONS, INT_LIMIT, Instruction, value_length

__all__ = ["EXPLORE", "MAX_CHAIN_STRING", "Candidate", "adhere_step", "candidates", "paper_step"]

MAX_CHAIN_STRING = 120
"""Longest intermediate string the generator allows (keeps prompts readable)."""
EXPLORE = 0.2
"""adhere's share of steps picked uniformly among all valid instructions, so every
instruction appears in every cell, not only the ones that best keep the length."""

Candidate = tuple[Instruction, int | str]
"""An instruction that may come next, and what it gives on the current value."""


def _in_chain_domain(value: int | str) -> bool:
    if isinstance(value, int):
        return 0 <= value < INT_LIMIT
    return len(value) <= MAX_CHAIN_STRING


def candidates(value: int | str, previous: int | None = None) -> list[Candidate]:
    """Type-compatible instructions that accept ``value`` and keep the chain in its domain.

    ``previous``: an instruction to leave out (adhere's no-repeat rule); ``None`` keeps all.
    """
    kind = "int" if isinstance(value, int) else "str"
    out: list[Candidate] = []
    for instruction in INSTRUCTIONS:
        if instruction.in_type != kind or instruction.paper_id == previous:
            continue
        if not instruction.accepts(value):
            continue
        result = instruction(value)
        if _in_chain_domain(result):
            out.append((instruction, result))
    return out


def adhere_step(
    rng: random.Random, value: int | str, target: int, previous: int | None
) -> Candidate | None:
    """The default pick (see the module docstring); ``None`` when nothing may follow."""
    scored = [
        (abs(value_length(out) - target), instruction, out)
        for instruction, out in candidates(value, previous)
    ]
    if not scored:
        return None
    if rng.random() < EXPLORE:
        _dist, instruction, out = rng.choice(scored)
        return instruction, out
    best = min(s[0] for s in scored)
    pool = [(ins, out) for dist, ins, out in scored if dist <= best + 1]
    return rng.choice(pool)


def categories(value: int | str, found: list[Candidate]) -> dict[str, list[Candidate]]:
    """The paper's length-aware categories of ``found``: ``grow``, ``shrink``, ``keep``."""
    length = value_length(value)
    out: dict[str, list[Candidate]] = {"grow": [], "shrink": [], "keep": []}
    for instruction, result in found:
        change = value_length(result) - length
        out["grow" if change > 0 else "shrink" if change < 0 else "keep"].append(
            (instruction, result)
        )
    return out


def paper_step(
    rng: random.Random, value: int | str, target: int, _previous: int | None = None
) -> Candidate | None:
    """The paper's pick (see the module docstring); ``None`` when nothing may follow."""
    found = candidates(value)
    if not found:
        return None
    groups = categories(value, found)
    length = value_length(value)
    wanted = "grow" if length < target else "shrink" if length > target else "keep"
    for pool in (groups[wanted], groups["keep"]):
        if pool:
            return rng.choice(pool)
    return rng.choice(found)
