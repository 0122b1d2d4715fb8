"""``adhere run``: from a RunConfig to finished trials in the store.

A run starts, in its own event loop: the model providers its models' and judges'
``baseUrl`` values name (e.g. ``scripted``, the scripted policy server, a test double;
see :mod:`adhere.models`), and always the recording proxy, which every scaffold's
model calls go through (one upstream per model). They bind to 127.0.0.1 and stop when
the run ends.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from adhere.artifacts import ProxyCall, RolloutStore, StoreVerdictCache
from adhere.core import Instance, Trial
from adhere.models import Served, provider_for, resolve_api_key, serve_providers
from adhere.observe import (
    DEFAULT_SETTLE_SECONDS,
    MemorySink,
    ProxyConfig,
    RecordingProxy,
    Redactor,
    Upstream,
)
from adhere.runner._check import check_run
from adhere.runner._engine import Engine, ModelTarget
from adhere.runner._faults import RETRY_BACKOFF_SECONDS
from adhere.runner._fingerprint import Fingerprint
from adhere.runner._pairing import client_api, upstream_for
from adhere.runner._plan import TrialPlan
from adhere.runner._preflight import preflight
from adhere.runner._progress import StoreProgress
from adhere.runner._reuse import ReuseCheck, check_reuse, plan_fingerprints
from adhere.runner._summary import Progress, RunSummary
from adhere.runner._workspace import default_work_root
from adhere.scaffolds import (
    SandboxLimits,
    Scaffold,
    check_agent_sandbox,
    default_cache_dir,
    runs_in_sandbox,
)
from adhere.scoring import Scorer, score_rollout
from adhere.spec import Endpoint, JudgePanel, RunConfig
from adhere.store import FileStore, open_store
from adhere.suites import Suite, get_suite

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Prepared:
    """A rollout resolved into instances, scaffolds and planned trials."""

    config: RunConfig
    suite: Suite
    instances: list[Instance]
    trials: list[Trial]
    store: RolloutStore
    scaffolds: dict[str, Scaffold]
    plan: TrialPlan
    fingerprints: dict[str, Fingerprint] = field(default_factory=dict)
    """Trial id → the config it runs under (stored with its result)."""
    reuse: ReuseCheck = field(default_factory=ReuseCheck)
    """Finished trials whose config changed (run again) or is unknown (reused)."""


def prepare(config: RunConfig, *, rerun_changed: bool = False) -> Prepared:
    """Check the specs (:func:`check_run`), then open the store and write the spec snapshot.

    Raises:
        SpecError: Invalid specs, or finished trials ran under a different config
            (see :func:`~adhere.runner._reuse.check_reuse`) and ``rerun_changed`` is
            false.
    """
    checked = check_run(config)
    instances = checked.instances
    trials = checked.trials
    store = RolloutStore(
        open_store(config.rollout.spec.storage, base_dir=config.base_dir),
        config.rollout.metadata.name,
    )
    fingerprints = plan_fingerprints(config, instances, trials, checked.scaffolds, checked.plan)
    reuse = check_reuse(store, config, trials, fingerprints, rerun_changed=rerun_changed)
    documents = [
        r.model_dump(mode="json", by_alias=True, exclude_none=True)
        for r in (config.rollout, config.benchmark, config.judge_panel)
        if r is not None
    ]
    store.write_specs(documents)
    # A workspace file holding a live key (it happens) must not land in the results.
    redactor = Redactor(model_secrets(config))
    store.write_instances(
        Instance.model_validate(redactor.value(i.model_dump(mode="json"))) for i in instances
    )
    return Prepared(
        config=config,
        suite=checked.suite,
        instances=instances,
        trials=trials,
        store=store,
        scaffolds=checked.scaffolds,
        plan=checked.plan,
        fingerprints=fingerprints,
        reuse=reuse,
    )


def check_sandbox(prepared: Prepared) -> bool:
    """Whether agent CLI turns run in the agent sandbox; checks that it works here.

    Raises:
        SandboxUnavailable: The Rollout leaves ``sandbox`` on, it runs an agent CLI,
            and bubblewrap or socat is missing or cannot make namespaces on this host.
    """
    if prepared.config.rollout.spec.sandbox == "off":
        return False
    if any(runs_in_sandbox(s) for s in prepared.scaffolds.values()):
        check_agent_sandbox()
    return True


def sandbox_limits(prepared: Prepared) -> SandboxLimits:
    """The Rollout's ``sandboxLimits`` as the scaffolds take them."""
    spec = prepared.config.rollout.spec.sandbox_limits
    return SandboxLimits(
        tmp_mb=spec.tmp_mb,
        file_mb=spec.file_mb,
        growth_mb=spec.growth_mb,
        growth_files=spec.growth_files,
    )


def unconfined(prepared: Prepared) -> list[str]:
    """The agent CLI scaffolds a ``sandbox: off`` rollout runs unconfined (else none)."""
    if prepared.config.rollout.spec.sandbox == "on":
        return []
    return sorted(name for name, s in prepared.scaffolds.items() if runs_in_sandbox(s))


def clean_stale_temp_files(store: RolloutStore) -> None:
    """Remove what killed writers left in the rollout's directory (a ``file://`` store)."""
    if isinstance(store.store, FileStore):
        removed = store.store.remove_stale_temp_files(store.key(""))
        if removed:
            log.info("removed %d temporary file(s) of killed writes", len(removed))


def model_secrets(config: RunConfig) -> list[str]:
    """The API keys of the rollout's real endpoints (read now from env vars or files)."""
    keys = []
    for m in config.rollout.spec.models:
        key = model_key(m.endpoint)
        if key:
            keys.append(key)
    return keys


def model_key(endpoint: Endpoint) -> str | None:
    """The endpoint's API key, unless its provider's endpoints hold no real key."""
    served_by = provider_for(endpoint)
    if served_by is not None and not served_by.holds_api_key:
        return None
    return resolve_api_key(endpoint.api_key)


def judge_endpoints(panel: JudgePanel | None, served: Served) -> dict[str, Endpoint]:
    """The panel's judge endpoints, those of providers resolved through ``served``."""
    if panel is None:
        return {}
    return {j.name: served.resolve(j.endpoint, role="judge") for j in panel.spec.judges}


async def serve_judges(stack: AsyncExitStack, panel: JudgePanel | None) -> Served:
    """Start the providers the panel's judges name (no instances); they stop with ``stack``."""
    judges = [j.endpoint for j in panel.spec.judges] if panel is not None else []
    return await serve_providers(stack, judges=judges)


class ProxyCalls:
    """The engine's view of the proxy: trial URLs and the records of each trial.

    Args:
        settle_seconds: How long :meth:`take` waits for a trial's calls still in
            flight before the proxy ends them (see :meth:`RecordingProxy.settle`).
    """

    def __init__(
        self,
        proxy: RecordingProxy,
        sink: MemorySink,
        secrets: list[str],
        served: Served,
        *,
        settle_seconds: float = DEFAULT_SETTLE_SECONDS,
    ) -> None:
        self.proxy = proxy
        self.sink = sink
        self.secrets = secrets
        self.served = served
        self.settle_seconds = settle_seconds

    def trial_base_url(self, trial_id: str, upstream: str) -> str:
        """The URL a trial's scaffold calls for ``upstream`` (the proxy's trial prefix)."""
        return self.proxy.trial_base_url(trial_id, upstream)

    async def take(self, trial_id: str, grace: float | None = None) -> list[ProxyCall]:
        """The trial's call records once all are in, removed from the proxy's memory."""
        await self.proxy.settle(trial_id, self.settle_seconds if grace is None else grace)
        return self.sink.take(trial_id)


@asynccontextmanager
async def run_services(
    prepared: Prepared,
) -> AsyncIterator[tuple[ProxyCalls, dict[str, ModelTarget]]]:
    """Start the model providers the run uses, then the recording proxy."""
    models = prepared.config.rollout.spec.models
    panel = prepared.config.judge_panel
    async with AsyncExitStack() as stack:
        cached = cache(get_suite)
        suites = {prepared.suite.name: prepared.suite}
        served = await serve_providers(
            stack,
            models=[m.endpoint for m in models],
            judges=[j.endpoint for j in panel.spec.judges] if panel is not None else [],
            instances=prepared.instances,
            suite_for=lambda n: suites.get(n) or cached(n),
            base_dir=prepared.config.base_dir,
        )
        upstreams: dict[str, Upstream] = {}
        targets: dict[str, ModelTarget] = {}
        secrets: list[str] = []
        for m in models:
            key = model_key(m.endpoint)
            if key:
                secrets.append(key)
            upstreams[m.name] = upstream_for(
                m.name, m.endpoint, served.resolve(m.endpoint).base_url, key
            )
            targets[m.name] = ModelTarget(
                upstream=m.name,
                model=m.endpoint.model,
                api=client_api(m.endpoint),
                stream=m.endpoint.stream,
                max_tokens=m.endpoint.max_tokens,
                temperature=m.endpoint.temperature,
                max_retries=m.endpoint.limits.max_retries,
                backoff_base_seconds=m.endpoint.limits.backoff_base_seconds,
            )
        sink = MemorySink()
        proxy = RecordingProxy(ProxyConfig(upstreams=upstreams, sink=sink, secrets=secrets))
        await proxy.start()
        stack.push_async_callback(proxy.stop)
        yield ProxyCalls(proxy, sink, secrets, served), targets


async def execute(
    prepared: Prepared,
    *,
    progress: Progress | None = None,
    scorer: Scorer = score_rollout,
    retry_backoff_seconds: float = RETRY_BACKOFF_SECONDS,
    check_endpoints: bool = False,
    fail_fast: bool = False,
) -> RunSummary:
    """Run the prepared trials (skipping finished ones), score them with ``scorer``.

    A trial that ends as an upstream fault is run again, up to the Rollout's
    ``maxRetries`` times, ``retry_backoff_seconds`` after the first (doubling).
    With ``check_endpoints`` every endpoint is probed first, once the providers are up
    (:func:`~adhere.runner._preflight.preflight`, raises ``PreflightError``); with
    ``fail_fast`` the first trial that fails stops the run (``summary.stopped``).
    """
    cache_dir = default_cache_dir()
    sandbox = check_sandbox(prepared)  # before anything starts: a clear error, at once
    clean_stale_temp_files(prepared.store)
    # progress.json in the store: what `adhere exporter` reports as trials running.
    tracked = StoreProgress(prepared.store, prepared.config.rollout.spec.parallelism, progress)
    async with run_services(prepared) as (calls, targets):
        if check_endpoints:  # before the installs: a dead endpoint stops the run at once
            await preflight(prepared.config, calls.served)
        for scaffold in prepared.scaffolds.values():
            await scaffold.install(cache_dir)
        engine = Engine(
            store=prepared.store,
            instances=prepared.instances,
            suite_for=lambda name: prepared.suite
            if name == prepared.suite.name
            else get_suite(name),
            scaffolds=prepared.scaffolds,
            timeouts=prepared.plan.timeouts(),
            models=targets,
            calls=calls,
            work_root=Path(os.environ.get("ADHERE_WORK_DIR") or default_work_root()),
            cache_dir=cache_dir,
            parallelism=prepared.config.rollout.spec.parallelism,
            progress=tracked,
            secrets=calls.secrets,
            max_retries=prepared.config.rollout.spec.max_retries,
            retry_backoff_seconds=retry_backoff_seconds,
            fingerprints=prepared.fingerprints,
            fail_fast=fail_fast,
            sandbox=sandbox,
            sandbox_limits=sandbox_limits(prepared),
        )
        try:
            summary = await engine.run(prepared.trials)
            tracked.write("scoring", force=True)
            panel = prepared.config.judge_panel
            summary.scoring = await scorer(
                prepared.store,
                {i.id: i for i in prepared.instances},
                lambda name: prepared.suite if name == prepared.suite.name else get_suite(name),
                panel=panel,
                judge_endpoints=judge_endpoints(panel, calls.served),
                cache=StoreVerdictCache(prepared.store.store),
                parallelism=prepared.config.rollout.spec.parallelism,
            )
        except asyncio.CancelledError:  # stopped: no trial is running any more
            tracked.interrupted(engine.interrupted)
            raise
        tracked.write("finished", force=True)
        return summary
