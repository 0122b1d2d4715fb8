"""Planning: instances after filters, and the trials of a rollout."""

from __future__ import annotations

from collections.abc import Sequence

from adhere.core import Instance, Trial
from adhere.errors import SpecError
from adhere.spec import Filters, Rollout


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


def plan_trials(rollout: Rollout, instances: Sequence[Instance]) -> list[Trial]:
    """Every trial of the rollout: models × scaffolds × instances × repeats."""
    return [
        Trial(
            rollout=rollout.metadata.name,
            model=model.name,
            scaffold=scaffold.name,
            instance=instance.id,
            repeat=repeat,
        )
        for model in rollout.spec.models
        for scaffold in rollout.spec.scaffolds
        for instance in instances
        for repeat in range(rollout.spec.repeats)
    ]
