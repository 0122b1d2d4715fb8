"""ManyIH coding samples as Instances: prompt, checks and the answer key.

One Instance per sample (and per tier variant or scalar perturbation): the meta prompt
of the chosen interface as system prompt, the task with its tagged style instructions
as the one user turn, and the checks

- ``tests`` — the unit tests pass (run in the sandbox, see ``ManyIHSuite.evidence``);
- ``style:<style id>`` — one per winning style, strongest first.

Metadata (for filters and breakdowns): ``subset`` (``coding``), ``task_id``, ``tiers``
(instructions in the prompt), ``interface``, ``perturbation`` (0 for the sample
itself), ``base`` (the instance id without the perturbation suffix), ``n_conflicts``,
``quirks``; ``answer_key`` holds what scoring and the scripted policies need.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from adhere.core import Check, CheckKind, Instance, Source, VerifierRef
from adhere.errors import SpecError
from adhere.suites.manyih._code import parse_quietly
from adhere.suites.manyih._hierarchy import META_PROMPTS, Interface, render_prompt
from adhere.suites.manyih._hints import Hints, infer_hints
from adhere.suites.manyih._restyle import Task
from adhere.suites.manyih._restyle_tree import summary_of
from adhere.suites.manyih._sample import (
    CodingSample,
    entry_point,
    n_conflicts,
    split_tests,
    tagged,
    winners,
)
from adhere.suites.manyih._styles import STYLES

__all__ = [
    "TESTS_CHECK",
    "VERIFIER",
    "AnswerKey",
    "answer_key",
    "base_id",
    "sample_to_instance",
    "style_check",
]

TESTS_CHECK = "tests"
VERIFIER = "manyih.coding"


def style_check(style_id: str) -> str:
    """Check id of a winning style."""
    return f"style:{style_id}"


def base_id(sample: CodingSample) -> str:
    """``manyih-0007`` for published integer ids; ``manyih-<id>`` otherwise."""
    if isinstance(sample.id, int):
        return f"manyih-{sample.id:04d}"
    return f"manyih-{sample.id}"


@dataclass(frozen=True)
class AnswerKey:
    """What scoring and the scripted policies need to know about an instance."""

    reference: str
    tests: str
    setup: str
    entry: str
    winners: list[str]
    styles: list[str]
    """Every instruction's style id (winners and losers)."""
    summary: str
    hints: Hints
    keep: frozenset[str]
    timeout: float

    @property
    def task(self) -> Task:
        """The restyler's view of the sample."""
        return Task(self.reference, self.entry, self.summary, self.hints, self.keep)


def sample_to_instance(
    sample: CodingSample,
    *,
    interface: Interface = "ordinal",
    suffix: str = "",
    timeout: float = 30.0,
    prompts: tuple[str, str] | None = None,
    protocol: dict[str, str] | None = None,
) -> Instance:
    """The Instance a sample is run as (``suffix`` tells variants apart: ``-t8``, ``-p2``).

    ``prompts``: the (system, user) wording when not adhere's default rendering;
    ``protocol``: the protocol choices, kept in metadata.
    """
    won = winners(sample)
    setup, tests, quirks = split_tests(sample.test_code)
    entry = entry_point(sample)
    try:
        names = {n.id for n in ast.walk(parse_quietly(tests)) if isinstance(n, ast.Name)}
    except SyntaxError:
        names = set()
    hints = infer_hints(tests, entry)
    text = {i.style_id: i.description for i in sample.instructions}
    checks = [
        Check(
            id=TESTS_CHECK,
            source=Source.TEST,
            kind=CheckKind.IMPLEMENTATION,
            description=f"The code passes the task's {len(tests.splitlines())} unit tests.",
            verifier=VerifierRef(name=VERIFIER, params={"check": TESTS_CHECK}),
        ),
        *(
            Check(
                id=style_check(sid),
                source=Source.STYLE,
                kind=CheckKind.COMPLIANCE,
                description=f"Winning {STYLES[sid].group} style: {text[sid]}",
                verifier=VerifierRef(name=VERIFIER, params={"check": style_check(sid)}),
            )
            for sid in won
        ),
    ]
    perturbation = int(sample.metadata.get("perturbation", 0))
    instance_id = base_id(sample) + suffix
    base = instance_id.rsplit("-p", 1)[0] if perturbation else instance_id
    return Instance(
        id=instance_id,
        suite="manyih",
        system_prompt=prompts[0] if prompts else META_PROMPTS[interface],
        turns=[
            prompts[1]
            if prompts
            else render_prompt(sample.original_prompt, tagged(sample), interface)
        ],
        checks=checks,
        metadata={
            "subset": "coding",
            "task_id": sample.task_id,
            "tiers": len(sample.instructions),
            "interface": interface,
            "perturbation": perturbation,
            "base": base,
            "n_conflicts": n_conflicts(sample),
            "quirks": ", ".join(quirks),
            **({"protocol": protocol} if protocol else {}),
            "answer_key": {
                "reference": sample.reference_code,
                "tests": tests,
                "setup": setup,
                "entry": entry,
                "winners": won,
                "styles": [i.style_id for i in sample.instructions],
                "summary": summary_of(sample.original_prompt),
                "hints": {"params": list(hints.params), "returns": hints.returns},
                "keep": sorted(names),
                "timeout": timeout,
            },
        },
    )


def answer_key(instance: Instance) -> AnswerKey:
    """The answer key of a coding instance (SpecError for other instances)."""
    try:
        raw: dict[str, Any] = instance.metadata["answer_key"]
        hints = raw.get("hints") or {}
        return AnswerKey(
            reference=str(raw["reference"]),
            tests=str(raw["tests"]),
            setup=str(raw.get("setup", "")),
            entry=str(raw["entry"]),
            winners=[str(s) for s in raw["winners"]],
            styles=[str(s) for s in raw.get("styles", raw["winners"])],
            summary=str(raw.get("summary", "Solve the task.")),
            hints=Hints(tuple(hints.get("params", ())), str(hints.get("returns", "Any"))),
            keep=frozenset(raw.get("keep", ())),
            timeout=float(raw.get("timeout", 30.0)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise SpecError(
            f"instance {instance.id!r} is not a ManyIH coding instance (bad answer key: {exc})",
            field="metadata.answer_key",
        ) from exc
