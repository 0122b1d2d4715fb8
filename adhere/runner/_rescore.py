"""``adhere score RUN``: decide the checks of a stored rollout again.

Reads the rollout's own snapshot (``rollout.yaml`` with its Benchmark and
JudgePanel, ``instances.jsonl``), starts the model providers its judges name (e.g.
``scripted``, the scripted policy server, a test double), and runs the scoring pass.
Judge verdicts come from the verdict cache when nothing changed, so re-scoring an
unchanged rollout makes no judge call. ``--panel FILE`` scores with another JudgePanel.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AsyncExitStack
from pathlib import Path

from adhere.artifacts import INSTANCES, SPECS, RolloutStore, StoreVerdictCache, open_rollout
from adhere.core import Instance
from adhere.errors import SpecError
from adhere.runner._run import judge_endpoints, serve_judges
from adhere.scoring import Scorer, ScoreSummary, score_rollout
from adhere.spec import JudgePanel, load_resources, parse_resource
from adhere.suites import get_suite


def stored_panel(store: RolloutStore) -> JudgePanel | None:
    """The JudgePanel the rollout was run with (from its spec snapshot)."""
    where = store.where(SPECS)
    for index, document in enumerate(store.read_specs()):
        resource = parse_resource(document, file=where, index=index)
        if isinstance(resource, JudgePanel):
            return resource
    return None


def _check_instances(store: RolloutStore, instances: Mapping[str, Instance]) -> None:
    """Refuse a rollout with trials of instances it does not hold (nothing to score them by)."""
    missing = sorted(
        {stored.result.trial.instance for stored in store.iter_trials()} - set(instances)
    )
    if missing:
        raise SpecError(
            f"{len(missing)} trial instance(s) are not in the rollout's instances: "
            f"{', '.join(missing[:5])}; a log imported without --benchmark cannot be "
            "scored (import it again with --benchmark FILE)",
            file=store.where(INSTANCES),
        )


async def rescore(
    run: str | Path | RolloutStore,
    *,
    panel_file: str | Path | None = None,
    scorer: Scorer = score_rollout,
) -> ScoreSummary:
    """Score every finished trial of a stored rollout again (in-process by default).

    ``run``: the rollout's store, or its directory, ``file://`` or ``s3://`` URI.
    """
    store = run if isinstance(run, RolloutStore) else open_rollout(run)
    panel = stored_panel(store)
    if panel_file is not None:
        panels = [r for r in load_resources(panel_file) if isinstance(r, JudgePanel)]
        if len(panels) != 1:
            raise SpecError("expected exactly one JudgePanel", file=str(panel_file))
        panel = panels[0]
    instances = {i.id: i for i in store.read_instances()}
    _check_instances(store, instances)
    async with AsyncExitStack() as stack:
        served = await serve_judges(stack, panel)
        return await scorer(
            store,
            instances,
            get_suite,
            panel=panel,
            judge_endpoints=judge_endpoints(panel, served),
            cache=StoreVerdictCache(store.store),
        )
