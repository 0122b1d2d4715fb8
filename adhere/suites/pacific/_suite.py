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
from adhere.suites.pacific._prompt import format_answer
from adhere.suites.pacific._protocol import Protocol, read_templates, template_files
from adhere.suites.pacific._sample import Sample
from adhere.suites.pacific._templates import ADHERE_TEMPLATES, PromptTemplates, render_turns

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


def sample_to_instance(
    sample: Sample,
    templates: PromptTemplates = ADHERE_TEMPLATES,
    protocol: Protocol | None = None,
) -> Instance:
    """The Instance a sample is run as.

    ``protocol``: the Benchmark's choices; those that differ from adhere's default are
    recorded in the metadata (``protocol``), which scoring reads (strict parsing).
    Instances of the default protocol carry no such key, so they keep the content
    (and the fingerprint) they had before protocols existed.
    """
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
    system, turns = render_turns(sample, templates)
    metadata: dict[str, Any] = {
        "language": sample.language,
        "kind": sample.kind,
        "mode": sample.mode,
        "instructions": sample.instructions,
        "length": sample.target_length,
        "difficulty": sample.difficulty,
        "sample": sample.record(),
    }
    if protocol is not None and protocol.differences():
        metadata["protocol"] = {"name": protocol.name, **protocol.differences()}
    return Instance(
        id=sample.id,
        suite="pacific",
        system_prompt=system,
        turns=turns,
        checks=checks,
        metadata=metadata,
    )


def instance_sample(instance: Instance) -> Sample:
    """The sample an instance was built from."""
    return Sample.model_validate(instance.metadata["sample"])


def strict_parsing(instance: Instance) -> bool:
    """The instance is scored by the paper's pattern taken literally (``parse: strict``)."""
    protocol = instance.metadata.get("protocol")
    return isinstance(protocol, dict) and protocol.get("parse") == "strict"


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


def _params(raw: dict[str, Any], file: str, selection: str = "adhere") -> GeneratorParams:
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
    kwargs["selection"] = selection
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
        self.protocol = Protocol.from_options(options)
        self.template_files = template_files(options.get("templates"))

    def load(self, spec: BenchmarkSpec, *, base_dir: Path, file: str = "") -> list[Instance]:
        """Instances from a samples file or from generator parameters."""
        try:
            protocol = Protocol.from_options(spec.options)
            files = template_files(spec.options.get("templates"))
        except SpecError as exc:
            raise SpecError(exc.message, file=file, field=exc.field) from None
        templates = protocol.templates(read_templates(files, base_dir, file))
        if spec.source.generate is not None:
            params = _params(spec.source.generate, file, protocol.selection)
            return [sample_to_instance(s, templates, protocol) for s in generate(params)]
        if spec.source.path is None:
            raise SpecError("PACIFIC reads 'path' or 'generate'", file=file, field="spec.source")
        path = Path(spec.source.path)
        if not path.is_absolute():
            path = base_dir / path
        return load_samples(path, templates, protocol)

    def score(self, instance: Instance, trajectory: Trajectory) -> list[Verdict]:
        """One verdict per step, with the invalid-output category in ``details``."""
        mode, expected_values = _answer_key(instance)
        replies = [m.content for m in trajectory.assistant_turns()]
        n = len(expected_values)
        verdicts = []
        strict = strict_parsing(instance)
        whole = parse_reply("\n".join(replies), strict=strict) if mode == "prompt" else None
        for i, expected in enumerate(expected_values, start=1):
            if whole is not None:
                parsed = whole
                expected_here = set(range(1, n + 1))
                evidence = len(replies) - 1 if replies else None
            else:
                parsed = parse_reply(replies[i - 1] if i - 1 < len(replies) else "", strict=strict)
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


def load_samples(
    path: Path,
    templates: PromptTemplates = ADHERE_TEMPLATES,
    protocol: Protocol | None = None,
) -> list[Instance]:
    """Read a samples file written by ``adhere generate pacific``.

    With a ``protocol``, every sample must have been generated by its chain selection
    (a file of adhere's chains under ``selection: paper`` is refused, naming the line).
    """
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
        if protocol is not None and sample.selection != protocol.selection:
            raise SpecError(
                f"this sample's chain was chosen by {sample.selection!r} selection but the "
                f"Benchmark asks for {protocol.selection!r}: generate the file with "
                f"`adhere generate pacific --selection {protocol.selection}`, or set "
                f"`selection: {sample.selection}` in spec.options",
                file=where,
                field="selection",
            )
        seen.add(sample.id)
        out.append(sample_to_instance(sample, templates, protocol))
    if not out:
        raise SpecError("no samples in file", file=str(path))
    return out


__all__ = ["PacificSuite", "load_samples", "sample_to_instance"]
