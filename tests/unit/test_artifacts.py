"""The store layout's records and readers: bytes as before, readers over the same files."""

import json
from pathlib import Path

import pytest

import adhere.artifacts as artifacts
from adhere.artifacts import CachedReader, RolloutStore, RunProgress, write_progress
from adhere.core import Trial, TrialResult, Verdict
from adhere.store import FileStore

TRIAL = Trial(rollout="r", model="m", scaffold="chat", instance="i", repeat=0)


def result(attempt: int, status: str) -> TrialResult:
    return TrialResult(
        trial=TRIAL,
        trial_id=TRIAL.id,
        status=status,  # type: ignore[arg-type]
        attempt=attempt,
        started_at="t0",
        finished_at="t1",
        duration_seconds=0,
    )


def test_public_names_are_sorted() -> None:
    assert artifacts.__all__ == sorted(artifacts.__all__)
    assert all(hasattr(artifacts, name) for name in artifacts.__all__)


def test_judge_verdicts_keep_their_bytes_and_read_back(tmp_path: Path) -> None:
    store = RolloutStore(FileStore(tmp_path), "r")
    assert store.read_judge_verdicts(TRIAL) == {}
    verdict = Verdict(check_id="c", result="pass", decided_by="judge:a", reasoning="é")
    store.write_judge_verdicts(TRIAL, {"a": [verdict]})
    raw = (tmp_path / store.trial_key(TRIAL, "judge_verdicts.json")).read_bytes()
    expected = {"a": [verdict.model_dump(mode="json")]}
    assert raw == json.dumps(expected, ensure_ascii=False, indent=1, sort_keys=True).encode()
    assert store.read_judge_verdicts(TRIAL) == {"a": [verdict]}


def test_progress_bytes_and_partial_records(tmp_path: Path) -> None:
    store = RolloutStore(FileStore(tmp_path), "r")
    progress = RunProgress(planned=2, running=1, done=0, failed=0, phase="running")
    write_progress(store, progress)
    assert (tmp_path / "r" / "progress.json").read_bytes() == json.dumps(
        progress, sort_keys=True
    ).encode()
    (tmp_path / "r" / "progress.json").write_text('{"running": 2}')
    assert artifacts.read_progress(store) == {"running": 2}
    (tmp_path / "r" / "progress.json").write_text("[1]")
    assert artifacts.read_progress(store) is None


def test_attempts_copy_and_cached_reader(tmp_path: Path) -> None:
    source = RolloutStore(FileStore(tmp_path), "r")
    source.write_instances([])
    source.write_verdicts(TRIAL, [Verdict(check_id="c", result="error", decided_by="runner")])
    source.write_result(result(1, "error"))
    assert source.has_files(TRIAL)
    source.archive_attempt(TRIAL, 1)
    assert not source.has_files(TRIAL)
    source.write_calls(TRIAL, [{"status": 200}])
    source.write_result(result(2, "ok"))
    reader = CachedReader(source.store)
    assert reader.rollouts() == ["r"]
    dirs = reader.trial_dirs("r")
    assert [(d.archived, d.finished, sorted(d.files)) for d in dirs] == [
        (False, True, ["calls.jsonl", "result.json"]),
        (True, True, ["result.json", "verdicts.json"]),
    ]
    assert reader.result(dirs[0]).attempt == 2
    assert reader.calls(dirs[0], reader.result(dirs[0]), len) == 1
    assert reader.verdicts(dirs[0]) == [] and len(reader.verdicts(dirs[1])) == 1
    target = RolloutStore(FileStore(tmp_path), "r-feedback")
    assert target.is_empty()
    target.copy_trial(source, TRIAL, TRIAL)
    assert sorted(p.name for p in (tmp_path / "r-feedback").rglob("*") if p.is_file()) == [
        "calls.jsonl"
    ]
    assert artifacts.feedback_run_name("r", "new-turn") == "r-feedback-turn"


def test_an_unreadable_trajectory_is_a_store_error_naming_the_file(tmp_path: Path) -> None:
    from adhere.errors import StoreError

    store = RolloutStore(FileStore(tmp_path), "r")
    trial = Trial(rollout="r", model="m", scaffold="chat", instance="i", repeat=0)
    store.store.write_bytes(store.trial_key(trial, "trajectory.json"), b"{not json")
    with pytest.raises(StoreError) as info:
        store.read_trajectory(trial)
    assert "trajectory.json" in str(info.value) and "not a stored trajectory" in str(info.value)
