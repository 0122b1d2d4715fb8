"""The exporter's reasoning-token series: only where the endpoints reported any."""

from pathlib import Path

from prometheus_client import CollectorRegistry

from adhere.artifacts import JudgeCallRecord, append_judge_calls
from adhere.core import Trial
from adhere.exporter import StoreCollector
from adhere.store import FileStore
from tests.unit.exporter.exporter_stores import write_rollout


def judge_call(reasoning: int | None) -> JudgeCallRecord:
    record = JudgeCallRecord(
        judge="j",
        model="judge-id",
        started_at="2026-01-01T00:00:00.000+00:00",
        seconds=0.5,
        input_tokens=100,
        output_tokens=50,
        attempts=1,
        ok=True,
        error=None,
    )
    if reasoning is not None:
        record["reasoning_tokens"] = reasoning
    return record


def test_reasoning_tokens_per_role_and_model(tmp_path: Path) -> None:
    store = write_rollout(
        tmp_path, "r", {"thinks": [("pass", "pass")] * 2, "plain": [("pass", "pass")]}
    )
    for n in range(2):
        trial = Trial(rollout="r", model="thinks", scaffold="chat", instance=f"i{n}", repeat=0)
        result = store.read_result(trial)
        assert result is not None
        store.write_result(result.model_copy(update={"reasoning_tokens": 30 + n}))
    append_judge_calls(store, [judge_call(7), judge_call(None), judge_call(5)])
    registry = CollectorRegistry()
    StoreCollector(FileStore(tmp_path), registry=registry)
    base = {"rollout": "r", "benchmark": "bench", "suite": "octobench"}

    def value(role: str, model: str) -> float | None:
        labels = {**base, "role": role, "model": model}
        return registry.get_sample_value("adhere_reasoning_tokens_total", labels)

    assert value("agent", "thinks") == 61
    assert value("agent", "plain") is None  # never reported: no series, not a made-up 0
    assert value("judge", "j") == 12
    output = {**base, "role": "agent", "model": "thinks", "direction": "output"}
    assert registry.get_sample_value("adhere_tokens_total", output) == 200  # unchanged
