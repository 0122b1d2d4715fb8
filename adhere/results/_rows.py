"""The rows of the four result tables, read from a rollout's store.

Everything is read through :class:`adhere.artifacts.RolloutStore` (so ``file://`` and
``s3://`` runs read alike): the finished trials with their verdicts, each judge's
verdicts, the call logs and the trajectories. Empty text is ``None`` (a CSV cannot tell
an empty string from a missing one).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from adhere.artifacts import ProxyCall, RolloutStore, StoredTrial
from adhere.core import SYSTEM_INDEX, Instance, Trial, Verdict
from adhere.wire import cached_input_tokens_of

__all__ = ["StoredRun", "call_rows", "check_rows", "message_rows", "read_run", "trial_rows"]

Row = dict[str, Any]
CALLS_FILE = "calls.jsonl"


def _text(value: str | None) -> str | None:
    return value if value else None


def _keys(trial: Trial) -> Row:
    return {
        "rollout": trial.rollout,
        "trial_id": trial.id,
        "model": trial.model,
        "scaffold": trial.scaffold,
        "instance_id": trial.instance,
        "repeat": trial.repeat,
    }


@dataclass(frozen=True)
class StoredRun:
    """A rollout's store with its instances and finished trials, read once."""

    store: RolloutStore
    instances: dict[str, Instance]
    trials: list[StoredTrial]
    """In a stable order: model, scaffold, instance, repeat."""


def read_run(store: RolloutStore) -> StoredRun:
    """The instances and the finished trials (with their verdicts) of a rollout."""
    instances = {i.id: i for i in store.read_instances()} if store.has_instances() else {}
    trials = list(store.iter_trials())
    trials.sort(key=lambda s: _order(s.result.trial))
    return StoredRun(store, instances, trials)


def _order(trial: Trial) -> tuple[str, str, str, int]:
    return trial.model, trial.scaffold, trial.instance, trial.repeat


def trial_rows(run: StoredRun) -> Iterator[Row]:
    """One row per finished trial."""
    instances = run.instances
    for stored in run.trials:
        result = stored.result
        instance = instances.get(result.trial.instance)
        expected = [c.id for c in instance.checks] if instance else []
        results = {v.check_id: v.result for v in stored.verdicts}
        counts = [results.get(check) for check in expected]
        category = instance.metadata.get("category") if instance else None
        yield {
            **_keys(result.trial),
            "suite": instance.suite if instance else None,
            "category": _text(category) if isinstance(category, str) else None,
            "status": result.status,
            "error": _text(result.error),
            "attempt": result.attempt,
            "started_at": result.started_at,
            "finished_at": result.finished_at,
            "duration_seconds": result.duration_seconds,
            "calls": result.calls,
            "input_tokens": result.input_tokens,
            "output_tokens": result.output_tokens,
            "scaffold_version": result.scaffold_version,
            "checks": len(expected),
            "passed": counts.count("pass"),
            "failed": counts.count("fail"),
            "not_applicable": counts.count("n/a"),
            "errored": counts.count("error"),
            "undecided": counts.count(None),
        }


def _check_row(keys: Row, instance: Instance | None, check_id: str) -> Row:
    check = next((c for c in instance.checks if c.id == check_id), None) if instance else None
    return {
        **keys,
        "check_id": check_id,
        "source": check.source.value if check else None,
        "check_type": check.kind.value if check else None,
        "description": _text(check.description) if check else None,
        "condition": _text(check.condition) if check else None,
    }


def _verdict_cells(verdict: Verdict | None) -> Row:
    if verdict is None:
        return {"verdict": "undecided", "decider": None, "reasoning": None, "evidence": None}
    return {
        "verdict": verdict.result,
        "decider": verdict.decided_by,
        "reasoning": _text(verdict.reasoning),
        "evidence": verdict.evidence,
    }


def check_rows(run: StoredRun) -> Iterator[Row]:
    """Per trial: one final row per check, then one row per judge × check it judged.

    The final rows cover the instance's checks in order (``undecided`` when a check
    has no verdict) and any other check the trial's verdicts name.
    """
    for stored in run.trials:
        trial = stored.result.trial
        keys = _keys(trial)
        instance = run.instances.get(trial.instance)
        verdicts = {v.check_id: v for v in stored.verdicts}
        order = [c.id for c in instance.checks] if instance else []
        order += [check for check in verdicts if check not in order]
        for check_id in order:
            yield {
                **_check_row(keys, instance, check_id),
                "judge": None,
                "final": True,
                **_verdict_cells(verdicts.get(check_id)),
            }
        for judge, judged in sorted(run.store.read_judge_verdicts(trial).items()):
            for verdict in judged:
                yield {
                    **_check_row(keys, instance, verdict.check_id),
                    "judge": judge,
                    "final": False,
                    **_verdict_cells(verdict),
                }


def _requested_model(call: ProxyCall) -> str | None:
    request = call.request
    if isinstance(request, dict) and isinstance(request.get("model"), str):
        return str(request["model"])
    if "/models/" in call.path:  # Gemini names the model in the path
        return call.path.split("/models/", 1)[1].split(":", 1)[0] or None
    return None


def call_rows(run: StoredRun) -> Iterator[Row]:
    """One row per recorded model call of every finished trial (``calls.jsonl``)."""
    store = run.store
    for stored in run.trials:
        trial = stored.result.trial
        if not store.has_calls(trial):
            continue
        keys = _keys(trial)
        where = f"{store.store.uri.rstrip('/')}/{store.trial_key(trial, CALLS_FILE)}"
        for number, record in enumerate(store.read_calls(trial), start=1):
            call = ProxyCall.from_json_dict(record, where=f"{where}:{number}")
            usage = call.usage or {}
            upstream = call.upstream_call or {}
            yield {
                **keys,
                "seq": call.seq,
                "api": call.api,
                "upstream_api": upstream.get("api"),
                "translated": call.upstream_call is not None,
                "requested_model": _requested_model(call),
                "stream": call.stream,
                "status": call.status,
                "outcome": call.outcome,
                "error": _text(call.error),
                "started_at": call.started_at,
                "duration_seconds": call.duration_seconds,
                "ttfb_seconds": call.ttfb_seconds,
                "input_tokens": usage.get("input_tokens"),
                "output_tokens": usage.get("output_tokens"),
                "cached_input_tokens": cached_input_tokens_of(call.api, call.response),
                "reasoning_tokens": call.reasoning_tokens,
            }


def message_rows(run: StoredRun) -> Iterator[Row]:
    """One row per message of every stored trajectory, the system prompt first (index -1)."""
    for stored in run.trials:
        trial = stored.result.trial
        trajectory = run.store.read_trajectory(trial)
        if trajectory is None:
            continue
        keys = _keys(trial)
        sources: dict[int, set[str]] = {}
        for span in trajectory.sources:
            sources.setdefault(span.message_index, set()).add(span.source.value)
        if trajectory.system:
            yield {
                **keys,
                "index": SYSTEM_INDEX,
                "role": "system",
                "sources": _tags(sources.get(SYSTEM_INDEX)),
                "text": trajectory.system,
                **dict.fromkeys(("reasoning", "tool_calls", "tool_call_id", "name")),
            }
        for index, message in enumerate(trajectory.messages):
            calls = [c.model_dump(mode="json") for c in message.tool_calls]
            yield {
                **keys,
                "index": index,
                "role": message.role,
                "sources": _tags(sources.get(index)),
                "text": _text(message.content),
                "reasoning": _text(message.reasoning),
                "tool_calls": json.dumps(calls, ensure_ascii=False) if calls else None,
                "tool_call_id": message.tool_call_id,
                "name": message.name,
            }


def _tags(sources: set[str] | None) -> str | None:
    return ",".join(sorted(sources)) if sources else None
