"""Scoring a finished rollout from the operator: in process, on a Ray cluster, or a RayJob.

- ``InProcess`` (the default on a laptop and in tests): the scoring pass of
  ``adhere score`` (:func:`adhere.scoring._score.score_rollout`) in a thread of the
  operator with its own event loop. Judge keys held in Secrets are read through the
  API and handed to the judges' clients as files in a private temporary directory,
  removed afterwards.
- ``RayCluster`` (``rayAddress``): the same pass on Ray actor pools
  (:mod:`adhere.ray_jobs`), the operator as the driver. Judge actors read their keys
  from the variables ``ADHERE_SECRET_<NAME>_<KEY>``, which the Ray workers must have.
- ``RayJob`` (KubeRay installed): a RayJob runs ``adhere trial score`` on a Ray
  cluster of its own (see :mod:`adhere.operator._rayjob`); the operator follows it.

Whichever ran, the operator then reads ISR/CSR back from the store.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adhere.artifacts import RolloutStore
from adhere.errors import AdhereError
from adhere.metrics import rates
from adhere.operator._config import OperatorConfig
from adhere.operator._jobs import RolloutRef
from adhere.operator._kube import Kube
from adhere.operator._names import rayjob_name
from adhere.operator._planning import RolloutPlan
from adhere.operator._rayjob import RAY_GROUP, RAY_PLURAL, RAY_VERSION, build_rayjob, rayjob_state
from adhere.operator._status import ScoringView, scoring_view
from adhere.report import collect
from adhere.runner import score_stored, stored_config
from adhere.scoring import Scorer, score_rollout
from adhere.spec import Endpoint, RolloutStatus, SecretSource, Summary

log = logging.getLogger(__name__)


def summarize(store: RolloutStore) -> Summary:
    """Headline ISR and CSR of a scored rollout (blocking: reads the store)."""
    found = rates(collect(store).trials)
    return Summary(
        isr=None if found.isr is None else round(found.isr, 4),
        csr=None if found.csr is None else round(found.csr, 4),
    )


def judge_secret_refs(store: RolloutStore) -> list[tuple[str, str]]:
    """``(secret name, key)`` of the stored JudgePanel's Secret-held keys (blocking)."""
    panel = stored_config(store).judge_panel
    out = []
    for judge in panel.spec.judges if panel is not None else []:
        source = judge.endpoint.api_key
        if source is not None and source.secret_key_ref is not None:
            out.append((source.secret_key_ref.name, source.secret_key_ref.key))
    return out


def _key_files(
    directory: Path, values: Mapping[tuple[str, str], str]
) -> Callable[[str, Endpoint], Endpoint]:
    """Write each Secret value to a 0600 file; a rewriter pointing judges' keys at them."""
    paths: dict[tuple[str, str], str] = {}
    for (name, key), value in values.items():
        digest = hashlib.sha256(f"{name}\x1f{key}".encode()).hexdigest()[:16]
        path = directory / digest
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(value)
        paths[(name, key)] = str(path)

    def rewrite(_judge: str, endpoint: Endpoint) -> Endpoint:
        source = endpoint.api_key
        if source is None or source.secret_key_ref is None:
            return endpoint
        ref = source.secret_key_ref
        path = paths.get((ref.name, ref.key))
        if path is None:
            return endpoint
        return endpoint.model_copy(update={"api_key": SecretSource(file=path)})

    return rewrite


def decode(data: Mapping[str, Any] | None, key: str) -> str | None:
    """One decoded value of a Secret's ``data``."""
    raw = (data or {}).get(key)
    if not isinstance(raw, str):
        return None
    try:
        return base64.b64decode(raw).decode("utf-8").strip()
    except (ValueError, UnicodeDecodeError):
        return None


def run_scoring_blocking(
    store: RolloutStore,
    *,
    judge_keys: Mapping[tuple[str, str], str],
    ray_address: str | None = None,
    verify_actors: int = 2,
    judge_actors: int = 2,
) -> Summary:
    """Score a rollout (in process, or on the Ray cluster at ``ray_address``) and summarize.

    Blocking: runs its own event loop; call it in a thread.
    """
    scorer: Scorer = score_rollout
    if ray_address is not None:
        from adhere.ray_jobs import ray_scorer

        scorer = ray_scorer(
            address=ray_address, verify_actors=verify_actors, judge_actors=judge_actors
        )
    with tempfile.TemporaryDirectory(prefix="adhere-judge-keys-") as tmp:
        rewrite = _key_files(Path(tmp), judge_keys) if ray_address is None else None
        asyncio.run(score_stored(store, scorer=scorer, endpoint_for=rewrite))
    return summarize(store)


@dataclass
class _Pass:
    """A scoring pass of one plan of a rollout."""

    plan_id: str
    view: ScoringView
    task: asyncio.Task[Any] | None = None


class ScoringPasses:
    """The scoring passes of the operator's rollouts: started once per plan, followed.

    Args:
        kube: The API client (RayJobs, judge Secrets).
        config: The operator's settings (``scoring``, ``rayAddress`` …).
        kick: Called with (namespace, name) when an in-process pass ends.
    """

    def __init__(
        self, kube: Kube, config: OperatorConfig, kick: Callable[[str, str], None]
    ) -> None:
        self.kube = kube
        self.config = config
        self.kick = kick
        self.passes: dict[str, _Pass] = {}
        """Rollout uid → the pass of its current plan."""

    def forget(self, uid: str) -> None:
        """Stop and drop a rollout's pass (the rollout is deleted)."""
        found = self.passes.pop(uid, None)
        if found is not None and found.task is not None:
            found.task.cancel()

    def close(self) -> None:
        """Stop every pass in flight (the operator exits)."""
        for uid in list(self.passes):
            self.forget(uid)

    async def view(
        self,
        ref: RolloutRef,
        plan: RolloutPlan,
        previous: RolloutStatus,
        generation: int | None,
    ) -> ScoringView:
        """Where the scoring of a finished plan stands; starts it when it has not."""
        found = self.passes.get(ref.uid)
        view = scoring_view(
            found.view if found else None,
            found.plan_id if found else None,
            plan.plan_id,
            previous,
            generation,
        )
        if view.state == "none":
            return await self._start(ref, plan)
        if found is not None and found.plan_id == plan.plan_id and view.mode == "RayJob":
            return await self._follow_rayjob(ref, plan, found)
        return view

    async def _mode(self) -> str:
        mode = self.config.scoring
        if mode == "auto":
            if await asyncio.to_thread(self.kube.serves, RAY_GROUP, RAY_VERSION, RAY_PLURAL):
                return "RayJob"
            return "RayCluster" if self.config.ray_address else "InProcess"
        return {"rayjob": "RayJob", "ray": "RayCluster", "in-process": "InProcess"}[mode]

    async def _start(self, ref: RolloutRef, plan: RolloutPlan) -> ScoringView:
        assert plan.store is not None
        store = plan.store
        self.forget(ref.uid)
        mode = await self._mode()
        log.info("scoring rollout %s/%s (%s)", ref.namespace, ref.name, mode)
        if mode == "RayJob":
            panel = await asyncio.to_thread(lambda: stored_config(store).judge_panel)
            job = build_rayjob(ref, plan.plan_id, store.uri, panel, self.config)
            await asyncio.to_thread(self.kube.create, job, RAY_PLURAL)
            started = _Pass(plan.plan_id, ScoringView("running", mode, None, "RayJob submitted"))
            self.passes[ref.uid] = started
            return started.view
        keys: dict[tuple[str, str], str] = {}
        if mode == "InProcess":
            for name, key in await asyncio.to_thread(judge_secret_refs, store):
                data = await asyncio.to_thread(self.kube.secret_data, ref.namespace, name)
                value = decode(data, key)
                if value:
                    keys[(name, key)] = value
        address = self.config.ray_address if mode == "RayCluster" else None
        running = _Pass(plan.plan_id, ScoringView("running", mode, None, "scoring"))

        async def score() -> None:
            try:
                summary = await asyncio.to_thread(
                    run_scoring_blocking,
                    store,
                    judge_keys=keys,
                    ray_address=address,
                    verify_actors=self.config.verify_actors,
                    judge_actors=self.config.judge_actors,
                )
            except (AdhereError, ValueError, OSError) as exc:
                log.warning("scoring of %s/%s failed: %s", ref.namespace, ref.name, exc)
                running.view = ScoringView("failed", mode, None, f"{type(exc).__name__}: {exc}")
            else:
                running.view = ScoringView("succeeded", mode, summary, f"scored ({mode})")
            finally:
                self.kick(ref.namespace, ref.name)

        running.task = asyncio.create_task(score(), name=f"adhere-score-{ref.namespace}-{ref.name}")
        self.passes[ref.uid] = running
        return running.view

    async def _follow_rayjob(self, ref: RolloutRef, plan: RolloutPlan, run: _Pass) -> ScoringView:
        if run.view.state != "running":
            return run.view
        name = rayjob_name(ref.name, plan.plan_id)
        found = await asyncio.to_thread(
            self.kube.get, RAY_GROUP, RAY_VERSION, RAY_PLURAL, ref.namespace, name
        )
        if found is None:
            run.view = ScoringView("failed", "RayJob", None, f"the RayJob {name} disappeared")
            return run.view
        state, message = rayjob_state(found)
        if state == "succeeded":
            assert plan.store is not None
            summary = await asyncio.to_thread(summarize, plan.store)
            run.view = ScoringView("succeeded", "RayJob", summary, "scored (RayJob)")
        elif state == "failed":
            run.view = ScoringView("failed", "RayJob", None, message)
        else:
            run.view = ScoringView("running", "RayJob", None, message)
        return run.view
