"""GuideBench as a suite: one Instance per task, one Check (the answer) per Instance.

Options (``spec.options`` of the Benchmark):

``guidelines`` (default ``true``)
    ``false`` leaves the guidelines out of the prompt: the paper's ablation.
``reasoning`` (default ``true``)
    ``false`` asks for the answer alone, with no reasoning (direct answers).
``perCategory`` (default: all)
    Keep N tasks of each category, evenly spaced through its file (a quick subset).
``protocol`` (``adhere`` | ``paper``), ``prompt`` (``adhere`` | ``paper``), ``parse``
    (``adhere`` | ``public`` | ``llm``), ``templates`` ({KEY: FILE})
    The paper's procedure or adhere's (:mod:`._protocol`; docs/guidebench.md).
``reorder``, ``shots``, ``rewrite`` (``program`` | ``math``), ``seed``
    The paper's Table 3 formulations (:mod:`._ablations`).
``ruleEdit`` (default ``false``)
    ``true`` adds, beside each coupon-math task with a structured problem, a copy with
    one rule edited so the answer changes (Appendix B.6; :mod:`._rule_edit`).

Sources: ``path`` (the public data directory, one task file, or a file written by
``adhere generate guidebench-coupons``) or ``generate: {n: N, seed: S}`` (fresh
coupon-math tasks).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from adhere.core import Evidence, EvidenceRequest, Instance, Trajectory, Verdict
from adhere.errors import SpecError
from adhere.metrics import ScoredTrial, Table
from adhere.spec import BenchmarkSpec
from adhere.suites._registry import WrongItem, suite
from adhere.suites.guidebench._ablations import pick_demos, reorder, rewrite
from adhere.suites.guidebench._coupon_gen import CouponParams, generate_coupon_tasks
from adhere.suites.guidebench._instance import subset, task_to_instance
from adhere.suites.guidebench._load import load_directory, load_file, parse_task
from adhere.suites.guidebench._metrics import report_tables
from adhere.suites.guidebench._oracle import oracle_text
from adhere.suites.guidebench._protocol import Protocol, check_template_files, read_templates
from adhere.suites.guidebench._rule_edit import edit_rule
from adhere.suites.guidebench._scoring import answer_key as _answer_key
from adhere.suites.guidebench._scoring import evidence_requests, score_reply
from adhere.suites.guidebench._task import Task

_OPTIONS = {
    "guidelines": "guidelines",
    "reasoning": "reasoning",
    "perCategory": "per_category",
    "per_category": "per_category",
    "protocol": "protocol",
    "prompt": "prompt",
    "parse": "parse",
    "templates": "templates",
    "reorder": "reorder",
    "shots": "shots",
    "rewrite": "rewrite",
    "seed": "seed",
    "ruleEdit": "rule_edit",
    "rule_edit": "rule_edit",
}
_REWRITES = ("program", "math")
_GENERATE = {"n": "n", "seed": "seed", "maxItems": "max_items", "maxCoupons": "max_coupons"}


@suite("guidebench")
class GuideBenchSuite:
    """Domain guideline following (SUITES.md §5)."""

    name = "guidebench"

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(_OPTIONS))
        if unknown:
            raise SpecError(
                f"unknown GuideBench options {unknown}; accepted: "
                + ", ".join(k for k in _OPTIONS if k != "per_category"),
                field="spec.options",
            )
        values = {_OPTIONS[k]: v for k, v in options.items()}
        self.protocol = Protocol.from_options(values)
        self.template_files = check_template_files(values.get("templates"))
        if "parser" in self.template_files and self.protocol.parse != "llm":
            raise SpecError(
                f"the parser template is the question of parse: llm; this Benchmark parses "
                f"with {self.protocol.parse!r}",
                field="spec.options.templates.parser",
            )
        self.reorder: bool = values.get("reorder", False)
        if not isinstance(self.reorder, bool):
            raise SpecError("expected true or false", field="spec.options.reorder")
        self.shots: int = values.get("shots", 0)
        if self.shots not in (0, 2):
            raise SpecError(
                "expected 0 or 2 (the paper's 2-shot demonstration)", field="spec.options.shots"
            )
        self.rewrite: str | None = values.get("rewrite")
        if self.rewrite is not None and self.rewrite not in _REWRITES:
            raise SpecError(f"expected one of {list(_REWRITES)}", field="spec.options.rewrite")
        self.rule_edit: bool = values.get("rule_edit", False)
        if not isinstance(self.rule_edit, bool):
            raise SpecError("expected true or false", field="spec.options.ruleEdit")
        if self.rule_edit and self.rewrite is not None:
            raise SpecError("ruleEdit edits rules as written: choose it or rewrite, not both",
                            field="spec.options.ruleEdit")  # fmt: skip
        self.seed: int = values.get("seed", 0)
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise SpecError("expected an integer", field="spec.options.seed")
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
        pool = tasks
        if self.per_category is not None:
            tasks = subset(tasks, self.per_category)
        if self.rewrite is not None:
            pool = self._rewritten(pool, file)
            rewritten = {t.id: t for t in pool}
            tasks = [rewritten[t.id] for t in tasks if t.id in rewritten]
        edits = self._edits(tasks, file) if self.rule_edit else {}
        templates = read_templates(self.template_files, base_dir, file)
        variant = self.variant()
        out = []
        runs: list[tuple[Task, dict[str, Any] | None]] = []
        for original in tasks:
            if original.id in edits:
                edited, what = edits[original.id]
                runs += [(original, {"edited_id": edited.id}), (edited, what)]
            else:
                runs.append((original, None))
        for task, change in runs:
            shown = self._transformed(task, file)
            demos = (
                [self._transformed(d, file) for d in pick_demos(pool, task, self.seed)]
                if self.shots
                else []
            )
            out.append(
                task_to_instance(
                    shown,
                    guidelines=self.guidelines,
                    reasoning=self.reasoning,
                    protocol=self.protocol,
                    templates=templates,
                    demos=demos,
                    variant=variant,
                    edit=change,
                )
            )
        return out

    def _edits(self, tasks: Sequence[Task], file: str) -> dict[str, tuple[Task, dict[str, Any]]]:
        """Original id → (its edited copy, what was edited), for the tasks that allow it."""
        found = {}
        for task in tasks:
            made = edit_rule(task, self.seed)
            if made is not None:
                found[task.id] = made
        if not found:
            raise SpecError(
                "ruleEdit: none of the tasks can be edited: rule edits need coupon-math tasks "
                "with their structured problem (generated tasks: source generate, or a file "
                "written by adhere generate guidebench-coupons); the published data has none "
                "(docs/guidebench.md, 'Rule edits')",
                file=file,
                field="spec.options.ruleEdit",
            )
        return found

    def variant(self) -> dict[str, Any]:
        """The Table 3 formulation chosen (empty: the original)."""
        chosen: dict[str, Any] = {}
        if self.reorder:
            chosen["reorder"] = True
        if self.shots:
            chosen["shots"] = self.shots
        if self.rewrite:
            chosen["rewrite"] = self.rewrite
        if chosen and (self.reorder or self.shots):
            chosen["seed"] = self.seed
        return chosen

    def _rewritten(self, tasks: Sequence[Task], file: str) -> list[Task]:
        """The tasks ``rewrite`` can rewrite, rewritten (the others are left out)."""
        out = [t for t in (rewrite(task, self.rewrite) for task in tasks) if t is not None]  # type: ignore[arg-type]
        if not out:
            raise SpecError(
                f"rewrite: {self.rewrite}: none of the tasks has a structured coupon problem "
                "(generated coupon tasks, or the published math tasks whose reading "
                "reproduces the published answer; docs/guidebench.md, 'Table 3 formulations')",
                file=file,
                field="spec.options.rewrite",
            )
        return out

    def _transformed(self, task: Task, file: str) -> Task:
        if self.reorder:
            task = reorder(task, self.seed)
        return task

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

    def evidence(self, instance: Instance, trajectory: Trajectory) -> Sequence[EvidenceRequest]:
        """With ``parse: llm``: the extraction question for the rollout's judge panel."""
        return evidence_requests(instance, trajectory)

    def score(
        self,
        instance: Instance,
        trajectory: Trajectory,
        evidence: Mapping[str, Evidence] | None = None,
    ) -> list[Verdict]:
        """One verdict: the final answer against the reference (see :mod:`._scoring`)."""
        return [score_reply(instance, trajectory, evidence)]

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
            frame=str((instance.metadata.get("protocol") or {}).get("prompt", "adhere")),
            old=instance.metadata.get("edit_original_answer"),
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
