"""Scoring a finished rollout from the operator: in process, on a Ray cluster, or a RayJob.

- ``InProcess`` (the default on a laptop and in tests): the scoring pass of
  ``adhere score`` (:func:`adhere.runner._scoring.score_rollout`) in a thread of the
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
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from adhere.metrics import rates
from adhere.runner._results import collect
from adhere.runner._scoring import Scorer, score_rollout
from adhere.runner._trial import score_stored, stored_config
from adhere.spec import Endpoint, SecretSource, Summary
from adhere.store import RolloutStore


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
