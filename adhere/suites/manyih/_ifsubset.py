"""The ManyIH instruction-following (IF) subset: loader, instances and code checks.

The subset's data (426 AgentIF samples) is not available offline; this module reads
files in its schema (SUITES.md §3), a JSON list of samples (or ``{"data": [...]}``)::

    {"id": "if-001",                                  # optional (default: the index)
     "domain": "travel agent",                        # optional
     "input": [{"role": "system", "content": "…"},
               {"role": "user", "content": "…"}],
     "constraints": [                                 # active: these are checked
        {"id": "c1", "desc": "…",
         "evaluation": [{"type": "code", "exec": "def check_following(response): …"}]},
        {"id": "c2", "desc": "…",
         "evaluation": [{"type": "llm", "exec": "Does … ? Answer YES or NO."}]},
        {"id": "c3", "desc": "…",
         "evaluation": [{"type": "llm_conditional_check", "exec": "Does … ?"},
                        {"type": "llm", "exec": "…"}]}],
     "suppressed_constraints": [ … same shape: overridden by stronger ones, not checked … ],
     "reference_response": "…"}                       # optional: what the oracle answers

Each active constraint becomes one check, ``if:<constraint id>``:

- an evaluation that is one ``code`` step: the ``check_following(response)`` source runs
  in the sandbox (never in this process) with the reply's text; ``True`` passes,
  ``False`` fails, anything else (an exception, another value) is an ``error``;
- any other chain: the judge panel decides; the judge prompts go into the check's
  description (a ``code`` step in such a chain — the data's "LLM extracts, code
  checks" chains — is shown to the judge as part of the criterion, not executed);
- a leading ``llm_conditional_check``: its prompt becomes the check's ``condition``,
  so the judge panel returns ``n/a`` when the condition does not hold.

Reasoning wrapped in ``<think>…</think>`` is removed from the reply before checking.
Instance metadata: ``subset`` (``if``), ``domain``, ``tiers`` (distinct privilege tags
in the input, either interface), ``constraints`` and ``suppressed`` (counts).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from adhere.core import (
    Check,
    CheckKind,
    Evidence,
    Instance,
    SandboxRun,
    Source,
    Trajectory,
    Verdict,
    VerifierRef,
)
from adhere.errors import SpecError
from adhere.spec import format_location, parse_json, read_text
from adhere.suites.manyih._hierarchy import parse_tags

__all__ = [
    "IF_VERIFIER",
    "IfConstraint",
    "IfSample",
    "if_evidence",
    "if_score",
    "if_to_instance",
    "load_if",
]

IF_VERIFIER = "manyih.if_code"
_RESULT = "__adhere_check_result__"
_HARNESS = """
import sys
with open("response.txt", encoding="utf-8") as _handle:
    response = _handle.read()
{source}
{result} = check_following(response)
if {result} is True:
    sys.exit(0)
if {result} is False:
    sys.exit(1)
raise TypeError("check_following returned " + repr({result}) + ", not True or False")
"""


class IfStep(BaseModel):
    """One step of a constraint's evaluation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["code", "llm", "llm_conditional_check"]
    exec: str = Field(min_length=1)


class IfConstraint(BaseModel):
    """A constraint with its evaluation chain (other AgentIF fields are kept as they are)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    id: str | int
    desc: str = Field(min_length=1)
    evaluation: list[IfStep] = Field(min_length=1)

    @model_validator(mode="after")
    def _condition_first(self) -> IfConstraint:
        kinds = [step.type for step in self.evaluation]
        if "llm_conditional_check" in kinds[1:]:
            raise ValueError("llm_conditional_check may only be the first evaluation step")
        if kinds == ["llm_conditional_check"]:
            raise ValueError("a conditional check needs a step after it")
        return self


class IfMessage(BaseModel):
    """One input message."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Literal["system", "user", "assistant"]
    content: str


class IfSample(BaseModel):
    """One IF-subset sample."""

    model_config = ConfigDict(extra="allow", frozen=True)

    id: str | int | None = None
    input: list[IfMessage] = Field(min_length=1)
    constraints: list[IfConstraint] = Field(min_length=1)
    suppressed_constraints: list[IfConstraint] = Field(default_factory=list)
    reference_response: str | None = None

    @model_validator(mode="after")
    def _shape(self) -> IfSample:
        roles = [m.role for m in self.input]
        if roles[-1] != "user" or not self.input[-1].content.strip():
            raise ValueError("input must end with a non-empty user message")
        if "assistant" in roles:
            raise ValueError(
                "input holds assistant messages; the chat scaffold replays user turns only"
            )
        ids = [str(c.id) for c in [*self.constraints, *self.suppressed_constraints]]
        if len(set(ids)) != len(ids):
            raise ValueError("constraint ids are not unique")
        return self


def load_if(path: Path) -> list[IfSample]:
    """Samples of an IF-subset file, validated (file, sample and field named on error)."""
    raw = parse_json(read_text(path), file=str(path))
    records, prefix = (
        (raw["data"], "data") if isinstance(raw, dict) and "data" in raw else (raw, "")
    )
    if not isinstance(records, list) or not records:
        raise SpecError("expected a non-empty list of samples", file=str(path))
    out = []
    for index, record in enumerate(records):
        try:
            out.append(IfSample.model_validate(record))
        except ValidationError as exc:
            err = exc.errors()[0]
            location = format_location(err["loc"])
            field = f"{prefix}[{index}]" + (f".{location}" if location else "")
            raise SpecError(err["msg"], file=str(path), field=field) from None
    return out


def _sandboxed(constraint: IfConstraint) -> bool:
    """Whether a constraint is decided by running its code (one ``code`` step, no LLM)."""
    return [step.type for step in constraint.evaluation] == ["code"]


def _check(constraint: IfConstraint) -> Check:
    steps = constraint.evaluation
    if _sandboxed(constraint):
        return Check(
            id=f"if:{constraint.id}",
            source=Source.PRIVILEGE,
            kind=CheckKind.COMPLIANCE,
            description=constraint.desc,
            verifier=VerifierRef(name=IF_VERIFIER),
        )
    condition = steps[0].exec if steps[0].type == "llm_conditional_check" else None
    rest = steps[1:] if condition else steps
    criteria = "\n\n".join(
        f"Judge: {step.exec}" if step.type == "llm" else f"Code the criterion uses:\n{step.exec}"
        for step in rest
    )
    return Check(
        id=f"if:{constraint.id}",
        source=Source.PRIVILEGE,
        kind=CheckKind.COMPLIANCE,
        description=f"{constraint.desc}\n\n{criteria}",
        condition=condition,
    )


def if_to_instance(sample: IfSample, index: int) -> Instance:
    """The Instance an IF sample is run as."""
    key = sample.id if sample.id is not None else f"{index:04d}"
    system = "\n\n".join(m.content for m in sample.input if m.role == "system")
    extra: dict[str, Any] = sample.model_extra or {}
    return Instance(
        id=f"manyih-if-{key}",
        suite="manyih",
        system_prompt=system,
        turns=[m.content for m in sample.input if m.role == "user"],
        checks=[_check(c) for c in sample.constraints],
        metadata={
            "subset": "if",
            "domain": str(extra.get("domain", "")),
            "tiers": len(
                {(t.interface, t.level) for m in sample.input for t in parse_tags(m.content)}
            ),
            "constraints": len(sample.constraints),
            "suppressed": len(sample.suppressed_constraints),
            "answer_key": {
                "code": {
                    f"if:{c.id}": c.evaluation[0].exec for c in sample.constraints if _sandboxed(c)
                },
                "suppressed": [
                    {"id": str(c.id), "desc": c.desc} for c in sample.suppressed_constraints
                ],
                "reference_response": sample.reference_response,
            },
        },
    )


def _response(trajectory: Trajectory) -> tuple[str, int | None]:
    replies = [m.content for m in trajectory.assistant_turns()]
    used = max((i for i, r in enumerate(replies) if r.strip()), default=None)
    text = replies[used] if used is not None else ""
    if "</think>" in text:
        text = text.split("</think>", 1)[1]
    return text.strip(), used


def _code_checks(instance: Instance) -> dict[str, str]:
    return dict(instance.metadata.get("answer_key", {}).get("code", {}))


def if_evidence(instance: Instance, trajectory: Trajectory, timeout: float) -> list[SandboxRun]:
    """One sandboxed run per code check (none when the reply is empty)."""
    response, _used = _response(trajectory)
    if not response:
        return []
    return [
        SandboxRun(
            id=check_id,
            mode="python",
            code=_HARNESS.format(source=source, result=_RESULT),
            files={"response.txt": response},
            timeout=timeout,
        )
        for check_id, source in sorted(_code_checks(instance).items())
    ]


def if_score(
    instance: Instance, trajectory: Trajectory, evidence: dict[str, Evidence] | None
) -> list[Verdict]:
    """Verdicts of the code checks; judge-decided checks are left to the panel."""
    response, used = _response(trajectory)
    out = []
    for check_id in sorted(_code_checks(instance)):
        found = (evidence or {}).get(check_id)
        if not response:
            result, reason = "fail", "empty reply"
        elif found is None:
            result, reason = "error", "no sandbox evidence for this code check"
        elif found.status in ("pass", "fail"):
            result, reason = found.status, found.detail
        else:
            result, reason = "error", f"check_following: {found.status}: {found.detail}"
        out.append(
            Verdict(
                check_id=check_id,
                result=result,
                decided_by=IF_VERIFIER,
                reasoning=reason,
                evidence=used,
            )
        )
    return out
