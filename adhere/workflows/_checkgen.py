"""``adhere generate checklist``: checklists from stored reference rollouts.

For each chosen instance: its finished trials are gathered from one or more rollout
artifact directories (any model, scaffold and repeat; ``max_rollouts`` of them,
repeat 0 of every model × scaffold first), each trajectory is sent to the model once
(with re-asks on unusable replies), the proposals are merged — deterministically, or
by the same model with ``merge="llm"`` — (:func:`adhere.judging.generate_checklist`),
a Skill instance (its stored ``metadata.expected_skill``) gets the Skill.md rule's
required checks, and the result is written as commented YAML in the published
checklist shape. Every file is read back through the OctoBench loader
before it is kept (:func:`load_checklist_file`), so what is written is a checklist
that loader accepts.

The model is an :class:`~adhere.spec.Endpoint`: a YAML file holding one (the same
mapping as a judge's ``endpoint`` in a JudgePanel, bare or under an ``endpoint:``
key), or a model string, which means the scripted policy server (a test double) that
this command starts for itself — e.g. ``checkgen:seed=1``.

An existing checklist file is never overwritten unless ``force`` is set: it may hold a
reviewer's edits.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from adhere.artifacts import RolloutStore, open_rollout, safe_segment
from adhere.core import Check, Instance, Trial
from adhere.errors import AdhereError, SpecError
from adhere.judging import (
    DEFAULT_SIMILARITY,
    GeneratedChecklist,
    JudgeCall,
    MergeMode,
    ReferenceRollout,
    generate_checklist,
    render_checklist_yaml,
)
from adhere.models import serve_providers
from adhere.scoring import JudgeAsks
from adhere.spec import Endpoint, validate_model
from adhere.suites.octobench import RawInstance, to_instance

__all__ = [
    "CheckgenSettings",
    "InstanceOutcome",
    "expected_skill",
    "find_rollouts",
    "generate_checklists",
    "load_checklist_file",
    "resolve_endpoint",
    "serve_endpoint",
]

_CHECKGEN = "checkgen"
_MODEL_STRING_PROVIDER = "scripted"
"""The provider a bare model string (not an endpoint file) names: the scripted policy server."""


@dataclass(frozen=True)
class CheckgenSettings:
    """How checklists are generated.

    Attributes:
        max_rollouts: Reference rollouts per instance, at most (``None``: all).
        threshold: Similarity threshold of the deduplication (Jaccard of normalized
            token sets; see :mod:`adhere.judging._checkgen_merge`).
        min_support: Keep checks proposed in at least this many rollouts.
        max_attempts: Attempts per rollout before its instance fails.
        parallelism: Model calls in flight at once (the endpoint's own limits apply too).
        force: Overwrite existing checklist files.
        merge: ``deterministic`` (default) or ``llm``: the model merges the proposals
            (one more call per instance; a failed merge falls back to the
            deterministic one, noted in the file and the outcome).
    """

    max_rollouts: int | None = None
    threshold: float = DEFAULT_SIMILARITY
    min_support: int = 1
    max_attempts: int = 3
    parallelism: int = 4
    force: bool = False
    merge: MergeMode = "deterministic"


@dataclass
class InstanceOutcome:
    """What happened to one instance: the file written, or why none was."""

    instance: str
    rollouts: int = 0
    path: Path | None = None
    checklist: GeneratedChecklist | None = None
    error: str | None = None


@dataclass
class _Runs:
    stores: list[RolloutStore] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    instance_ids: list[str] = field(default_factory=list)
    instances: dict[str, Instance] = field(default_factory=dict)


async def serve_endpoint(endpoint: Endpoint, stack: AsyncExitStack) -> Endpoint:
    """``endpoint``, served by the model provider its ``baseUrl`` names, if any.

    The provider (e.g. the scripted policy server, a test double) is started now, as for
    a judge, and stopped with ``stack``; plain endpoints pass unchanged.
    """
    served = await serve_providers(stack, judges=[endpoint])
    return served.resolve(endpoint)


def resolve_endpoint(value: str) -> Endpoint:
    """The endpoint named by ``value``: an endpoint YAML file, or a scripted model string.

    Raises:
        SpecError: The file is not an endpoint mapping.
    """
    path = Path(value)
    if not (path.suffix in (".yaml", ".yml") or path.is_file()):
        return Endpoint(api="openai", base_url=_MODEL_STRING_PROVIDER, model=value)
    if not path.is_file():
        raise SpecError("no such endpoint file", file=value)
    try:
        data: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise SpecError(f"invalid YAML: {exc}", file=value) from None
    prefix = ""
    if isinstance(data, dict) and isinstance(data.get("endpoint"), dict):
        data, prefix = data["endpoint"], "endpoint"
    if not isinstance(data, dict):
        raise SpecError(
            "expected an endpoint mapping (api, baseUrl, model, apiKey, …), bare or under "
            "'endpoint:'",
            file=value,
        )
    return validate_model(Endpoint, data, file=value, prefix=prefix)


def _open_runs(run_dirs: Sequence[str | Path]) -> _Runs:
    runs = _Runs()
    for run_dir in run_dirs:
        store = open_rollout(run_dir)
        if store.uri in runs.labels:  # the same run given twice
            continue
        runs.stores.append(store)
        taken = store.rollout in runs.labels.values()
        local = store.store.local_path(store.rollout)
        where = str(local.resolve()) if local is not None else store.uri
        runs.labels[store.uri] = where if taken else store.rollout
        for instance in store.read_instances():
            if instance.id not in runs.instance_ids:
                runs.instance_ids.append(instance.id)
                runs.instances[instance.id] = instance
    return runs


_SKILL_CATEGORIES = frozenset({"skill", "skill.md", "skills"})


def expected_skill(instance: Instance) -> str | None:
    """The skill of a Skill instance (``metadata.expected_skill``), ``None`` for others.

    Raises:
        SpecError: The instance's category is Skill but it names no expected skill (the
            Skill.md rule needs the name for its identity check).
    """
    skill = instance.metadata.get("expected_skill")
    if isinstance(skill, str) and skill.strip():
        return skill.strip()
    category = instance.metadata.get("category")
    if isinstance(category, str) and category.strip().lower() in _SKILL_CATEGORIES:
        raise SpecError(
            f"instance {instance.id!r} has category {category!r} but no expected skill; "
            "the Skill.md rule needs the skill's name",
            field="expected_skill",
        )
    return None


def find_rollouts(
    stores: Sequence[RolloutStore],
    instance: str,
    max_rollouts: int | None = None,
    *,
    labels: Mapping[str, str] | None = None,
) -> list[ReferenceRollout]:
    """The finished (``ok``) trials of ``instance`` with a trajectory, as reference rollouts.

    Order: repeat, then run (in the order given), model, scaffold — so the first
    ``max_rollouts`` cover every model × scaffold before a second repeat. A rollout's
    label is ``<run>/<model>/<scaffold>/<instance>/r<repeat>``, where ``<run>`` is
    ``labels[store.uri]`` when given, else the rollout's name.
    """
    found: list[tuple[tuple[int, int, str, str], RolloutStore, Trial]] = []
    for position, store in enumerate(stores):
        for stored in store.iter_trials():
            trial = stored.result.trial
            if trial.instance != instance or stored.result.status != "ok":
                continue
            found.append(((trial.repeat, position, trial.model, trial.scaffold), store, trial))
    found.sort(key=lambda f: f[0])
    rollouts: list[ReferenceRollout] = []
    for _, store, trial in found:
        if max_rollouts is not None and len(rollouts) >= max_rollouts:
            break
        trajectory = store.read_trajectory(trial)
        if trajectory is None:
            continue
        run = (labels or {}).get(store.uri, store.rollout)
        label = f"{run}/{trial.model}/{trial.scaffold}/{trial.instance}/r{trial.repeat}"
        rollouts.append(ReferenceRollout(label, trajectory))
    return rollouts


def load_checklist_file(path: str | Path) -> list[Check]:
    """The checks of a checklist YAML file, read as the OctoBench loader reads a checklist.

    The file's mapping becomes the ``checklist`` field of an otherwise empty OctoBench
    instance line and goes through the loader's own validation (known categories,
    unique ids, valid check types, no unknown fields).

    Raises:
        SpecError: The file is not a valid checklist (naming the file and the field).
    """
    where = str(path)
    try:
        data: Any = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise SpecError(f"cannot read the checklist: {exc.strerror}", file=where) from None
    except yaml.YAMLError as exc:
        raise SpecError(f"invalid YAML: {exc}", file=where) from None
    if not isinstance(data, dict):
        raise SpecError("expected a mapping of category to {description, checks}", file=where)
    line = {
        "instance_id": Path(path).stem or "checklist",
        "user_query": ["(checklist file)"],
        "category": next(iter(data), "SP"),
        "checklist": data,
    }
    raw = validate_model(RawInstance, line, file=where)
    return to_instance(raw, base_dir=Path(path).parent, workspaces=None, where=where).checks


def _outputs(out: Path, instances: Sequence[str], *, single: bool) -> dict[str, Path]:
    if single and not out.is_dir():
        return {instances[0]: out}
    if out.exists() and not out.is_dir():
        raise SpecError(
            "several instances need a directory for --out (one YAML file per instance)",
            file=str(out),
        )
    return {i: out / f"{safe_segment(i)}.yaml" for i in instances}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    try:
        load_checklist_file(tmp)
    except SpecError:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)


async def generate_checklists(
    run_dirs: Sequence[str | Path],
    *,
    model: str,
    out: str | Path,
    instances: Sequence[str] | None = None,
    settings: CheckgenSettings | None = None,
    on_instance: Callable[[InstanceOutcome], None] | None = None,
) -> list[InstanceOutcome]:
    """Generate, merge and write one checklist per instance.

    Args:
        run_dirs: Rollout artifact directories (``runs/<rollout>``) or their ``file://``
            or ``s3://`` URIs; a run given twice counts once; runs of the same name are
            told apart by their path (their URI in S3).
        model: An endpoint YAML file, or a model string for the scripted policy server.
        out: The output file (one instance, unless it is an existing directory) or the
            output directory (several instances: ``<instance>.yaml`` each).
        instances: Instance ids; ``None`` means every instance of the runs.
        settings: Generation settings.
        on_instance: Called as each instance finishes (progress output).

    Returns:
        One outcome per instance, in the order asked. Failures (no rollouts, no usable
        reply, an existing file) are reported in the outcome; other instances go on.

    Raises:
        SpecError: Bad run directories, endpoint, instance ids or output path.
    """
    settings = settings or CheckgenSettings()
    endpoint = resolve_endpoint(model)
    runs = _open_runs(run_dirs)
    chosen = list(instances) if instances is not None else list(runs.instance_ids)
    unknown = [i for i in chosen if i not in runs.instance_ids]
    if unknown:
        known = ", ".join(runs.instance_ids[:10]) + (" …" if len(runs.instance_ids) > 10 else "")
        raise SpecError(
            f"unknown instance(s) {unknown}; the runs hold: {known}", field="--instance"
        )
    if not chosen:
        raise SpecError("the runs hold no instances", field="RUN_DIR")
    paths = _outputs(Path(out), chosen, single=instances is not None and len(chosen) == 1)
    async with AsyncExitStack() as stack:
        endpoint = await serve_endpoint(endpoint, stack)
        asks = JudgeAsks({_CHECKGEN: endpoint})
        stack.push_async_callback(asks.aclose)
        inner = asks.ask_for(_CHECKGEN)
        semaphore = asyncio.Semaphore(max(1, settings.parallelism))

        async def ask(call: JudgeCall) -> str:
            async with semaphore:
                return await inner(call)

        async def one(instance: str) -> InstanceOutcome:
            outcome = InstanceOutcome(instance)
            path = paths[instance]
            try:
                if path.exists() and not settings.force:
                    raise SpecError(
                        "exists (it may hold a reviewer's edits); use --force to overwrite",
                        file=str(path),
                    )
                rollouts = find_rollouts(
                    runs.stores, instance, settings.max_rollouts, labels=runs.labels
                )
                outcome.rollouts = len(rollouts)
                if not rollouts:
                    raise SpecError(f"instance {instance!r}: no finished trial with a trajectory")
                skill = expected_skill(runs.instances[instance])
                checklist = await generate_checklist(
                    ask,
                    instance,
                    rollouts,
                    merge=settings.merge,
                    expected_skill=skill,
                    model=endpoint.model,
                    threshold=settings.threshold,
                    min_support=settings.min_support,
                    max_attempts=settings.max_attempts,
                    max_tokens=endpoint.max_tokens,
                )
                if not checklist.checks:
                    raise SpecError(
                        f"instance {instance!r}: no check reaches support {settings.min_support} "
                        f"({checklist.dropped} dropped)"
                    )
                _write(path, render_checklist_yaml(checklist, model=endpoint.model))
                outcome.path, outcome.checklist = path, checklist
            except (AdhereError, ValueError) as exc:
                outcome.error = str(exc)
            if on_instance is not None:
                on_instance(outcome)
            return outcome

        return list(await asyncio.gather(*(one(i) for i in chosen)))
