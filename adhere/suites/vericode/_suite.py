"""VeriCode as a suite: selections become Instances; evidence (tests, Ruff) decides the checks.

Options (``spec.options`` of the Benchmark; ``spec.source.generate`` takes the same
keys plus ``tasks``):

``protocols`` (default ``[single, multi]``)
    single-turn generation and/or multi-turn editing.
``ks`` (default ``0 … k``)
    Instruction counts of the single-turn instances (k = 0 is the bare task, whose
    pass@1 is S_0 for FR_k).
``k`` (default 5), ``seed`` (default 0)
    Instructions per task and the permutation seed of the deterministic selector,
    used when the source is a plain task file (a selections file already has them).
``limit``
    Keep the first N tasks.
``format`` (default ``auto``)
    Task file format: native, bigcodebench, livecodebench.
``protocol`` (default ``adhere``)
    ``paper``: the paper's extraction, custom checks, no-code rule and prompt wording
    (docs/vericode.md, "paper protocol vs adhere default").
``prompts``
    A YAML file of prompt templates replacing the protocol's (:mod:`._templates`).
``environment`` (default ``auto``)
    ``auto``: tasks importing third-party libraries run their tests in the suite's
    sandbox environment (``adhere setup vericode``); ``none``: in the evaluator's.

Sources: ``path`` (a selections file from ``adhere generate vericode``, or a task file
in any of the formats) or ``generate: {tasks: builtin | <task file>, …}``.

Check ids: single-turn ``tests`` and one per instruction id; multi-turn
``t<turn>.tests`` and ``t<turn>.<instruction id>`` for instructions 1..turn (cumulative
checking: at turn k every instruction given so far is checked on the latest code).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import ValidationError

from adhere.core import (
    Evidence,
    EvidenceRequest,
    Instance,
    RuffRun,
    Trajectory,
    Verdict,
)
from adhere.errors import SpecError
from adhere.metrics import ScoredTrial, Table
from adhere.spec import BenchmarkSpec, data_path, parse_yaml, read_text
from adhere.suites._registry import WrongItem, suite
from adhere.suites.vericode._catalog import by_id
from adhere.suites.vericode._instances import selection_instances
from adhere.suites.vericode._load import TaskFormat, builtin_tasks, load_tasks
from adhere.suites.vericode._metrics import report_tables
from adhere.suites.vericode._options import check_options, read_selections
from adhere.suites.vericode._render import render_reply
from adhere.suites.vericode._select import Selection, select_deterministic
from adhere.suites.vericode._task import Task
from adhere.suites.vericode._templates import (
    ADHERE_PROMPTS,
    PAPER_PROMPTS,
    Prompts,
    prompts_from,
)
from adhere.suites.vericode._verdicts import from_evidence, rules_for, sandbox, turn_replies

__all__ = ["VeriCodeSuite", "selection_instances"]

_OPTIONS = {"protocols", "ks", "k", "seed", "limit", "format", "protocol", "prompts",
            "environment"}  # fmt: skip


class _Key(NamedTuple):
    protocol: str
    task: Task
    chosen: list[tuple[str, dict[str, Any]]]
    rules: str
    environment: str


def _key(instance: Instance) -> _Key:
    try:
        key = instance.metadata["vericode"]
        task = Task.model_validate(key["task"])
        chosen = [(str(c["id"]), dict(c.get("params", {}))) for c in key["instructions"]]
        rules = str(key.get("rules", "adhere"))
        rules_for(rules)
        environment = str(key.get("environment", "auto"))
        return _Key(str(key["protocol"]), task, chosen, rules, environment)
    except (KeyError, TypeError, ValidationError) as exc:
        raise SpecError(
            f"instance {instance.id!r} is not a VeriCode instance (no answer key)",
            field="metadata.vericode",
        ) from exc


def _scored_turns(protocol: str, chosen: Sequence[Any]) -> list[tuple[int, int]]:
    """(turn index, instructions in force) of the turns that are checked."""
    if protocol == "single":
        return [(0, len(chosen))]
    return [(turn, turn) for turn in range(len(chosen) + 1)]


def _prefix(protocol: str, turn: int) -> str:
    return "" if protocol == "single" else f"t{turn}."


@suite("vericode")
class VeriCodeSuite:
    """Verifiable code instructions on coding tasks (SUITES.md §4)."""

    name = "vericode"

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - _OPTIONS)
        if unknown:
            raise SpecError(
                f"unknown VeriCode options {unknown}; accepted: {', '.join(sorted(_OPTIONS))}",
                field="spec.options",
            )
        self.options = check_options(options, "spec.options")

    # -- loading -------------------------------------------------------------------

    def load(self, spec: BenchmarkSpec, *, base_dir: Path, file: str = "") -> list[Instance]:
        """Instances from a selections file, a task file, or the built-in tasks."""
        options = dict(self.options)
        tasks_from: str | None = None
        if spec.source.generate is not None:
            raw = dict(spec.source.generate)
            tasks_from = raw.pop("tasks", "builtin")
            if not isinstance(tasks_from, str):
                raise SpecError(
                    "expected 'builtin' or a task file path",
                    file=file,
                    field="spec.source.generate.tasks",
                )
            unknown = sorted(set(raw) - _OPTIONS)
            if unknown:
                raise SpecError(
                    f"unknown generator keys {unknown}; accepted: tasks, "
                    + ", ".join(sorted(_OPTIONS)),
                    file=file,
                    field="spec.source.generate",
                )
            checked = check_options(raw, "spec.source.generate", file)
            options.update({key: checked[key] for key in raw})
        elif spec.source.path is not None:
            tasks_from = spec.source.path
        else:
            raise SpecError("VeriCode reads 'path' or 'generate'", file=file, field="spec.source")
        field = "spec.source.generate.tasks" if spec.source.generate else "spec.source.path"
        selections = self._selections(tasks_from, base_dir, options, file, field)
        limit = options.get("limit")
        if limit is not None:
            selections = selections[:limit]
        prompts = self._prompts(options, base_dir, file)
        out: list[Instance] = []
        for selection in selections:
            out += selection_instances(
                selection,
                options["protocols"],
                options.get("ks"),
                rules=options["protocol"],
                prompts=prompts,
                environment=options["environment"],
            )
        return out

    @staticmethod
    def _prompts(options: Mapping[str, Any], base_dir: Path, file: str) -> Prompts:
        base = PAPER_PROMPTS if options["protocol"] == "paper" else ADHERE_PROMPTS
        where = options.get("prompts")
        if where is None:
            return base
        path = data_path(where, base_dir=base_dir, file=file, field="spec.options.prompts")
        if not path.is_file():
            raise SpecError(f"{path} does not exist", file=file, field="spec.options.prompts")
        raw = parse_yaml(read_text(path), file=str(path))
        return prompts_from(raw, base, file=str(path), field="templates")

    @staticmethod
    def _selections(
        where: str, base_dir: Path, options: Mapping[str, Any], file: str, field: str
    ) -> list[Selection]:
        k, seed = options["k"], options["seed"]
        if where == "builtin":
            return [select_deterministic(t, k, seed) for t in builtin_tasks()]
        path = data_path(where, base_dir=base_dir, file=file, field=field)
        if not path.is_file():
            raise SpecError(f"{path} does not exist", file=file, field=field)
        selections = read_selections(path)
        if selections is not None:
            return selections
        fmt: TaskFormat = options["format"]
        return [select_deterministic(t, k, seed) for t in load_tasks(path, fmt)]

    # -- scoring -------------------------------------------------------------------

    def evidence(self, instance: Instance, trajectory: Trajectory) -> list[EvidenceRequest]:
        """Sandboxed test runs and Ruff checks of the code of every checked turn."""
        protocol, task, chosen, rules_name, environment = _key(instance)
        rules = rules_for(rules_name)
        replies = turn_replies(trajectory.messages, len(instance.turns))
        requests: list[EvidenceRequest] = []
        for turn, k in _scored_turns(protocol, chosen):
            if rules.no_code(replies[turn], turn) is not None:
                continue  # nothing to run: score() fails the turn's code checks
            code = rules.extract(replies[turn] or "")
            requests.append(sandbox(f"tests@{turn}", task, code, environment))
            for instruction_id, params in chosen[:k]:
                instruction = by_id(instruction_id)
                if instruction.custom is not None:
                    continue
                requests.append(
                    RuffRun(
                        id=f"ruff:{instruction_id}@{turn}",
                        code=code,
                        select=list(instruction.select),
                        config=instruction.ruff_config(params),
                        preview=instruction.preview,
                    )
                )
        return requests

    def score(
        self,
        instance: Instance,
        trajectory: Trajectory,
        evidence: Mapping[str, Evidence] | None = None,
    ) -> list[Verdict]:
        """One verdict per check; missing or ``error`` evidence gives ``error`` verdicts.

        A turn without code (no reply; under adhere's rules also only empty fenced
        blocks) fails its code checks.
        """
        key = _key(instance)
        protocol, chosen, rules = key.protocol, key.chosen, rules_for(key.rules)
        found = evidence or {}
        replies = turn_replies(trajectory.messages, len(instance.turns))
        verdicts = []
        for turn, k in _scored_turns(protocol, chosen):
            reply = replies[turn]
            index = None if reply is None else turn
            prefix = _prefix(protocol, turn)
            base = {"protocol": protocol, "turn": turn, "k": k}
            no_code = rules.no_code(reply, turn)
            verdicts.append(
                from_evidence(
                    f"{prefix}tests",
                    found.get(f"tests@{turn}"),
                    "vericode.tests",
                    index,
                    {**base, "kind": "tests"},
                    no_code,
                )  # fmt: skip
            )
            for position, (instruction_id, _params) in enumerate(chosen[:k], start=1):
                instruction = by_id(instruction_id)
                details = {
                    **base,
                    "kind": "instruction",
                    "instruction": instruction_id,
                    "instruction_category": instruction.category,
                    "position": position,
                }
                check_id = f"{prefix}{instruction_id}"
                if instruction.custom is None:
                    verdicts.append(
                        from_evidence(
                            check_id,
                            found.get(f"ruff:{instruction_id}@{turn}"),
                            "vericode.ruff",
                            index,
                            details,
                            no_code,
                        )  # fmt: skip
                    )
                    continue
                text = reply or ""
                outcome = rules.custom[instruction.custom](
                    text if instruction.whole_reply else rules.extract(text)
                )
                verdicts.append(
                    Verdict(
                        check_id=check_id,
                        result="pass" if outcome.passed else "fail",
                        decided_by="vericode.custom",
                        reasoning=outcome.reason,
                        evidence=index,
                        details=details,
                    )
                )
        return verdicts

    def oracle_reply(self, instance: Instance, turn: int, wrong: WrongItem) -> str:
        """The reference solution, in the form the instructions in force ask for."""
        protocol, task, chosen = _key(instance)[:3]
        active = chosen if protocol == "single" else chosen[:turn]
        return render_reply(task, active, wrong)

    def breakdowns(self) -> Sequence[str]:
        """Reports break results down by protocol (the suite tables give k, category, position)."""
        return ("protocol",)

    def metric_names(self) -> tuple[str, str]:
        """All checks of an instance (tests and instructions, every turn) vs the item rate."""
        return ("all checks passed", "checks passed")

    def report_tables(self, trials: Iterable[ScoredTrial]) -> tuple[list[Table], list[Table]]:
        """Paper-layout tables (pass@1 and FR_k, IF per k) and per category/position."""
        return report_tables(trials)
