"""What a plan will spend: tokens and cost per model, before anything runs (``adhere plan``).

An estimate, from the suite's prompt sizes and stated assumptions, not a measurement
(``adhere report`` shows what a run did spend). The rules (``docs/prices.md``):

- **Tokens of a text**: its characters divided by :data:`CHARS_PER_TOKEN` (4), rounded
  up: a common rule of thumb for English prose and code; other scripts and
  tokenizers differ, by up to about 2×.
- **Context of an instance**: its system prompt, and its workspace's Markdown files
  (the instruction files: ``CLAUDE.md``, ``AGENTS.md``, skills, memory, READMEs); user
  turn *k* adds that turn.
- **Calls**: the ``chat`` scaffold makes one call per user turn. Every other scaffold
  (agents) makes :data:`AGENT_CALLS_PER_TURN` calls per turn, each also sending
  :data:`AGENT_OVERHEAD_TOKENS` of the scaffold's own system prompt and tool definitions.
- **Output**: :data:`OUTPUT_TOKENS_PER_CALL` per call. Every call sends the whole
  conversation so far: the context, the turns up to its own, and every earlier output.
- **Cost**: the price table's price of the model (by its name in the Rollout, then its
  endpoint's model id) times the tokens of the model's trials; a model without a price
  has *no price*, never a cost of 0.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from adhere.core import Instance, Trial
from adhere.errors import SpecError
from adhere.metrics import Price, price_of
from adhere.runner._plan_text import _table
from adhere.spec import Rollout

__all__ = [
    "AGENT_CALLS_PER_TURN",
    "AGENT_OVERHEAD_TOKENS",
    "CHARS_PER_TOKEN",
    "OUTPUT_TOKENS_PER_CALL",
    "ModelEstimate",
    "describe_estimates",
    "estimate_plan",
    "estimate_tokens",
    "load_prices",
    "text_tokens",
]

CHARS_PER_TOKEN = 4
"""Characters per token in the estimate."""

AGENT_CALLS_PER_TURN = 10
"""Model calls an agent scaffold makes per user turn (reading, editing, running, answering)."""

AGENT_OVERHEAD_TOKENS = 3000
"""Tokens an agent scaffold adds to every call: its own system prompt and tool definitions."""

OUTPUT_TOKENS_PER_CALL = 300
"""Output tokens of one call."""

SINGLE_CALL_SCAFFOLDS = frozenset({"chat"})
"""Scaffolds that make one call per user turn."""


def text_tokens(text: str) -> int:
    """Estimated tokens of ``text`` (:data:`CHARS_PER_TOKEN` characters each, rounded up)."""
    return -(-len(text) // CHARS_PER_TOKEN)


def estimate_tokens(instance: Instance, scaffold: str) -> tuple[int, int]:
    """Estimated ``(input, output)`` tokens of one trial of ``instance`` under ``scaffold``."""
    docs = [text for path, text in instance.workspace.files.items() if path.endswith(".md")]
    context = text_tokens(instance.system_prompt) + sum(text_tokens(d) for d in docs)
    calls, overhead = 1, 0
    if scaffold not in SINGLE_CALL_SCAFFOLDS:
        calls, overhead = AGENT_CALLS_PER_TURN, AGENT_OVERHEAD_TOKENS
    inputs = outputs = turns = 0
    for turn in instance.turns:
        turns += text_tokens(turn)
        for _ in range(calls):
            inputs += context + overhead + turns + outputs
            outputs += OUTPUT_TOKENS_PER_CALL
    return inputs, outputs


@dataclass(frozen=True)
class ModelEstimate:
    """One model's trials in the plan: their estimated tokens and cost."""

    model: str
    trials: int
    input_tokens: int
    output_tokens: int
    cost: float | None
    """USD; ``None`` when the price table has no price for the model."""


def estimate_plan(
    rollout: Rollout,
    trials: Sequence[Trial],
    instances: Sequence[Instance],
    prices: Mapping[str, Price] | None = None,
) -> list[ModelEstimate]:
    """Estimated tokens and cost of each model's planned trials, in the Rollout's order."""
    by_id = {i.id: i for i in instances}
    cache: dict[tuple[str, str], tuple[int, int]] = {}
    totals: defaultdict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for trial in trials:
        key = (trial.instance, trial.scaffold)
        if key not in cache:
            cache[key] = estimate_tokens(by_id[trial.instance], trial.scaffold)
        inputs, outputs = cache[key]
        total = totals[trial.model]
        total[0] += 1
        total[1] += inputs
        total[2] += outputs
    out = []
    for m in rollout.spec.models:
        count, inputs, outputs = totals.get(m.name, [0, 0, 0])
        price = price_of(prices or {}, m.name, m.endpoint.model)
        cost = price.cost(inputs, outputs) if price is not None else None
        out.append(ModelEstimate(m.name, count, inputs, outputs, cost))
    return out


def _cost(value: float | None) -> str:
    if value is None:
        return "no price"
    return f"${value:,.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"


def describe_estimates(estimates: Sequence[ModelEstimate]) -> list[str]:
    """The estimate as ``adhere plan`` prints it: a table, a total and the rules' summary."""
    rows: list[tuple[str, ...]] = [("model", "trials", "input tokens", "output tokens", "cost")]
    rows += [
        (e.model, str(e.trials), f"{e.input_tokens:,}", f"{e.output_tokens:,}", _cost(e.cost))
        for e in estimates
    ]
    lines = ["Estimated tokens and cost per model:", *(f"  {r}" for r in _table(rows))]
    priced = [e.cost for e in estimates if e.cost is not None]
    if priced:
        unpriced = len(estimates) - len(priced)
        but = f" ({unpriced} model(s) without a price left out)" if unpriced else ""
        lines.append(f"  total: {_cost(sum(priced))}{but}")
    lines.append(
        f"  (estimate: {CHARS_PER_TOKEN} characters a token; chat 1 call a turn, agents "
        f"{AGENT_CALLS_PER_TURN} calls a turn with {AGENT_OVERHEAD_TOKENS:,} tokens of their "
        f"own each; {OUTPUT_TOKENS_PER_CALL} output tokens a call; see docs/prices.md)"
    )
    return lines


def load_prices(path: str | Path) -> dict[str, Price]:
    """A price table from YAML: ``prices:`` (as in exporter settings) or the mapping itself.

    Raises:
        SpecError: Naming the file and the model whose entry is not a price.
    """
    import yaml
    from pydantic import ValidationError

    try:
        loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise SpecError(f"cannot read the price table: {exc}", file=str(path)) from None
    if isinstance(loaded, dict) and isinstance(loaded.get("prices"), dict):
        loaded = loaded["prices"]
    if not isinstance(loaded, dict):
        raise SpecError(
            "a price table maps model names or patterns to {inputPerMillion, outputPerMillion}",
            file=str(path),
        )
    prices = {}
    for name, entry in loaded.items():
        try:
            prices[str(name)] = Price.model_validate(entry)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in (name, *first["loc"]))
            raise SpecError(
                f"expected {{inputPerMillion, outputPerMillion}} (USD, ≥ 0): {first['msg']}",
                file=str(path),
                field=where,
            ) from None
    return prices
