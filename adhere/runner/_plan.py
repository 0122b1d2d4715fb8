"""Planning: instances after filters, and the trials of a rollout (pure: no I/O).

:func:`plan_trials` decides, for each of the Rollout's ``spec.scaffolds`` entries:

* a named entry (``instances: all``, the default) crosses every instance with it;
* a named entry with ``instances: own`` runs the instances that name it
  (:attr:`~adhere.core.Instance.scaffold`);
* the ``fromInstance`` entry (``scaffolds: fromInstance``) runs every instance under
  the scaffold it names, unless a named entry covers that scaffold already;
* an instance no entry runs is skipped, with the reason.

Each scaffold of the plan runs one version: its pin, the exact ``version`` asked for,
or with ``version: fromInstance`` the one its instances name where adhere can run it
(:class:`~adhere.scaffolds.VersionSupport`); otherwise the pin, and the plan says why.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from adhere.core import Instance, Trial
from adhere.errors import SpecError
from adhere.scaffolds import BUILTIN, VersionSupport
from adhere.spec import FROM_INSTANCE, Filters, Rollout, ScaffoldSpec

__all__ = [
    "PlannedScaffold",
    "Skipped",
    "TrialPlan",
    "apply_filters",
    "image_only_problem",
    "plan_trials",
]


def apply_filters(
    instances: Sequence[Instance], filters: Filters, *, file: str = ""
) -> list[Instance]:
    """Keep the instances the Benchmark's filters select, in their original order."""
    kept = list(instances)
    if filters.ids is not None:
        known = {i.id for i in kept}
        unknown = [i for i in filters.ids if i not in known]
        if unknown:
            raise SpecError(
                f"unknown instance ids {unknown[:5]}", file=file, field="spec.filters.ids"
            )
        wanted = set(filters.ids)
        kept = [i for i in kept if i.id in wanted]
    for key, allowed in filters.metadata.items():
        kept = [i for i in kept if i.metadata.get(key) in allowed]
    if filters.limit is not None:
        kept = kept[: filters.limit]
    if not kept:
        raise SpecError("the filters leave no instance", file=file, field="spec.filters")
    return kept


@dataclass(frozen=True)
class PlannedScaffold:
    """One scaffold of a plan, at the version it runs.

    Attributes:
        name: The registered scaffold.
        spec: Its settings: the Rollout entry it comes from (for the ``fromInstance``
            entry, that entry's budget under this scaffold's name).
        entry: The entry's position in ``spec.scaffolds``.
        version: The version that runs (:data:`~adhere.scaffolds.BUILTIN` for the
            in-process scaffolds).
        notes: Where that version is not the one asked for or named, and why.
    """

    name: str
    spec: ScaffoldSpec
    entry: int
    version: str
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Skipped:
    """An instance the plan runs under no scaffold, and why."""

    instance: str
    reason: str


@dataclass(frozen=True)
class TrialPlan:
    """The trials of a rollout, its scaffolds at their versions, and what it leaves out."""

    trials: list[Trial]
    scaffolds: dict[str, PlannedScaffold]
    skipped: list[Skipped]
    idle: list[str] = field(default_factory=list)
    """Listed scaffolds (``instances: own``) that no instance names: they run nothing."""

    def counts(self) -> dict[tuple[str, str, str], int]:
        """``(model, scaffold, version)`` → trials, in plan order."""
        counts: Counter[tuple[str, str, str]] = Counter()
        for trial in self.trials:
            counts[(trial.model, trial.scaffold, self.scaffolds[trial.scaffold].version)] += 1
        return dict(counts)

    def timeouts(self) -> dict[str, float]:
        """Scaffold → one trial's wall-clock budget."""
        return {name: p.spec.timeout_seconds for name, p in self.scaffolds.items()}

    def instances_run(self) -> list[str]:
        """Ids of the instances with at least one trial, in plan order."""
        return list(dict.fromkeys(t.instance for t in self.trials))


def _where(n: int) -> str:
    return f"spec.scaffolds[{n}]"


def _runs(
    entries: Sequence[ScaffoldSpec], instances: Sequence[Instance], known: Mapping[str, object]
) -> dict[str, tuple[int, ScaffoldSpec, list[Instance]]]:
    """Scaffold name → (entry index, settings, the instances it runs), in entry order."""
    named = {e.name for e in entries if e.name != FROM_INSTANCE}
    runs: dict[str, tuple[int, ScaffoldSpec, list[Instance]]] = {}
    for n, entry in enumerate(entries):
        if entry.name != FROM_INSTANCE:
            chosen = [
                i
                for i in instances
                if entry.instances == "all" or (i.scaffold and i.scaffold.name == entry.name)
            ]
            runs[entry.name] = (n, entry, chosen)
            continue
        for instance in instances:
            ref = instance.scaffold
            if ref is None or ref.name in named or ref.name not in known:
                continue
            if ref.name not in runs:
                settings = ScaffoldSpec(
                    name=ref.name,
                    timeout_seconds=entry.timeout_seconds,
                    version=FROM_INSTANCE,
                    instances="own",
                )
                runs[ref.name] = (n, settings, [])
            runs[ref.name][2].append(instance)
    return runs


def _skip_reason(instance: Instance, known: Mapping[str, object]) -> str:
    """Why no entry runs ``instance`` (with the fromInstance entry, only the first two)."""
    ref = instance.scaffold
    if ref is None:
        return "names no scaffold, and no scaffold of the rollout crosses every instance"
    if ref.name not in known:
        spelled = ref.named if ref.named and ref.named != ref.name else ""
        return (
            f"names scaffold {ref.name!r}{f' ({spelled!r})' if spelled else ''}, "
            "which adhere does not have"
        )
    return (
        f"names scaffold {ref.name!r}, which the rollout does not list "
        "(list it with 'instances: own', or use 'fromInstance')"
    )


def _count(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _choose_version(
    name: str,
    n: int,
    spec: ScaffoldSpec,
    chosen: Sequence[Instance],
    support: VersionSupport,
    *,
    file: str,
) -> tuple[str, tuple[str, ...]]:
    """The version scaffold ``name`` runs in this plan, and notes on the choice."""
    asked = spec.version
    field = f"{_where(n)}.version"
    if not support.installs:
        if asked not in (None, FROM_INSTANCE, BUILTIN):
            raise SpecError(
                f"scaffold {name!r} runs in-process: it has no versions to choose",
                file=file,
                field=field,
            )
        return BUILTIN, ()
    tested = ", ".join(support.tested)
    if asked is None:
        return support.pinned, ()
    if asked != FROM_INSTANCE:
        why = support.unavailable.get(asked)
        if why is not None:
            raise SpecError(f"{name} {asked} cannot be installed: {why}", file=file, field=field)
        if support.is_tested(asked):
            return asked, ()
        return asked, (
            f"{name} {asked} is not a version adhere is tested with ({tested}); it is "
            f"installed from {support.package or 'npm'} as asked",
        )
    wanted: Counter[str | None] = Counter()
    noted: dict[str, Counter[str]] = {}
    for instance in chosen:
        ref = instance.scaffold
        if ref is not None and ref.name == name:
            wanted[ref.version] += 1
            if ref.version is not None and ref.version_note:
                noted.setdefault(ref.version, Counter())[ref.version_note] += 1
    versions: set[str] = set()
    notes: list[str] = []
    for version, count in wanted.items():
        who = _count(count, "instance")
        if version is None:
            versions.add(support.pinned)
            notes.append(f"{who} name no {name} version: {support.pinned} (the pin) runs")
            continue
        if support.is_tested(version):
            versions.add(version)
            continue
        versions.add(support.pinned)
        why = support.unavailable.get(version) or (
            f"not a version adhere is tested with ({tested}); ask for "
            f"'version: {version}' to install it anyway"
        )
        origin = "".join(
            f" ({k} of them: {note})" for note, k in noted.get(version, Counter()).items()
        )
        notes.append(
            f"{who} name {name} {version}{origin}. adhere cannot run it — {why}. "
            f"{support.pinned} (the pin) runs instead"
        )
    if sum(wanted.values()) < len(chosen):  # crossing instances naming another scaffold
        versions.add(support.pinned)
    if len(versions) > 1:
        raise SpecError(
            f"the instances under scaffold {name!r} would run versions "
            f"{', '.join(sorted(versions))}: a rollout runs one version of a scaffold; "
            "narrow the instances (spec.filters of the Benchmark) or ask for one version",
            file=file,
            field=field,
        )
    return (versions.pop() if versions else support.pinned), tuple(notes)


def plan_trials(
    rollout: Rollout,
    instances: Sequence[Instance],
    versions: Mapping[str, VersionSupport],
    *,
    file: str = "",
) -> TrialPlan:
    """The rollout's trials (models × scaffolds × their instances × repeats); see the module.

    Args:
        rollout: The Rollout.
        instances: The Benchmark's instances after filters.
        versions: The versions of every scaffold adhere has that the plan may use (the
            listed ones and those the instances name); a name missing here is a
            scaffold adhere does not have.
        file: The Rollout's file, for messages.

    Raises:
        SpecError: Naming the file and ``spec.scaffolds[n]…``: a listed scaffold
            without versions; a version that cannot be installed; instances of one
            scaffold that would run two versions; a plan with no trial.
    """
    entries = rollout.spec.scaffolds
    for n, entry in enumerate(entries):
        if entry.name != FROM_INSTANCE and entry.name not in versions:
            raise SpecError(
                f"unknown scaffold {entry.name!r}", file=file, field=f"{_where(n)}.name"
            )
    runs = _runs(entries, instances, versions)
    planned: dict[str, PlannedScaffold] = {}
    idle: list[str] = []
    for name, (n, spec, chosen) in runs.items():
        if not chosen:
            idle.append(name)
            continue
        version, notes = _choose_version(name, n, spec, chosen, versions[name], file=file)
        planned[name] = PlannedScaffold(name, spec, n, version, notes)
    covered = {i.id for _, _, chosen in runs.values() for i in chosen}
    skipped = [Skipped(i.id, _skip_reason(i, versions)) for i in instances if i.id not in covered]
    trials = [
        Trial(
            rollout=rollout.metadata.name,
            model=model.name,
            scaffold=name,
            instance=instance.id,
            repeat=repeat,
        )
        for model in rollout.spec.models
        for name in planned
        for instance in runs[name][2]
        for repeat in range(rollout.spec.repeats)
    ]
    if not trials:
        reasons = Counter(s.reason for s in skipped)
        why = "; ".join(
            f"{_count(count, 'instance')}: {reason}" for reason, count in reasons.most_common(3)
        )
        raise SpecError(
            f"the rollout plans no trial: every instance is skipped ({why})",
            file=file,
            field="spec.scaffolds",
        )
    return TrialPlan(trials=trials, scaffolds=planned, skipped=skipped, idle=idle)


def image_only_problem(instances: Sequence[Instance], plan: TrialPlan) -> str | None:
    """Why a local run cannot start, if planned instances have only a container image.

    ``None`` when every planned instance has a workspace a local run can copy.
    """
    planned = set(plan.instances_run())
    images = [i for i in instances if i.id in planned and i.workspace.image_only]
    if not images:
        return None
    count = len(images)
    first = ", ".join(i.id for i in images[:3]) + (" …" if count > 3 else "")
    return (
        f"{count} of the {len(planned)} planned instance{'s' if len(planned) != 1 else ''} "
        f"give their workspace only as a container image ({first}); a local run needs "
        "files. Either supply the workspaces as files (OctoBench: the Benchmark option "
        "'workspaces', a directory with one sub-directory per instance id, or a 'workspace' "
        "field on the instance line), or run the rollout on a cluster (adhere's operator)"
    )
