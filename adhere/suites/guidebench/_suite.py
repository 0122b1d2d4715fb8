"""GuideBench as a suite: one Instance per task, one Check (the answer) per Instance.

Options (``spec.options`` of the Benchmark):

``guidelines`` (default ``true``)
    ``false`` leaves the guidelines out of the prompt: the paper's ablation.
``reasoning`` (default ``true``)
    ``false`` asks for the answer alone, with no reasoning (direct answers).
``perCategory`` (default: all)
    Keep N tasks of each category, evenly spaced through its file (a quick subset).

Sources: ``path`` (the public data directory, one task file, or a file written by
``adhere generate guidebench-coupons``) or ``generate: {n: N, seed: S}`` (fresh
coupon-math tasks).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from adhere.core import Check, CheckKind, Instance, Source, Trajectory, Verdict, VerifierRef
from adhere.errors import SpecError
from adhere.metrics import ScoredTrial, Table
from adhere.spec import BenchmarkSpec
from adhere.suites._registry import WrongItem, suite
from adhere.suites.guidebench._coupon_gen import CouponParams, generate_coupon_tasks
from adhere.suites.guidebench._load import load_directory, load_file, parse_task
from adhere.suites.guidebench._metrics import VERIFIER, report_tables
from adhere.suites.guidebench._oracle import oracle_text
from adhere.suites.guidebench._parse import parse_answer
from adhere.suites.guidebench._prompt import render_prompt, system_prompt
from adhere.suites.guidebench._task import CATEGORIES, AnswerKind, Task, published_form

CHECK_ID = "answer"
_OPTIONS = {
    "guidelines": "guidelines",
    "reasoning": "reasoning",
    "perCategory": "per_category",
    "per_category": "per_category",
}
_GENERATE = {"n": "n", "seed": "seed", "maxItems": "max_items", "maxCoupons": "max_coupons"}


def task_to_instance(task: Task, *, guidelines: bool = True, reasoning: bool = True) -> Instance:
    """The Instance a task is run as, in the chosen prompt variant."""
    info = task.info
    shown = published_form(info.kind, task.gold)
    return Instance(
        id=task.id,
        suite="guidebench",
        system_prompt=system_prompt(guidelines=guidelines),
        turns=[render_prompt(task, guidelines=guidelines, reasoning=reasoning)],
        checks=[
            Check(
                id=CHECK_ID,
                source=Source.ANSWER,
                kind=CheckKind.COMPLIANCE,
                description=f"The final answer is {shown!r} ({info.title}).",
                verifier=VerifierRef(name=VERIFIER),
            )
        ],
        metadata={
            "category": task.category,
            "rule_update": task.rule_update,
            "source": task.source,
            "guidelines": guidelines,
            "reasoning": "cot" if reasoning else "direct",
            "index": task.index,
            "gold": task.gold,
            "answer_key": {
                "kind": info.kind,
                "gold": task.gold,
                "options": [letter for letter, _ in task.options],
                "analysis": task.analysis,
            },
        },
    )


def _answer_key(instance: Instance) -> tuple[AnswerKind, str, tuple[str, ...], str]:
    try:
        key = instance.metadata["answer_key"]
        return key["kind"], str(key["gold"]), tuple(key["options"]), str(key.get("analysis", ""))
    except (KeyError, TypeError) as exc:
        raise SpecError(
            f"instance {instance.id!r} is not a GuideBench instance (no answer key)",
            field="metadata.answer_key",
        ) from exc


def subset(tasks: Sequence[Task], per_category: int) -> list[Task]:
    """``per_category`` tasks of each category, evenly spaced through its file order."""
    out = []
    for key in CATEGORIES:
        mine = [t for t in tasks if t.category == key]
        if len(mine) <= per_category:
            out += mine
            continue
        picks = sorted({i * len(mine) // per_category for i in range(per_category)})
        out += [mine[i] for i in picks]
    return out


@suite("guidebench")
class GuideBenchSuite:
    """Domain guideline following (SUITES.md §5)."""

    name = "guidebench"

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(_OPTIONS))
        if unknown:
            raise SpecError(
                f"unknown GuideBench options {unknown}; accepted: guidelines, reasoning, "
                "perCategory",
                field="spec.options",
            )
        values = {_OPTIONS[k]: v for k, v in options.items()}
        for name in ("guidelines", "reasoning"):
            if not isinstance(values.get(name, True), bool):
                raise SpecError("expected true or false", field=f"spec.options.{name}")
        self.guidelines: bool = values.get("guidelines", True)
        self.reasoning: bool = values.get("reasoning", True)
        per_category = values.get("per_category")
        if per_category is not None and (
            isinstance(per_category, bool) or not isinstance(per_category, int) or per_category < 1
        ):
            raise SpecError("expected a positive integer", field="spec.options.perCategory")
        self.per_category: int | None = per_category

    def load(self, spec: BenchmarkSpec, *, base_dir: Path, file: str = "") -> list[Instance]:
        """Instances from the data directory, a task file, or generated coupon tasks."""
        if spec.source.generate is not None:
            tasks = self._generated(spec.source.generate, file)
        elif spec.source.path is not None:
            path = Path(spec.source.path)
            path = path if path.is_absolute() else base_dir / path
            if path.is_dir():
                try:
                    tasks = load_directory(path)
                except SpecError as exc:
                    if exc.file != str(path):
                        raise
                    message = f"{exc.message} (in {path})"
                    raise SpecError(message, file=file, field="spec.source.path") from None
            elif path.is_file():
                tasks = load_file(path)
            else:
                raise SpecError(
                    f"{path} does not exist (expected the GuideBench data directory or a "
                    "task file)",
                    file=file,
                    field="spec.source.path",
                )
        else:
            raise SpecError("GuideBench reads 'path' or 'generate'", file=file, field="spec.source")
        if self.per_category is not None:
            tasks = subset(tasks, self.per_category)
        return [
            task_to_instance(t, guidelines=self.guidelines, reasoning=self.reasoning) for t in tasks
        ]

    @staticmethod
    def _generated(raw: dict[str, Any], file: str) -> list[Task]:
        kwargs = {}
        for key, value in raw.items():
            if key not in _GENERATE:
                raise SpecError(
                    f"unknown generator parameter; expected one of {sorted(_GENERATE)}",
                    file=file,
                    field=f"spec.source.generate.{key}",
                )
            if isinstance(value, bool) or not isinstance(value, int):
                raise SpecError(
                    "expected an integer", file=file, field=f"spec.source.generate.{key}"
                )
            kwargs[_GENERATE[key]] = value
        params = CouponParams(**kwargs)
        try:
            records = generate_coupon_tasks(params)
        except SpecError as exc:
            raise SpecError(
                str(exc).split(": ", 1)[-1], file=file, field=f"spec.source.generate.{exc.field}"
            ) from None
        return [parse_task(r, "math", i, where=f"generated[{i}]") for i, r in enumerate(records)]

    def score(self, instance: Instance, trajectory: Trajectory) -> list[Verdict]:
        """One verdict: the last assistant reply's final answer against the reference."""
        kind, gold, options, _analysis = _answer_key(instance)
        replies = [m.content for m in trajectory.assistant_turns()]
        used = max((i for i, r in enumerate(replies) if r.strip()), default=None)
        parsed = parse_answer(replies[used] if used is not None else "", kind, options)
        if parsed.value is None:
            outcome = "invalid"
        else:
            outcome = "correct" if parsed.value == gold else "wrong"
        return [
            Verdict(
                check_id=CHECK_ID,
                result="pass" if outcome == "correct" else "fail",
                decided_by=VERIFIER,
                reasoning=parsed.error,
                evidence=used,
                details={
                    "category": outcome,
                    "got": parsed.value,
                    "expected": gold,
                    "raw": parsed.raw,
                    "via": parsed.via,
                    "normalized": list(parsed.steps),
                },
            )
        ]

    def oracle_reply(self, instance: Instance, turn: int, wrong: WrongItem) -> str:
        """The published analysis as reasoning (CoT variant), then the answer."""
        kind, gold, options, analysis = _answer_key(instance)
        return oracle_text(
            instance_id=instance.id,
            kind=kind,
            gold=gold,
            options=options,
            analysis=analysis,
            reasoning=instance.metadata.get("reasoning", "cot") == "cot",
            wrong=wrong,
        )

    def breakdowns(self) -> Sequence[str]:
        """Reports break results down by category (per-category P/R/F1 come on top)."""
        return ("category",)

    def metric_names(self) -> tuple[str, str]:
        """One check per task: both rates are accuracy."""
        return ("accuracy", "item accuracy")

    def report_tables(self, trials: Iterable[ScoredTrial]) -> tuple[list[Table], list[Table]]:
        """Paper-layout tables (accuracy per category; macro P/R/F1) and further ones."""
        return report_tables(trials)


__all__ = ["GuideBenchSuite", "subset", "task_to_instance"]
