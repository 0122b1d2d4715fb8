"""VeriCode instances: a selection becomes single-turn instances per k and one multi-turn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from adhere.core import Check, CheckKind, Instance, Source, VerifierRef
from adhere.suites.vericode._catalog import by_id
from adhere.suites.vericode._prompt import multi_turns, single_turn
from adhere.suites.vericode._select import Selection
from adhere.suites.vericode._templates import ADHERE_PROMPTS, PAPER_PROMPTS, Prompts

__all__ = ["selection_instances"]


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
    selection: Selection,
    protocols: Sequence[str],
    ks: Sequence[int] | None = None,
    *,
    rules: str = "adhere",
    prompts: Prompts | None = None,
    environment: str = "auto",
) -> list[Instance]:
    """The instances of one task's selection: single-turn per k, and one multi-turn.

    ``rules`` (``adhere`` or ``paper``) decides how replies are scored and the default
    templates; ``prompts`` replaces the templates.
    """
    if prompts is None:
        prompts = PAPER_PROMPTS if rules == "paper" else ADHERE_PROMPTS
    setting = _Setting(rules, prompts, environment)
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
                turns = [single_turn(task, mine, prompts)]
                out.append(_instance(selection, f"{task.id}.single.k{k}", "single", k,
                                     turns, checks, setting))  # fmt: skip
        else:
            checks = []
            for turn in range(len(chosen) + 1):
                checks.append(_check(f"t{turn}.tests", None, {}))
                checks += [_check(f"t{turn}.{i}", i, p) for i, p in chosen[:turn]]
            out.append(_instance(selection, f"{task.id}.multi", "multi", len(chosen),
                                 multi_turns(task, chosen, prompts), checks, setting))  # fmt: skip
    return out


class _Setting(NamedTuple):
    rules: str
    prompts: Prompts
    environment: str


def _instance(
    selection: Selection,
    iid: str,
    protocol: str,
    k: int,
    turns: list[str],
    checks: list[Check],
    setting: _Setting,
) -> Instance:
    task = selection.task
    return Instance(
        id=iid,
        suite="vericode",
        system_prompt=setting.prompts.system,
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
                "rules": setting.rules,
                "environment": setting.environment,
                "k": k,
                "task": task.model_dump(mode="json"),
                "instructions": [c.model_dump(mode="json") for c in selection.instructions[:k]],
            },
        },
    )
