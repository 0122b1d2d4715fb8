"""Activity metrics of one rollout: progress, tokens and cost, proxy calls, judge calls."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from adhere.exporter._families import OTHER, Families
from adhere.exporter._read import RolloutData
from adhere.exporter._settings import ExporterSettings

__all__ = ["PROGRESS_STATES", "TrialCounts", "add_activity", "trial_counts"]

PROGRESS_STATES = ("planned", "running", "done", "failed", "retried")


@dataclass(frozen=True)
class TrialCounts:
    """Trial counts of a rollout (the fields of a Rollout's ``status.trials``)."""

    planned: int = 0
    running: int = 0
    done: int = 0
    failed: int = 0
    retried: int = 0


def trial_counts(data: RolloutData) -> TrialCounts:
    """Counts from the store.

    ``done``/``failed``: latest attempts that finished ``ok``/``error``; ``retried``:
    earlier attempts moved aside before a retry; ``planned``: from the latest run's
    ``progress.json``, else models × scaffolds × instances × repeats of the stored
    specs; ``running``: from ``progress.json`` (0 without one).
    """
    done = sum(1 for t in data.trials if t.attempt.result.status == "ok")
    return TrialCounts(
        planned=max(data.planned, len(data.trials)),
        running=data.running,
        done=done,
        failed=len(data.trials) - done,
        retried=len(data.archived),
    )


def add_activity(
    families: Families,
    data: RolloutData,
    base: dict[str, str],
    models: Mapping[str, str],
    judges: Mapping[str, str],
    settings: ExporterSettings,
    counts: TrialCounts,
) -> None:
    """Add the progress, usage, proxy and judge call families of one rollout."""
    for state in PROGRESS_STATES:
        families.set(
            "adhere_trials",
            "Trials of a rollout by state.",
            {**base, "state": state},
            getattr(counts, state),
        )
    families.set(
        "adhere_rollout_last_progress_timestamp_seconds",
        "Unix time of the rollout's latest finished trial or progress update.",
        base,
        data.last_activity,
    )
    _usage(families, data, base, models, judges, settings)
    _proxy(families, data, base, models, settings)
    _judge_calls(families, data, base, judges, settings)


def _usage(
    families: Families,
    data: RolloutData,
    base: dict[str, str],
    models: Mapping[str, str],
    judges: Mapping[str, str],
    settings: ExporterSettings,
) -> None:
    tokens: Counter[tuple[str, str, str]] = Counter()  # (role, label, direction)
    reasoning: Counter[tuple[str, str]] = Counter()  # (role, label), where reported
    cost: defaultdict[tuple[str, str], float] = defaultdict(float)
    priced: set[tuple[str, str]] = set()
    attempts = [t.attempt for t in data.trials] + data.archived
    for attempt in attempts:
        name = attempt.result.trial.model
        label = models.get(name, OTHER)
        tokens[("agent", label, "input")] += attempt.result.input_tokens
        tokens[("agent", label, "output")] += attempt.result.output_tokens
        if attempt.result.reasoning_tokens is not None:
            reasoning[("agent", label)] += attempt.result.reasoning_tokens
        price = settings.price_of(name, data.model_ids.get(name))
        if price is not None:
            cost[("agent", label)] += price.cost(
                attempt.result.input_tokens, attempt.result.output_tokens
            )
            priced.add(("agent", label))
    for record in data.judge_calls:
        name = str(record.get("judge", ""))
        label = judges.get(name, OTHER)
        inputs, outputs = _int(record.get("input_tokens")), _int(record.get("output_tokens"))
        tokens[("judge", label, "input")] += inputs
        tokens[("judge", label, "output")] += outputs
        if "reasoning_tokens" in record:
            reasoning[("judge", label)] += _int(record.get("reasoning_tokens"))
        price = settings.price_of(name, str(record.get("model") or data.judge_ids.get(name, "")))
        if price is not None:
            cost[("judge", label)] += price.cost(inputs, outputs)
            priced.add(("judge", label))
    for (role, label, direction), value in sorted(tokens.items()):
        families.count(
            "adhere_tokens",
            "Tokens used (agent: every trial attempt; judge: every judge call).",
            {**base, "role": role, "model": label, "direction": direction},
            value,
        )
    for (role, label), value in sorted(reasoning.items()):
        families.count(
            "adhere_reasoning_tokens",
            "Output tokens spent thinking, as the endpoints reported them (part of "
            "adhere_tokens' output; models whose API reports none are left out).",
            {**base, "role": role, "model": label},
            value,
        )
    for role, label in sorted(priced):
        families.count(
            "adhere_cost_usd",
            "Spend in US dollars: tokens × the configured "
            "price table (models without a price are left out).",
            {**base, "role": role, "model": label},
            cost[(role, label)],
        )


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _proxy(
    families: Families,
    data: RolloutData,
    base: dict[str, str],
    models: Mapping[str, str],
    settings: ExporterSettings,
) -> None:
    calls: Counter[str] = Counter()
    errors: Counter[tuple[str, str]] = Counter()
    seconds: defaultdict[str, list[float]] = defaultdict(list)
    for attempt in [t.attempt for t in data.trials] + data.archived:
        label = models.get(attempt.result.trial.model, OTHER)
        for call in attempt.calls:
            calls[label] += 1
            seconds[label].append(call.seconds)
            if call.reason != "ok":
                errors[(label, call.reason)] += 1
    for label in sorted(calls):
        labels = {**base, "model": label}
        families.count(
            "adhere_proxy_calls", "Model calls the recording proxy forwarded.", labels, calls[label]
        )
        families.observe(
            "adhere_proxy_call_duration_seconds",
            "Duration of proxied model calls.",
            labels,
            seconds[label],
            settings.duration_buckets,
        )
    families.counter(
        "adhere_proxy_call_errors",
        "Proxied calls that failed, by reason "
        "(transport, http_429, http_4xx, http_5xx, stream, http_other).",
        [*base, "model", "reason"],
    )
    for (label, reason), value in sorted(errors.items()):
        families.count(
            "adhere_proxy_call_errors", "", {**base, "model": label, "reason": reason}, value
        )


def _judge_calls(
    families: Families,
    data: RolloutData,
    base: dict[str, str],
    judges: Mapping[str, str],
    settings: ExporterSettings,
) -> None:
    calls: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    seconds: defaultdict[str, list[float]] = defaultdict(list)
    tokens: defaultdict[tuple[str, str], list[float]] = defaultdict(list)
    for record in data.judge_calls:
        label = judges.get(str(record.get("judge", "")), OTHER)
        calls[label] += 1
        errors[label] += record.get("ok") is False
        value = record.get("seconds")
        seconds[label].append(float(value) if isinstance(value, int | float) else 0.0)
        if record.get("ok") is not False:
            tokens[(label, "input")].append(_int(record.get("input_tokens")))
            tokens[(label, "output")].append(_int(record.get("output_tokens")))
    for label in sorted(calls):
        labels = {**base, "judge": label}
        families.count(
            "adhere_judge_calls",
            "Calls to judge models (each ask, re-asks included).",
            labels,
            calls[label],
        )
        families.count(
            "adhere_judge_call_errors",
            "Judge calls that failed after the client's retries.",
            labels,
            errors[label],
        )
        families.observe(
            "adhere_judge_call_duration_seconds",
            "Judge call latency (retries and limiter waits included).",
            labels,
            seconds[label],
            settings.duration_buckets,
        )
    for (label, direction), values in sorted(tokens.items()):
        families.observe(
            "adhere_judge_call_tokens",
            "Tokens per successful judge call.",
            {**base, "judge": label, "direction": direction},
            values,
            settings.token_buckets,
        )
