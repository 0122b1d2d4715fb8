import os
from pathlib import Path

import pytest

from adhere.artifacts import RolloutStore, safe_segment
from adhere.core import Trajectory, Trial, TrialResult, Verdict
from adhere.errors import SpecError, StoreError
from adhere.store import FileStore, open_store


def result(trial: Trial, status: str = "ok", attempt: int = 1) -> TrialResult:
    return TrialResult(
        trial=trial,
        trial_id=trial.id,
        status=status,
        attempt=attempt,  # type: ignore[arg-type]
        started_at="t0",
        finished_at="t1",
        duration_seconds=0.1,
    )


def test_open_store_by_uri_and_path(tmp_path: Path) -> None:
    assert isinstance(open_store(f"file://{tmp_path}"), FileStore)
    rel = open_store("runs", base_dir=tmp_path)
    assert isinstance(rel, FileStore) and rel.root == tmp_path / "runs"
    with pytest.raises(SpecError, match="unsupported store URI scheme 'gs'"):
        open_store("gs://bucket/x")


def test_atomic_write_leaves_no_partial_file(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    store.write_bytes("a/b.json", b"one")
    store.write_bytes("a/b.json", b"two")
    assert store.read_bytes("a/b.json") == b"two"
    assert os.listdir(tmp_path / "a") == ["b.json"]
    (tmp_path / "a" / ".c.json.123.tmp").write_bytes(b"half")  # a write interrupted by a crash
    assert list(store.list("a")) == ["a/b.json"]
    with pytest.raises(StoreError, match="not found"):
        store.read_bytes("a/zzz")
    with pytest.raises(StoreError, match="invalid store key"):
        store.write_bytes("../escape", b"x")


def test_layout_done_and_retry_archive(tmp_path: Path) -> None:
    rs = RolloutStore(FileStore(tmp_path), "quick")
    trial = Trial(rollout="quick", model="m", scaffold="chat", instance="inst/1", repeat=2)
    assert rs.read_result(trial) is None and not rs.is_done(trial)
    rs.write_calls(trial, [{"n": 1}])
    rs.write_verdicts(trial, [Verdict(check_id="c", result="error", decided_by="runner")])
    rs.write_result(result(trial, "error"))
    assert not rs.is_done(trial)
    key = rs.trial_key(trial, "result.json")
    assert key.startswith("quick/trials/m/chat/inst_1-") and key.endswith("/r2/result.json")
    rs.archive_attempt(trial, 1)
    assert rs.read_result(trial) is None
    rs.write_trajectory(trial, Trajectory())
    rs.write_verdicts(trial, [Verdict(check_id="c", result="pass", decided_by="v")])
    rs.write_result(result(trial, "ok", attempt=2))
    assert rs.is_done(trial)
    stored = list(rs.iter_trials())
    assert len(stored) == 1 and stored[0].result.attempt == 2  # archived attempts are not results
    assert stored[0].verdicts[0].result == "pass"
    archived = [k for k in FileStore(tmp_path).list() if "/attempt-1/" in k]
    assert {k.rsplit("/", 1)[1] for k in archived} == {
        "calls.jsonl",
        "verdicts.json",
        "result.json",
    }


def test_safe_segment() -> None:
    assert safe_segment("pacific-python-n3") == "pacific-python-n3"
    assert safe_segment("a/b") != safe_segment("a_b")
    assert "/" not in safe_segment("../../etc")
