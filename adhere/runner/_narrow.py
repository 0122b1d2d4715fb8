"""``adhere run --limit/--model/--scaffold/--parallelism``: run part of a plan, or wider.

The overrides apply to a prepared run (:func:`narrow`), after the plan, the
fingerprints and the reuse check, so none of them is part of any trial's config
fingerprint (:mod:`adhere.runner._fingerprint`), and rightly:

- ``--limit N``, ``--model NAME``, ``--scaffold NAME`` choose *which* planned trials run
  now; each trial's outcome depends on its endpoint, scaffold, instance and suite,
  not on which other trials ran beside it. A filtered run stores the trials it ran
  under the same ids and fingerprints as the whole plan would; the same command
  without the filter then skips them and runs the rest, and the report reads whatever
  the store holds (a filtered run's report covers the trials run so far).
- ``--parallelism N`` changes how many trials run at once, never what one does.

The store keeps the spec as written (the overrides are not written into its snapshot).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from adhere.errors import SpecError
from adhere.runner._run import Prepared

__all__ = ["narrow"]


def _unknown(option: str, given: Sequence[str], known: Sequence[str]) -> None:
    missing = [name for name in given if name not in known]
    if missing:
        raise SpecError(
            f"no {option} named {', '.join(repr(m) for m in missing)} in this run "
            f"(it has: {', '.join(known) or 'none'})",
            field=f"--{option}",
        )


def narrow(
    prepared: Prepared,
    *,
    limit: int | None = None,
    models: Sequence[str] = (),
    scaffolds: Sequence[str] = (),
    parallelism: int | None = None,
) -> Prepared:
    """The prepared run with only the chosen trials, and its parallelism overridden.

    Args:
        prepared: The whole plan, prepared.
        limit: Keep the trials of the first ``limit`` instances the plan runs.
        models: Keep these models' trials (empty: every model).
        scaffolds: Keep these scaffolds' trials (empty: every scaffold).
        parallelism: Trials at once, instead of the Rollout's ``parallelism``.

    Raises:
        SpecError: A name the run does not have, or a limit or parallelism below 1.
    """
    if limit is not None and limit < 1:
        raise SpecError("--limit must be at least 1", field="--limit")
    if parallelism is not None and parallelism < 1:
        raise SpecError("--parallelism must be at least 1", field="--parallelism")
    spec = prepared.config.rollout.spec
    _unknown("model", models, [m.name for m in spec.models])
    _unknown("scaffold", scaffolds, list(prepared.plan.scaffolds))
    trials = prepared.trials
    if models:
        trials = [t for t in trials if t.model in models]
    if scaffolds:
        trials = [t for t in trials if t.scaffold in scaffolds]
    if limit is not None:
        first = list(dict.fromkeys(t.instance for t in trials))[:limit]
        trials = [t for t in trials if t.instance in set(first)]
    kept_models = [m for m in spec.models if not models or m.name in models]
    update: dict[str, object] = {"models": kept_models}
    if parallelism is not None:
        update["parallelism"] = parallelism
    rollout = prepared.config.rollout.model_copy(update={"spec": spec.model_copy(update=update)})
    return dataclasses.replace(
        prepared,
        config=dataclasses.replace(prepared.config, rollout=rollout),
        trials=trials,
        scaffolds={
            name: s for name, s in prepared.scaffolds.items() if not scaffolds or name in scaffolds
        },
    )
