"""`adhere plan`'s token and cost estimate, computed here by hand from the documented rules."""

from pathlib import Path

import pytest

from adhere.core import Check, Instance, Source, Trial, Workspace
from adhere.errors import SpecError
from adhere.metrics import Price
from adhere.runner import describe_estimates, estimate_plan, estimate_tokens, load_prices
from adhere.spec import Rollout

SYSTEM = "s" * 40  # 10 tokens
DOC = "d" * 81  # 21 tokens (rounded up)
CODE = "c" * 4000  # not Markdown: not counted
TURNS = ["u" * 20, "v" * 7]  # 5 and 2 tokens

INSTANCE = Instance(
    id="i",
    suite="octobench",
    system_prompt=SYSTEM,
    turns=TURNS,
    checks=[Check(id="c", source=Source.USER_QUERY, description="x")],
    workspace=Workspace(files={"AGENTS.md": DOC, "main.py": CODE}),
)


def test_chat_is_one_call_a_turn_carrying_the_conversation_so_far() -> None:
    context, out = 10 + 21, 300
    first = context + 5
    second = context + 5 + 2 + out  # turn 2 carries turn 1, its answer and turn 2
    assert estimate_tokens(INSTANCE, "chat") == (first + second, 2 * out)


def test_agents_make_ten_calls_a_turn_with_their_own_overhead() -> None:
    context, overhead, out = 10 + 21, 3000, 300
    inputs, outputs, seen = 0, 0, 0
    for turn_tokens in (5, 2):
        seen += turn_tokens
        for _ in range(10):
            inputs += context + overhead + seen + outputs
            outputs += out
    assert estimate_tokens(INSTANCE, "claude-code") == (inputs, 20 * out)
    assert outputs == 6000


def rollout() -> Rollout:
    endpoint = {"baseUrl": "http://127.0.0.1:9/v1"}
    return Rollout.model_validate(
        {
            "metadata": {"name": "r"},
            "spec": {
                "benchmark": "b",
                "models": [
                    {"name": "cheap", "endpoint": {**endpoint, "model": "id-small"}},
                    {"name": "unpriced", "endpoint": {**endpoint, "model": "other"}},
                ],
                "scaffolds": ["chat"],
            },
        }
    )


def test_cost_per_model_from_the_price_table_and_no_price_rather_than_zero() -> None:
    trials = [
        Trial(rollout="r", model=m, scaffold="chat", instance="i", repeat=r)
        for m in ("cheap", "unpriced")
        for r in range(3)
    ]
    prices = {"id-*": Price(input_per_million=2, output_per_million=10)}
    cheap, unpriced = estimate_plan(rollout(), trials, [INSTANCE], prices)
    inputs, outputs = estimate_tokens(INSTANCE, "chat")
    assert (cheap.trials, cheap.input_tokens, cheap.output_tokens) == (3, 3 * inputs, 3 * outputs)
    assert cheap.cost == pytest.approx((3 * inputs * 2 + 3 * outputs * 10) / 1e6)
    assert unpriced.cost is None and unpriced.input_tokens == 3 * inputs
    lines = describe_estimates([cheap, unpriced])
    assert lines[2].split()[0] == "cheap" and lines[2].split()[-1] == f"${cheap.cost:,.2f}"
    assert lines[3].split()[-2:] == ["no", "price"]
    assert lines[4] == f"  total: ${cheap.cost:,.2f} (1 model(s) without a price left out)"


def test_price_tables_load_from_yaml_and_bad_entries_are_named(tmp_path: Path) -> None:
    good = tmp_path / "prices.yaml"
    good.write_text("prices:\n  'm-*': {inputPerMillion: 1, outputPerMillion: 2}\n")
    assert load_prices(good) == {"m-*": Price(input_per_million=1, output_per_million=2)}
    bad = tmp_path / "bad.yaml"
    bad.write_text("m: {inputPerMillion: -1, outputPerMillion: 2}\n")
    with pytest.raises(SpecError) as caught:
        load_prices(bad)
    assert caught.value.file == str(bad) and caught.value.field == "m.inputPerMillion"
