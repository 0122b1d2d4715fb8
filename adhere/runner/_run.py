"""``adhere run``: from a RunConfig to finished trials in the store."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from adhere.models import ModelClient
from adhere.models.policy import PolicyServer, PolicyServerConfig, parse_model_string
from adhere.runner._answer_key import InstanceAnswerKey
from adhere.runner._config import RunConfig
from adhere.runner._engine import Engine, Progress, RunSummary, build_clients, build_scaffolds
from adhere.runner._plan import apply_filters, plan_trials
from adhere.runner._replay import RecordedRun, RecordedRuns
from adhere.spec import Endpoint, Instance, Trial
from adhere.store import RolloutStore, open_store
from adhere.suites import Suite, get_suite

SCRIPTED = "scripted"
"""``baseUrl`` value meaning: the scripted policy server this run starts for itself."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Prepared:
    """A rollout resolved into instances and planned trials."""

    config: RunConfig
    suite: Suite
    instances: list[Instance]
    trials: list[Trial]
    store: RolloutStore


def suite_lookup(config: RunConfig) -> Suite:
    """The Benchmark's suite with its options."""
    bench_file = config.files.get(f"Benchmark/{config.benchmark.metadata.name}", "")
    from adhere.errors import SpecError

    try:
        return get_suite(config.benchmark.spec.suite, **config.benchmark.spec.options)
    except SpecError as exc:
        raise SpecError(str(exc).split(": ", 1)[-1], file=bench_file, field=exc.field) from None


def prepare(config: RunConfig) -> Prepared:
    """Resolve instances, plan trials and open the store (writes the spec snapshot)."""
    suite = suite_lookup(config)
    bench_file = config.files.get(f"Benchmark/{config.benchmark.metadata.name}", "")
    instances = suite.load(config.benchmark.spec, base_dir=config.base_dir, file=bench_file)
    instances = apply_filters(instances, config.benchmark.spec.filters, file=bench_file)
    trials = plan_trials(config.rollout, instances)
    store = RolloutStore(
        open_store(config.rollout.spec.storage, base_dir=config.base_dir),
        config.rollout.metadata.name,
    )
    documents = [
        config.rollout.model_dump(mode="json", by_alias=True, exclude_none=True),
        config.benchmark.model_dump(mode="json", by_alias=True, exclude_none=True),
    ]
    if config.judge_panel is not None:
        documents.append(
            config.judge_panel.model_dump(mode="json", by_alias=True, exclude_none=True)
        )
    store.write_specs(documents)
    store.write_instances(instances)
    return Prepared(config=config, suite=suite, instances=instances, trials=trials, store=store)


@asynccontextmanager
async def _endpoints(prepared: Prepared) -> AsyncIterator[dict[str, Endpoint]]:
    """Model endpoints, starting the scripted policy server when a model asks for it."""
    models = {m.name: m.endpoint for m in prepared.config.rollout.spec.models}
    if not any(e.base_url == SCRIPTED for e in models.values()):
        yield models
        return
    cached = cache(lambda name: get_suite(name))
    suites = {prepared.suite.name: prepared.suite}
    key = InstanceAnswerKey(prepared.instances, lambda n: suites.get(n) or cached(n))
    server = PolicyServer(PolicyServerConfig(answer_key=key, replay=_replay_source(prepared)))
    url = await server.start()
    log.info("scripted policy server (test double) listening on %s", url)
    try:
        yield {
            name: e.model_copy(update={"base_url": url + ("/v1" if e.api == "openai" else "")})
            if e.base_url == SCRIPTED
            else e
            for name, e in models.items()
        }
    finally:
        await server.stop()


def _replay_source(prepared: Prepared) -> RecordedRuns | None:
    """Recorded runs named by ``replay:run=PATH`` models (paths relative to the spec)."""
    runs: dict[str, RecordedRun] = {}
    for m in prepared.config.rollout.spec.models:
        if m.endpoint.base_url != SCRIPTED:
            continue
        parsed = parse_model_string(m.endpoint.model)
        run = parsed.options.get("run")
        if parsed.policy == "replay" and run and run not in runs:
            path = Path(run) if Path(run).is_absolute() else prepared.config.base_dir / run
            runs[run] = RecordedRun(path)
    return RecordedRuns(runs) if runs else None


async def execute(prepared: Prepared, *, progress: Progress | None = None) -> RunSummary:
    """Run the prepared trials (skipping finished ones) and return the summary."""
    async with _endpoints(prepared) as endpoints:
        clients: dict[str, ModelClient] = build_clients(endpoints)
        try:
            engine = Engine(
                store=prepared.store,
                instances=prepared.instances,
                suite_for=lambda name: prepared.suite
                if name == prepared.suite.name
                else get_suite(name),
                clients=clients,
                scaffolds=build_scaffolds(prepared.config.rollout.spec.scaffolds),
                parallelism=prepared.config.rollout.spec.parallelism,
                progress=progress,
            )
            return await engine.run(prepared.trials)
        finally:
            for client in clients.values():
                await client.aclose()
