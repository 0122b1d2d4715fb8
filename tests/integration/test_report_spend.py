"""The report's tokens, cost and time per model × scaffold, and per judge, from a real run."""

from pathlib import Path

import pytest

from adhere.artifacts import JudgeCallRecord, append_judge_calls
from adhere.metrics import Price
from adhere.report._results import report_for
from adhere.runner import execute, narrow, prepare
from adhere.spec import load_run_config
from tests.helpers import bench_yaml, model, rollout_yaml

PRICES = {"priced": Price(input_per_million=2, output_per_million=8)}


def judge_call(judge: str, inputs: int, outputs: int, seconds: float) -> JudgeCallRecord:
    return JudgeCallRecord(
        judge=judge,
        model="judge-id",
        started_at="2026-01-01T00:00:00.000+00:00",
        seconds=seconds,
        input_tokens=inputs,
        output_tokens=outputs,
        attempts=1,
        ok=True,
        error=None,
    )


async def test_spend_tables_add_up_the_stored_calls(tmp_path: Path, write_specs) -> None:
    models = model("priced", "oracle") + model("free", "noisy:rate=0.5,seed=3")
    path = write_specs(bench_yaml(), rollout_yaml(models))
    prepared = narrow(prepare(load_run_config([path])), limit=3)
    await execute(prepared)
    thinking = judge_call("j", 50, 5, 1)
    thinking["reasoning_tokens"] = 3  # the other call's endpoint did not report it
    append_judge_calls(prepared.store, [judge_call("j", 100, 10, 0.5), thinking])
    report = report_for(prepared.store, prices=PRICES)
    spend = next(t for t in report.breakdowns if t.title.startswith("Tokens, cost and time"))
    judges = next(t for t in report.breakdowns if t.title.startswith("Tokens, cost and time per j"))
    rows = {row[0]: dict(zip(spend.header, row, strict=True)) for row in spend.rows}
    assert set(rows) == {"priced", "free"}
    for name, row in rows.items():
        trials = [t for t in prepared.trials if t.model == name]
        calls = [c for t in trials for c in prepared.store.read_calls(t)]
        inputs = sum(c["usage"]["input_tokens"] for c in calls)
        outputs = sum(c["usage"]["output_tokens"] for c in calls)
        assert inputs > 0 and outputs > 0
        assert (row["scaffold"], row["trials"], row["calls"]) == ("chat", "3", str(len(calls)))
        assert (row["input tokens"], row["output tokens"]) == (f"{inputs:,}", f"{outputs:,}")
        assert row["reasoning tokens"] == "—"  # the policies do not reason: not reported
        seconds = sum(prepared.store.read_result(t).duration_seconds for t in trials)
        assert float(row["trial seconds"]) == pytest.approx(seconds, abs=0.051)
        if name == "priced":
            cost = (inputs * 2 + outputs * 8) / 1e6
            assert row["cost"] == (f"${cost:,.2f}" if cost >= 0.01 else f"${cost:.4f}")
        else:
            assert row["cost"] == "no price"
    assert judges.rows == [["j", "2", "150", "15", "3", "no price", "1.5"]]
