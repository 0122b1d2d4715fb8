"""What the runner records for the exporter: judge calls and run progress."""

from pathlib import Path

from adhere.artifacts import RolloutStore, append_judge_calls, read_judge_calls, read_progress
from adhere.core import ChatMessage, Trial, TrialResult, Usage
from adhere.judging import JudgeCall
from adhere.models import ChatResponse
from adhere.runner._progress import StoreProgress
from adhere.scoring._judge_calls import judge_call_record
from adhere.store import FileStore

CALL = JudgeCall(id="judge-1", system="s", user="u", max_tokens=10, judge="a", model="m1")


def test_judge_call_records_append_and_read_back(tmp_path: Path) -> None:
    store = RolloutStore(FileStore(tmp_path), "r")
    assert read_judge_calls(store) == []
    response = ChatResponse(
        message=ChatMessage(role="assistant", content="{}"),
        usage=Usage(input_tokens=120, output_tokens=7),
        stop_reason="stop",
        model="m1",
        latency_seconds=0.5,
        attempts=2,
    )
    ok = judge_call_record(CALL, "a", 0.5, response)
    failed = judge_call_record(CALL, "a", 1.25, error=TimeoutError("secret-free"))
    assert (ok["ok"], ok["input_tokens"], ok["output_tokens"], ok["attempts"]) == (
        True,
        120,
        7,
        2,
    )
    assert (failed["ok"], failed["error"], failed["input_tokens"]) == (False, "TimeoutError", 0)
    append_judge_calls(store, [ok])
    append_judge_calls(store, [failed])
    append_judge_calls(store, [])
    with (tmp_path / "r" / "judge_calls.jsonl").open("a") as handle:
        handle.write('{"torn": ')  # an interrupted append
    assert read_judge_calls(store) == [ok, failed]
    assert "cached_input_tokens" not in ok  # the endpoint did not report it


def test_judge_call_records_carry_cached_tokens_when_reported(tmp_path: Path) -> None:
    store = RolloutStore(FileStore(tmp_path), "r")
    response = ChatResponse(
        message=ChatMessage(role="assistant", content="{}"),
        usage=Usage(input_tokens=120, output_tokens=7, cached_input_tokens=96),
        stop_reason="stop",
        model="m1",
        latency_seconds=0.5,
        attempts=1,
    )
    record = judge_call_record(CALL, "a", 0.5, response)
    assert (record["input_tokens"], record["cached_input_tokens"]) == (120, 96)
    append_judge_calls(store, [record])
    assert read_judge_calls(store) == [record]


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple] = []

    def start(self, total: int, skipped: int) -> None:
        self.events.append(("start", total, skipped))

    def finished(self, trial: Trial, result: TrialResult) -> None:
        self.events.append(("finished", result.status))


def result(trial: Trial, status: str) -> TrialResult:
    return TrialResult(
        trial=trial,
        trial_id=trial.id,
        status=status,  # type: ignore[arg-type]
        started_at="t0",
        finished_at="t1",
        duration_seconds=0,
    )


def test_store_progress_counts_trials_in_flight(tmp_path: Path) -> None:
    store = RolloutStore(FileStore(tmp_path), "r")
    inner = Recorder()
    progress = StoreProgress(store, parallelism=2, inner=inner, interval=0)
    trial = Trial(rollout="r", model="m", scaffold="chat", instance="i", repeat=0)
    progress.start(total=5, skipped=1)
    assert {k: read_progress(store)[k] for k in ("planned", "running", "done", "failed")} == {
        "planned": 5,
        "running": 2,
        "done": 1,
        "failed": 0,
    }
    for status in ("ok", "error", "ok"):
        progress.finished(trial, result(trial, status))
    state = read_progress(store)
    assert (state["running"], state["done"], state["failed"]) == (1, 3, 1)
    progress.finished(trial, result(trial, "ok"))
    assert read_progress(store)["running"] == 0
    progress.write("finished", force=True)
    assert read_progress(store)["phase"] == "finished"
    assert inner.events[0] == ("start", 5, 1) and len(inner.events) == 5
