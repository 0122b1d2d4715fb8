"""One trial, or one scoring pass, of a rollout stored at a URI (the cluster's entrypoints).

The operator writes a rollout's spec snapshot (``rollout.yaml``) and resolved
instances (``instances.jsonl``) to the store, then starts one Job per trial running
``adhere trial run --rollout-uri URI --trial ID --attempt N``. That command reads the
snapshot back, finds the trial among the planned ones by its stable id and runs it
with the local :class:`~adhere.runner.Engine`, writing the same artifacts as
``adhere run`` (result last).

Model calls go through a recording proxy either way:

- ``--proxy-url URL --calls-dir DIR``: a proxy already running beside the trial (the
  pod's sidecar, which alone holds the API key) records into ``DIR/<trial>/calls.jsonl``;
- otherwise the command starts the proxy (and the model provider a ``baseUrl`` such
  as ``scripted`` names, see :mod:`adhere.models`) in its own process, as
  ``adhere run`` does.

Instance images: a pod that runs in the instance's own image (see
:mod:`adhere.operator`) has the workspace in place at the instance's
``workspace_abs_path`` (copied there from the image by ``adhere trial
copy-workspace``) and names it in ``$ADHERE_WORKSPACE_DIR``; the trial then runs in
that directory as it is instead of writing the stored files into a fresh one.

Attempts: a trial whose stored result is ``ok`` is not run again. Files of an earlier
attempt (a stored error, an interrupted attempt, or the leftovers of a killed pod)
move to ``attempt-<n>/`` first, numbered as :mod:`adhere.runner._resume` says, so
every attempt's artifacts are kept and none is overwritten.

``adhere trial score --rollout-uri URI`` scores the finished trials of a stored
rollout (in-process or on Ray): the entrypoint of the operator's scoring RayJob.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import aiohttp

from adhere.artifacts import SPECS, ProxyCall, RolloutStore, StoreVerdictCache
from adhere.core import Instance, Trial, TrialResult
from adhere.errors import SpecError, StoreError
from adhere.models import provider_for
from adhere.observe import DEFAULT_SETTLE_SECONDS, JsonlDirSink, Redactor
from adhere.runner._attempts import start_attempt
from adhere.runner._check import plan_rollout, suite_lookup
from adhere.runner._engine import Engine, ModelTarget
from adhere.runner._pairing import client_api
from adhere.runner._plan import apply_filters
from adhere.runner._reuse import plan_fingerprints
from adhere.runner._run import (
    Prepared,
    check_sandbox,
    judge_endpoints,
    run_services,
    sandbox_limits,
    serve_judges,
)
from adhere.runner._workspace import default_work_root, in_place_workspace
from adhere.scaffolds import default_cache_dir
from adhere.scoring import Scorer, ScoreSummary, score_rollout
from adhere.spec import Benchmark, Endpoint, JudgePanel, Rollout, RunConfig, parse_resource
from adhere.store import open_store
from adhere.suites import Suite, get_suite

PROXY_WAIT_SECONDS = 60.0
"""How long ``trial run`` waits for a sidecar proxy to answer ``/healthz``."""


def open_rollout_uri(uri: str, *, base_dir: str | Path | None = None) -> RolloutStore:
    """The rollout store at ``<store URI>/<rollout>`` (as :attr:`RolloutStore.uri` gives)."""
    head, sep, rollout = uri.rstrip("/").rpartition("/")
    if not sep or not rollout or head.endswith(":/"):
        raise SpecError(
            f"expected <store URI>/<rollout>, e.g. s3://bucket/runs/my-rollout, got {uri!r}",
            field="--rollout-uri",
        )
    return RolloutStore(open_store(head, base_dir=base_dir), rollout)


def stored_config(store: RolloutStore, *, base_dir: Path | None = None) -> RunConfig:
    """The Rollout, Benchmark and JudgePanel of a rollout's spec snapshot."""
    where = store.where(SPECS)
    try:
        documents = store.read_specs()
    except StoreError as exc:
        raise SpecError(f"no spec snapshot: {exc}", file=where) from None
    found: dict[str, Any] = {}
    for index, document in enumerate(documents):
        if document is not None:
            resource = parse_resource(document, file=where, index=index)
            found.setdefault(resource.kind, resource)
    rollout, benchmark = found.get("Rollout"), found.get("Benchmark")
    if not isinstance(rollout, Rollout) or not isinstance(benchmark, Benchmark):
        raise SpecError("the snapshot needs a Rollout and a Benchmark", file=where)
    panel = found.get("JudgePanel")
    return RunConfig(
        rollout=rollout,
        benchmark=benchmark,
        judge_panel=panel if isinstance(panel, JudgePanel) else None,
        base_dir=base_dir or Path.cwd(),
        files={f"{k}/{r.metadata.name}": where for k, r in found.items()},
    )


def prepare_rollout(config: RunConfig, *, store_uri: str, secrets: Sequence[str]) -> Prepared:
    """Like :func:`~adhere.runner.prepare`, for a caller that holds the keys (the operator).

    Resolves and filters the instances, checks the scaffolds, plans the trials and
    writes the spec snapshot and the instances (with ``secrets`` redacted) to the
    rollout's store at ``store_uri``.
    """
    suite = suite_lookup(config)
    bench_file = config.files.get(f"Benchmark/{config.benchmark.metadata.name}", "")
    instances = suite.load(config.benchmark.spec, base_dir=config.base_dir, file=bench_file)
    instances = apply_filters(instances, config.benchmark.spec.filters, file=bench_file)
    plan, scaffolds = plan_rollout(config, instances)
    store = RolloutStore(
        open_store(store_uri, base_dir=config.base_dir), config.rollout.metadata.name
    )
    store.write_specs(
        [
            r.model_dump(mode="json", by_alias=True, exclude_none=True)
            for r in (config.rollout, config.benchmark, config.judge_panel)
            if r is not None
        ]
    )
    redactor = Redactor(list(secrets))
    store.write_instances(
        Instance.model_validate(redactor.value(i.model_dump(mode="json"))) for i in instances
    )
    return Prepared(config, suite, instances, plan.trials, store, scaffolds, plan)


class DirCalls:
    """The engine's view of a sidecar proxy: its URL, and the call log it writes.

    The proxy records a call when it ends, which may be after the client has its
    answer. So :meth:`take` first settles the trial with the proxy
    (``POST /trials/<trial>/settle``): the proxy waits until none of the trial's
    calls is in flight (ending those that outlive ``settle_seconds``) and answers how
    many calls the trial started; then :meth:`take` reads the call log until it holds
    that many records (at most ``read_seconds``). A proxy without that endpoint (an
    older sidecar image) gets the old wait: until the records' sequence numbers are
    contiguous and their count has stopped changing.

    Args:
        proxy_url: The sidecar's base URL.
        calls_dir: Where it writes ``<trial>/calls.jsonl``.
        settle_seconds: Grace the proxy gives calls still in flight.
        read_seconds: How long to wait for the records the proxy announced.
    """

    def __init__(
        self,
        proxy_url: str,
        calls_dir: Path,
        *,
        settle_seconds: float = DEFAULT_SETTLE_SECONDS,
        read_seconds: float = 5.0,
    ) -> None:
        self.proxy_url = proxy_url.rstrip("/")
        self.sink = JsonlDirSink(calls_dir)
        self.settle_seconds = settle_seconds
        self.read_seconds = read_seconds

    def trial_base_url(self, trial_id: str, upstream: str) -> str:
        """Root URL through the proxy for this trial and upstream."""
        return f"{self.proxy_url}/t/{trial_id}/{upstream}"

    async def take(self, trial_id: str, grace: float | None = None) -> list[ProxyCall]:
        """The trial's records once all are written, in ``seq`` order."""
        expected = await self._settle(trial_id, self.settle_seconds if grace is None else grace)
        deadline = time.monotonic() + self.read_seconds
        seen = -1
        while True:
            records = self.sink.read(trial_id)
            if expected is not None:
                done = len(records) >= expected
            else:
                contiguous = [r.seq for r in records] == list(range(len(records)))
                done = contiguous and len(records) == seen
            if done or time.monotonic() >= deadline:
                return records
            seen = len(records)
            await asyncio.sleep(0.1)

    async def _settle(self, trial_id: str, grace: float) -> int | None:
        """How many calls the trial started, once none is in flight; ``None``: unknown."""
        url = f"{self.proxy_url}/trials/{trial_id}/settle"
        limit = aiohttp.ClientTimeout(total=grace + 30)
        try:
            async with aiohttp.ClientSession() as session:
                async with session.post(
                    url, params={"grace": f"{grace:g}"}, timeout=limit
                ) as response:
                    if response.status != 200:
                        return None
                    answer = await response.json()
        except (aiohttp.ClientError, TimeoutError, ValueError):
            return None
        calls = answer.get("calls") if isinstance(answer, dict) else None
        return calls if isinstance(calls, int) and not isinstance(calls, bool) else None


async def wait_for_proxy(url: str, timeout: float = PROXY_WAIT_SECONDS) -> None:
    """Wait until the proxy at ``url`` answers ``/healthz`` (a sidecar may start late)."""
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as session:
        while True:
            try:
                async with session.get(
                    f"{url.rstrip('/')}/healthz", timeout=aiohttp.ClientTimeout(total=2)
                ) as response:
                    if response.status == 200:
                        return
            except (aiohttp.ClientError, TimeoutError):
                pass
            if time.monotonic() >= deadline:
                raise SpecError(
                    f"the recording proxy at {url} did not answer within {timeout:.0f}s",
                    field="--proxy-url",
                )
            await asyncio.sleep(0.2)


def _find_trial(trials: Sequence[Trial], trial_id: str, where: str) -> Trial:
    for trial in trials:
        if trial.id == trial_id:
            return trial
    raise SpecError(f"no planned trial has id {trial_id!r}", file=where, field="--trial")


def _start_attempt(store: RolloutStore, trial: Trial, attempt: int | None) -> int | None:
    """Archive an earlier attempt's files; the attempt to run (None: already ok).

    The number is ``attempt`` (the operator's count) unless the store holds that one
    or a later one already: an archived attempt is never overwritten.
    """
    decision = start_attempt(store, trial, None)
    if decision.attempt is None:
        return None
    return max(attempt or 1, decision.attempt)


async def run_stored_trial(
    rollout_uri: str,
    trial_id: str,
    *,
    attempt: int | None = None,
    proxy_url: str | None = None,
    calls_dir: Path | None = None,
    sandbox: bool | None = None,
) -> TrialResult:
    """Run one trial of the rollout stored at ``rollout_uri`` (see the module doc).

    ``sandbox``: run an agent CLI in the agent sandbox; ``None`` follows the Rollout's
    ``sandbox`` (and checks it can be made here, raising ``SandboxUnavailable``), false
    runs it without (an operator's pod, which is the sandbox there).
    """
    store = open_rollout_uri(rollout_uri)
    config = stored_config(store)
    instances = store.read_instances()
    plan, scaffolds = plan_rollout(config, instances)
    trial = _find_trial(plan.trials, trial_id, store.where(SPECS))
    model = next(m for m in config.rollout.spec.models if m.name == trial.model)
    # Only this trial's model: other models' keys are not in this pod.
    spec = config.rollout.spec.model_copy(update={"models": [model]})
    config = RunConfig(
        rollout=config.rollout.model_copy(update={"spec": spec}),
        benchmark=config.benchmark,
        judge_panel=None,
        base_dir=config.base_dir,
        files=config.files,
    )
    suite = suite_lookup(config)
    # The result records the config it ran under, as a local run's does.
    fingerprints = plan_fingerprints(config, instances, [trial], scaffolds, plan)
    prepared = Prepared(
        config, suite, instances, [trial], store, scaffolds, plan, fingerprints=fingerprints
    )
    number = _start_attempt(store, trial, attempt)
    if number is None:
        result = store.read_result(trial)
        assert result is not None
        return result
    sandboxed = check_sandbox(prepared) if sandbox is None else sandbox
    cache_dir = default_cache_dir()
    await scaffolds[trial.scaffold].install(cache_dir)

    def engine(calls: Any, targets: dict[str, ModelTarget], secrets: list[str]) -> Engine:
        return Engine(
            store=store,
            instances=instances,
            suite_for=lambda name: suite if name == suite.name else get_suite(name),
            scaffolds=scaffolds,
            timeouts=plan.timeouts(),
            models=targets,
            calls=calls,
            work_root=Path(os.environ.get("ADHERE_WORK_DIR") or default_work_root()),
            cache_dir=cache_dir,
            parallelism=1,
            secrets=secrets,
            fingerprints=fingerprints,
            workspace_dir=in_place_workspace(),
            sandbox=sandboxed,
            sandbox_limits=sandbox_limits(prepared),
        )

    if proxy_url is not None:
        served_by = provider_for(model.endpoint)
        if served_by is not None and served_by.pod == "in-process":
            raise SpecError(
                f"a {model.endpoint.base_url} model is served in-process: run without --proxy-url",
                field="--proxy-url",
            )
        await wait_for_proxy(proxy_url)
        target = ModelTarget(
            upstream=model.name,
            model=model.endpoint.model,
            api=client_api(model.endpoint),
            stream=model.endpoint.stream,
            max_tokens=model.endpoint.max_tokens,
            temperature=model.endpoint.temperature,
        )
        calls = DirCalls(proxy_url, calls_dir or Path("/calls"))
        return await engine(calls, {model.name: target}, []).run_trial(trial, number)
    async with run_services(prepared) as (proxy_calls, targets):
        return await engine(proxy_calls, targets, proxy_calls.secrets).run_trial(trial, number)


async def score_stored(
    store: RolloutStore,
    *,
    scorer: Scorer = score_rollout,
    endpoint_for: Callable[[str, Endpoint], Endpoint] | None = None,
) -> ScoreSummary:
    """Score every finished trial of a stored rollout with its stored JudgePanel.

    Args:
        store: The rollout's store.
        scorer: The in-process pass (default) or the Ray one.
        endpoint_for: Rewrites a judge's endpoint (name, endpoint) before use, e.g.
            to hand it a key the caller read from a Kubernetes Secret.
    """
    config = stored_config(store)
    panel = config.judge_panel
    suite: Suite = suite_lookup(config)
    instances = {i.id: i for i in store.read_instances()}
    async with AsyncExitStack() as stack:
        endpoints = judge_endpoints(panel, await serve_judges(stack, panel))
        if endpoint_for is not None:
            endpoints = {name: endpoint_for(name, e) for name, e in endpoints.items()}
        return await scorer(
            store,
            instances,
            lambda name: suite if name == suite.name else get_suite(name),
            panel=panel,
            judge_endpoints=endpoints,
            cache=StoreVerdictCache(store.store),
            parallelism=config.rollout.spec.parallelism,
        )
