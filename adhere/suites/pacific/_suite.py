"""PACIFIC as a suite: samples become Instances with one Check per step."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from adhere.core import Check, CheckKind, Instance, Source, Trajectory, Verdict, VerifierRef
from adhere.errors import SpecError
from adhere.spec import BenchmarkSpec, format_location, iter_jsonl
from adhere.suites._registry import WrongItem, suite
from adhere.suites.pacific._generate import GeneratorParams, generate
from adhere.suites.pacific._instructions import by_id
from adhere.suites.pacific._parse import classify, parse_reply
from adhere.suites.pacific._prompt import SYSTEM_PROMPT, format_answer, render_prompt
from adhere.suites.pacific._sample import Sample

VERIFIER = "pacific.answer"
_GENERATE_KEYS = {
    "instructions": "instructions",
    "lengths": "lengths",
    "length": "lengths",
    "perLanguage": "per_language",
    "per_language": "per_language",
    "seed": "seed",
    "mode": "mode",
    "kind": "kind",
    "languages": "languages",
}


def step_key(index: int) -> str:
    """Check id of step ``index`` (1-based)."""
    return f"step-{index}"


def sample_to_instance(sample: Sample) -> Instance:
    """The Instance a sample is run as."""
    checks = [
        Check(
            id=step_key(i),
            source=Source.ANSWER,
            kind=CheckKind.UNDERSTANDING,
            description=(
                f"Step {i} ({by_id(step.paper_id).name}) is answered as {step.expected!r}."
            ),
            verifier=VerifierRef(name=VERIFIER, params={"index": i}),
        )
        for i, step in enumerate(sample.steps, start=1)
    ]
    return Instance(
        id=sample.id,
        suite="pacific",
        system_prompt=SYSTEM_PROMPT,
        turns=render_prompt(sample),
        checks=checks,
        metadata={
            "language": sample.language,
            "kind": sample.kind,
            "mode": sample.mode,
            "instructions": sample.instructions,
            "length": sample.target_length,
            "difficulty": sample.difficulty,
            "sample": sample.model_dump(mode="json"),
        },
    )


def instance_sample(instance: Instance) -> Sample:
    """The sample an instance was built from."""
    return Sample.model_validate(instance.metadata["sample"])


def _answer_key(instance: Instance) -> tuple[str, list[int | str]]:
    """Mode and expected values of an instance, read without re-validating the sample.

    Instances were validated (every step recomputed) when they were loaded or
    generated; scoring only needs the expected values.
    """
    try:
        sample = instance.metadata["sample"]
        return str(sample["mode"]), [step["expected"] for step in sample["steps"]]
    except (KeyError, TypeError) as exc:
        raise SpecError(
            f"instance {instance.id!r} is not a PACIFIC instance (no sample metadata)",
            field="metadata.sample",
        ) from exc


def wrong_value(value: int | str) -> int | str:
    """A value of the same type that differs from ``value`` (for the noisy policy)."""
    if isinstance(value, int):
        return value + 1
    flipped = value[::-1]
    return flipped if flipped != value else value + "x"


_INT_LISTS = ("instructions", "lengths")
_WORDS = ("mode", "kind")
MAX_PER_LANGUAGE = 1000
"""Most samples per language and cell (the paper uses 33)."""
MAX_SAMPLES = 50_000
"""Most samples one Benchmark may generate."""


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _param_value(name: str, value: Any) -> Any:
    """``value`` in the type the generator takes; ValueError saying what was expected."""
    if name in _INT_LISTS or name == "languages":
        items = value if isinstance(value, list) else [value]
        ok = _is_int if name in _INT_LISTS else (lambda v: isinstance(v, str))
        if not items or not all(ok(v) for v in items):
            kind = "an integer" if name in _INT_LISTS else "a language name"
            raise ValueError(f"expected {kind} or a non-empty list of them, got {value!r}")
        if len(set(items)) != len(items):
            raise ValueError(f"a value is listed twice in {value!r}")
        return tuple(items)
    if name in _WORDS:
        if not isinstance(value, str):
            raise ValueError(f"expected a word, got {value!r}")
        return value
    if not _is_int(value):
        raise ValueError(f"expected an integer, got {value!r}")
    if name == "per_language" and not 1 <= value <= MAX_PER_LANGUAGE:
        raise ValueError(f"expected 1 to {MAX_PER_LANGUAGE} samples per language, got {value}")
    return value


def _params(raw: dict[str, Any], file: str) -> GeneratorParams:
    kwargs: dict[str, Any] = {}
    for key, value in raw.items():
        where = f"spec.source.generate.{key}"
        if key not in _GENERATE_KEYS:
            raise SpecError(
                f"unknown generator parameter; expected one of {sorted(set(_GENERATE_KEYS))}",
                file=file,
                field=where,
            )
        name = _GENERATE_KEYS[key]
        if name in kwargs:
            raise SpecError(f"{name!r} is given twice (as {key!r} too)", file=file, field=where)
        try:
            kwargs[name] = _param_value(name, value)
        except ValueError as exc:
            raise SpecError(str(exc), file=file, field=where) from None
    try:
        params = GeneratorParams(**kwargs)
        params.validate()
    except SpecError as exc:
        raise SpecError(exc.message, file=file, field=f"spec.source.generate.{exc.field}") from None
    cells = len(params.instructions) * len(params.lengths)
    total = cells * len(params.resolved_languages()) * params.per_language
    if total > MAX_SAMPLES:
        raise SpecError(
            f"these parameters ask for {total:,} samples; at most {MAX_SAMPLES:,} per Benchmark",
            file=file,
            field="spec.source.generate",
        )
    return params


@suite("pacific")
class PacificSuite:
    """Sequential code instruction following and dry running (SUITES.md §2)."""

    name = "pacific"

    def __init__(self, **options: Any) -> None:
        if options:
            raise SpecError(
                f"PACIFIC takes no options, got {sorted(options)}", field="spec.options"
            )

    def load(self, spec: BenchmarkSpec, *, base_dir: Path, file: str = "") -> list[Instance]:
        """Instances from a samples file or from generator parameters."""
        if spec.source.generate is not None:
            return [sample_to_instance(s) for s in generate(_params(spec.source.generate, file))]
        if spec.source.path is None:
            raise SpecError("PACIFIC reads 'path' or 'generate'", file=file, field="spec.source")
        path = Path(spec.source.path)
        if not path.is_absolute():
            path = base_dir / path
        return load_samples(path)

    def score(self, instance: Instance, trajectory: Trajectory) -> list[Verdict]:
        """One verdict per step, with the invalid-output category in ``details``."""
        mode, expected_values = _answer_key(instance)
        replies = [m.content for m in trajectory.assistant_turns()]
        n = len(expected_values)
        verdicts = []
        whole = parse_reply("\n".join(replies)) if mode == "prompt" else None
        for i, expected in enumerate(expected_values, start=1):
            if whole is not None:
                parsed = whole
                expected_here = set(range(1, n + 1))
                evidence = len(replies) - 1 if replies else None
            else:
                parsed = parse_reply(replies[i - 1] if i - 1 < len(replies) else "")
                expected_here = {i}
                evidence = i - 1 if i - 1 < len(replies) else None
            outcome = classify(parsed, i, expected)
            verdicts.append(
                Verdict(
                    check_id=step_key(i),
                    result="pass" if outcome.category == "correct" else "fail",
                    decided_by=VERIFIER,
                    evidence=evidence,
                    details={
                        "category": outcome.category,
                        "got": outcome.got,
                        "expected": expected,
                        # Extra tags belong to a reply, not a step: report them once per reply.
                        "extra_tags": (
                            parsed.extra(expected_here) if mode == "chat" or i == 1 else []
                        ),
                    },
                )
            )
        return verdicts

    def oracle_reply(self, instance: Instance, turn: int, wrong: WrongItem) -> str:
        """Perfect answers (prompt mode: all steps at once; chat mode: step ``turn``)."""
        mode, expected_values = _answer_key(instance)
        indices = range(1, len(expected_values) + 1) if mode == "prompt" else [turn + 1]
        lines = []
        for i in indices:
            value = expected_values[i - 1]
            if wrong(step_key(i)):
                value = wrong_value(value)
            lines.append(format_answer(i, value))
        return "\n".join(lines)

    def breakdowns(self) -> Sequence[str]:
        """PACIFIC reports per language, mode and difficulty cell."""
        return ("language", "mode", "difficulty")

    def metric_names(self) -> tuple[str, str]:
        """ISR is prompt-level accuracy; CSR instruction-level accuracy."""
        return ("prompt-level accuracy", "instruction-level accuracy")


def load_samples(path: Path) -> list[Instance]:
    """Read a samples file written by ``adhere generate pacific``."""
    out = []
    seen: set[str] = set()
    for number, data in iter_jsonl(path):
        where = f"{path}:{number}"
        try:
            sample = Sample.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            raise SpecError(err["msg"], file=where, field=format_location(err["loc"])) from None
        if sample.id in seen:
            raise SpecError(f"duplicate sample id {sample.id!r}", file=where, field="id")
        seen.add(sample.id)
        out.append(sample_to_instance(sample))
    if not out:
        raise SpecError("no samples in file", file=str(path))
    return out


__all__ = ["PacificSuite", "load_samples", "sample_to_instance"]
