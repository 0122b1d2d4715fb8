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

Sources: ``path`` (a selections file from ``adhere generate vericode``, or a task file
in any of the formats) or ``generate: {tasks: builtin | <task file>, …}``.

Check ids: single-turn ``tests`` and one per instruction id; multi-turn
``t<turn>.tests`` and ``t<turn>.<instruction id>`` for instructions 1..turn (cumulative
checking: at turn k every instruction given so far is checked on the latest code).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from adhere.core import (
    ChatMessage,
    Check,
    CheckKind,
    Evidence,
    EvidenceRequest,
    Instance,
    RuffRun,
    SandboxRun,
    Source,
    Trajectory,
    Verdict,
    VerifierRef,
)
from adhere.errors import SpecError
from adhere.metrics import ScoredTrial, Table
from adhere.spec import BenchmarkSpec, data_path
from adhere.suites._registry import WrongItem, suite
from adhere.suites.vericode._catalog import by_id
from adhere.suites.vericode._checks import CUSTOM_CHECKS, extract_code, has_code
from adhere.suites.vericode._load import TaskFormat, builtin_tasks, load_tasks
from adhere.suites.vericode._metrics import report_tables
from adhere.suites.vericode._options import check_options, read_selections
from adhere.suites.vericode._prompt import SYSTEM_PROMPT, multi_turns, single_turn
from adhere.suites.vericode._render import render_reply
from adhere.suites.vericode._select import Selection, select_deterministic
from adhere.suites.vericode._task import Task

__all__ = ["VeriCodeSuite", "selection_instances"]

_OPTIONS = {"protocols", "ks", "k", "seed", "limit", "format"}
_KEPT_DIAGNOSTICS = 5


def _check(check_id: str, instruction_id: str | None, params: Mapping[str, Any]) -> Check:
    if instruction_id is None:
        return Check(
            id=check_id,
            source=Source.TEST,
            kind=CheckKind.TESTING,
            description="The code passes the task's unit tests.",
            verifier=VerifierRef(name="vericode.tests"),
        )
    instruction = by_id(instruction_id)
    name = "vericode.custom" if instruction.custom else "vericode.ruff"
    return Check(
        id=check_id,
        source=Source.USER_QUERY,
        kind=CheckKind.COMPLIANCE,
        description=instruction.render_generation(params),
        verifier=VerifierRef(name=name, params={"instruction": instruction_id, **params}),
    )


def selection_instances(
    selection: Selection, protocols: Sequence[str], ks: Sequence[int] | None = None
) -> list[Instance]:
    """The instances of one task's selection: single-turn per k, and one multi-turn."""
    task = selection.task
    chosen = [(c.id, dict(c.params)) for c in selection.instructions]
    out = []
    for protocol in protocols:
        if protocol == "single":
            for k in ks if ks is not None else range(len(chosen) + 1):
                if k > len(chosen):
                    continue
                mine = chosen[:k]
                checks = [_check("tests", None, {})]
                checks += [_check(i, i, p) for i, p in mine]
                out.append(_instance(selection, f"{task.id}.single.k{k}", "single", k,
                                     [single_turn(task, mine)], checks))  # fmt: skip
        else:
            checks = []
            for turn in range(len(chosen) + 1):
                checks.append(_check(f"t{turn}.tests", None, {}))
                checks += [_check(f"t{turn}.{i}", i, p) for i, p in chosen[:turn]]
            out.append(_instance(selection, f"{task.id}.multi", "multi", len(chosen),
                                 multi_turns(task, chosen), checks))  # fmt: skip
    return out


def _instance(
    selection: Selection, iid: str, protocol: str, k: int, turns: list[str], checks: list[Check]
) -> Instance:
    task = selection.task
    return Instance(
        id=iid,
        suite="vericode",
        system_prompt=SYSTEM_PROMPT,
        turns=turns,
        checks=checks,
        metadata={
            "task": task.id,
            "task_source": task.source,
            "protocol": protocol,
            "k": k,
            "selector": selection.selector,
            "instructions": ",".join(c.id for c in selection.instructions[:k]),
            "vericode": {
                "protocol": protocol,
                "k": k,
                "task": task.model_dump(mode="json"),
                "instructions": [c.model_dump(mode="json") for c in selection.instructions[:k]],
            },
        },
    )


def _key(instance: Instance) -> tuple[str, Task, list[tuple[str, dict[str, Any]]]]:
    try:
        key = instance.metadata["vericode"]
        task = Task.model_validate(key["task"])
        chosen = [(str(c["id"]), dict(c.get("params", {}))) for c in key["instructions"]]
        return str(key["protocol"]), task, chosen
    except (KeyError, TypeError, ValidationError) as exc:
        raise SpecError(
            f"instance {instance.id!r} is not a VeriCode instance (no answer key)",
            field="metadata.vericode",
        ) from exc


def turn_replies(messages: Sequence[ChatMessage], turns: int) -> list[str | None]:
    """The reply to each user turn: the last non-empty assistant text before the next one."""
    replies: list[str | None] = [None] * turns
    turn = -1
    for message in messages:
        if message.role == "user":
            turn += 1
        elif message.role == "assistant" and 0 <= turn < turns and message.content.strip():
            replies[turn] = message.content
    return replies


def _scored_turns(protocol: str, chosen: Sequence[Any]) -> list[tuple[int, int]]:
    """(turn index, instructions in force) of the turns that are checked."""
    if protocol == "single":
        return [(0, len(chosen))]
    return [(turn, turn) for turn in range(len(chosen) + 1)]


def _prefix(protocol: str, turn: int) -> str:
    return "" if protocol == "single" else f"t{turn}."


def _sandbox(request_id: str, task: Task, code: str) -> SandboxRun:
    tests = task.tests
    return SandboxRun(
        id=request_id,
        mode=tests.mode,
        code=code,
        tests=tests.code,
        setup=tests.setup,
        cases=list(tests.cases),
        files=dict(tests.files),
        timeout=tests.timeout,
    )


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
            options.update(check_options(raw, "spec.source.generate", file))
        elif spec.source.path is not None:
            tasks_from = spec.source.path
        else:
            raise SpecError("VeriCode reads 'path' or 'generate'", file=file, field="spec.source")
        field = "spec.source.generate.tasks" if spec.source.generate else "spec.source.path"
        selections = self._selections(tasks_from, base_dir, options, file, field)
        limit = options.get("limit")
        if limit is not None:
            selections = selections[:limit]
        out: list[Instance] = []
        for selection in selections:
            out += selection_instances(selection, options["protocols"], options.get("ks"))
        return out

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
        protocol, task, chosen = _key(instance)
        replies = turn_replies(trajectory.messages, len(instance.turns))
        requests: list[EvidenceRequest] = []
        for turn, k in _scored_turns(protocol, chosen):
            code = extract_code(replies[turn] or "")
            if not has_code(code):
                continue  # nothing to run: score() fails the turn's code checks
            requests.append(_sandbox(f"tests@{turn}", task, code))
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

        A turn without code (no reply, or only empty fenced blocks) fails its code checks.
        """
        protocol, _task, chosen = _key(instance)
        found = evidence or {}
        replies = turn_replies(trajectory.messages, len(instance.turns))
        verdicts = []
        for turn, k in _scored_turns(protocol, chosen):
            reply = replies[turn]
            index = None if reply is None else turn
            prefix = _prefix(protocol, turn)
            base = {"protocol": protocol, "turn": turn, "k": k}
            no_code = _no_code(reply, turn)
            verdicts.append(
                _from_evidence(
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
                        _from_evidence(
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
                outcome = CUSTOM_CHECKS[instruction.custom](
                    text if instruction.whole_reply else extract_code(text)
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
        protocol, task, chosen = _key(instance)
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


def _no_code(reply: str | None, turn: int) -> str | None:
    """Why turn ``turn`` has no code to check, or ``None`` when it has some."""
    if reply is None:
        return f"no reply to turn {turn}: no code to check"
    if not has_code(extract_code(reply)):
        return f"the reply to turn {turn} holds no code (its fenced blocks are empty)"
    return None


def _from_evidence(
    check_id: str,
    found: Evidence | None,
    decided_by: str,
    index: int | None,
    details: dict[str, Any],
    no_code: str | None = None,
) -> Verdict:
    if no_code is not None:
        return Verdict(check_id=check_id, result="fail", decided_by=decided_by,
                       reasoning=no_code, evidence=index, details=details)  # fmt: skip
    if found is None or found.status == "error":
        reason = "no evidence was gathered" if found is None else found.detail
        return Verdict(check_id=check_id, result="error", decided_by=decided_by,
                       reasoning=reason, evidence=index, details=details)  # fmt: skip
    extra = {}
    diagnostics = found.data.get("diagnostics")
    if diagnostics:
        extra["diagnostics"] = diagnostics[:_KEPT_DIAGNOSTICS]
    return Verdict(
        check_id=check_id,
        result="pass" if found.status == "pass" else "fail",
        decided_by=decided_by,
        reasoning=found.detail,
        evidence=index,
        details={**details, **extra},
    )
