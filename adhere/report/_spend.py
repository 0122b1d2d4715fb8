"""What a rollout spent: tokens, cost and time per model × scaffold, and per judge.

Read from the stored results (every trial's last attempt, whatever its status: a
failed trial spent its tokens too) and from ``judge_calls.jsonl``. Costs come from a
price table (:mod:`adhere.metrics._prices`, ``docs/prices.md``), looked up by the
model's name in the Rollout, then its endpoint's model id as the store's spec
snapshot has it; without a price the cell says ``no price``, never ``$0``. Earlier
attempts (archived retries) are not counted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from adhere.artifacts import RolloutStore, read_judge_calls
from adhere.metrics import Price, Table, price_of

__all__ = ["spend_tables"]


def _model_ids(store: RolloutStore) -> dict[str, str]:
    """Model name → its endpoint's model id, from the spec snapshot (empty when unreadable)."""
    try:
        documents: list[Any] = store.read_specs() if store.has_specs() else []
    except Exception:  # noqa: BLE001 - the ids only help find prices
        return {}
    for doc in documents:
        if isinstance(doc, dict) and doc.get("kind") == "Rollout":
            models = (doc.get("spec") or {}).get("models") or []
            return {
                str(m["name"]): str(m["endpoint"]["model"])
                for m in models
                if isinstance(m, dict)
                and isinstance(m.get("endpoint"), dict)
                and "name" in m
                and "model" in m["endpoint"]
            }
    return {}


def _cost(price: Price | None, inputs: int, outputs: int) -> str:
    if price is None:
        return "no price"
    value = price.cost(inputs, outputs)
    return f"${value:,.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"


def _seconds(value: float) -> str:
    return f"{value:,.1f}"


def _reasoning(value: int | None) -> str:
    """Reasoning tokens, or ``—`` when no call reported them (Anthropic never does)."""
    return "—" if value is None else f"{value:,}"


def _add(total: int | None, value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return (total or 0) + value
    return total


def spend_tables(store: RolloutStore, prices: Mapping[str, Price] | None = None) -> list[Table]:
    """The spend tables of a rollout: trials per model × scaffold, then judges (if any)."""
    prices = prices or {}
    ids = _model_ids(store)
    rows: defaultdict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0, 0, 0, 0.0])
    reasoning: dict[tuple[str, str], int | None] = {}
    for stored in store.iter_trials():
        result = stored.result
        key = (result.trial.model, result.trial.scaffold)
        reasoning[key] = _add(reasoning.get(key), result.reasoning_tokens)
        row = rows[key]
        row[0] += 1
        row[1] += result.calls
        row[2] += result.input_tokens
        row[3] += result.output_tokens
        row[4] += result.duration_seconds
    tables = []
    if rows:
        body = []
        for (model, scaffold), (trials, calls, inputs, outputs, seconds) in sorted(rows.items()):
            price = price_of(prices, model, ids.get(model))
            body.append(
                [
                    model,
                    scaffold,
                    str(int(trials)),
                    str(int(calls)),
                    f"{int(inputs):,}",
                    f"{int(outputs):,}",
                    _reasoning(reasoning.get((model, scaffold))),
                    _cost(price, int(inputs), int(outputs)),
                    _seconds(seconds),
                    _seconds(seconds / trials),
                ]
            )
        tables.append(
            Table(
                title="Tokens, cost and time per model × scaffold (trials' model calls)",
                header=[
                    "model",
                    "scaffold",
                    "trials",
                    "calls",
                    "input tokens",
                    "output tokens",
                    "reasoning tokens",
                    "cost",
                    "trial seconds",
                    "seconds per trial",
                ],
                rows=body,
            )
        )
    judges = _judge_rows(store, prices)
    if judges:
        tables.append(
            Table(
                title="Tokens, cost and time per judge (every scoring pass)",
                header=[
                    "judge",
                    "calls",
                    "input tokens",
                    "output tokens",
                    "reasoning tokens",
                    "cost",
                    "seconds",
                ],
                rows=judges,
            )
        )
    return tables


def _judge_rows(store: RolloutStore, prices: Mapping[str, Price]) -> list[list[str]]:
    totals: defaultdict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0, 0, 0.0])
    reasoning: dict[tuple[str, str], int | None] = {}
    for record in read_judge_calls(store):
        key = (record["judge"], record["model"])
        reasoning[key] = _add(reasoning.get(key), record.get("reasoning_tokens"))
        row = totals[key]
        row[0] += 1
        row[1] += record["input_tokens"]
        row[2] += record["output_tokens"]
        row[3] += record["seconds"]
    out = []
    for (judge, model), (calls, inputs, outputs, seconds) in sorted(totals.items()):
        price = price_of(prices, judge, model)
        out.append(
            [
                judge,
                str(int(calls)),
                f"{int(inputs):,}",
                f"{int(outputs):,}",
                _reasoning(reasoning.get((judge, model))),
                _cost(price, int(inputs), int(outputs)),
                _seconds(seconds),
            ]
        )
    return out
