"""The store contract, run over both backends: ``file://`` on disk and ``s3://`` on moto.

Every test takes the parametrized ``store`` fixture, so ``file`` and ``s3`` pass the
same assertions (the file-only details — temporary files, path resolution — stay in
tests/unit/test_store.py).
"""

from __future__ import annotations

import pytest

from adhere.artifacts import RolloutStore, StoreVerdictCache
from adhere.core import Check, Instance, Trajectory, Trial, TrialResult, Verdict
from adhere.errors import StoreError
from adhere.store import Store


def result(trial: Trial, status: str = "ok", attempt: int = 1) -> TrialResult:
    return TrialResult(
        trial=trial,
        trial_id=trial.id,
        status=status,  # type: ignore[arg-type]
        attempt=attempt,
        started_at="t0",
        finished_at="t1",
        duration_seconds=0.1,
    )


def test_is_a_store(store: Store) -> None:
    assert isinstance(store, Store)
    assert store.uri.startswith(("file://", "s3://")) and "?" not in store.uri


def test_write_read_overwrite_and_bytes_roundtrip(store: Store) -> None:
    store.write_bytes("a/b.json", b"one")
    store.write_bytes("a/b.json", b"two")
    assert store.read_bytes("a/b.json") == b"two"
    every_byte = bytes(range(256)) * 3
    store.write_bytes("bin/all.bin", every_byte, durable=True)
    assert store.read_bytes("bin/all.bin") == every_byte
    store.write_bytes("empty", b"")
    assert store.exists("empty") and store.read_bytes("empty") == b""
    assert sorted(store.list()) == ["a/b.json", "bin/all.bin", "empty"]  # overwrite: one key


def test_missing_and_invalid_keys(store: Store) -> None:
    with pytest.raises(StoreError, match="not found"):
        store.read_bytes("a/zzz")
    assert not store.exists("a/zzz")
    for bad in ("../escape", "", "/", "a/./b", "a/../../b"):
        with pytest.raises(StoreError, match="invalid store key"):
            store.write_bytes(bad, b"x")
    with pytest.raises(StoreError, match="invalid store key"):
        store.read_bytes("../escape")
    with pytest.raises(StoreError, match="invalid store key"):
        list(store.list(".."))


def test_exists_tells_objects_from_folders(store: Store) -> None:
    store.write_bytes("dir/file.txt", b"x")
    assert store.exists("dir/file.txt")
    assert not store.exists("dir")  # a folder of keys is not a value
    assert not store.exists("dir/file")


def test_list_is_recursive_sorted_and_scoped_to_a_folder(store: Store) -> None:
    keys = ["b", "a/z", "a-b/x", "a/b", "ab/c", "a/deep/er/k.json", "A", "ü/ß.json"]
    for key in keys:
        store.write_bytes(key, key.encode())
    assert list(store.list()) == sorted(keys)
    assert list(store.list("a")) == ["a/b", "a/deep/er/k.json", "a/z"]  # not ab/, a-b/
    assert list(store.list("a/")) == list(store.list("a"))
    assert list(store.list("/a/deep")) == ["a/deep/er/k.json"]
    assert list(store.list("missing")) == []
    assert list(store.list("b")) == []  # a value, not a folder
    store.write_bytes("x//y", b"double slash")
    assert store.read_bytes("x/y") == b"double slash" and "x/y" in store.list("x")


def test_rename_moves_a_value(store: Store) -> None:
    store.write_bytes("t/result.json", b"r")
    store.rename("t/result.json", "t/attempt-1/result.json")
    assert not store.exists("t/result.json")
    assert store.read_bytes("t/attempt-1/result.json") == b"r"
    assert list(store.list("t")) == ["t/attempt-1/result.json"]
    with pytest.raises(StoreError, match="not found|cannot move"):
        store.rename("t/gone.json", "t/elsewhere.json")


def test_local_path_is_a_real_file_or_none(store: Store) -> None:
    store.write_bytes("r/report.md", b"# report")
    path = store.local_path("r/report.md")
    if store.uri.startswith("s3://"):
        assert path is None
    else:
        assert path is not None and path.read_bytes() == b"# report"


def test_layout_done_and_retry_archive(store: Store) -> None:
    rs = RolloutStore(store, "quick")
    assert rs.uri == f"{store.uri.rstrip('/')}/quick"
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
    archived = [k for k in store.list() if "/attempt-1/" in k]
    assert {k.rsplit("/", 1)[1] for k in archived} == {
        "calls.jsonl",
        "verdicts.json",
        "result.json",
    }
    top = [k.rsplit("/", 1)[1] for k in store.list(rs.trial_key(trial, "")) if "/attempt-" not in k]
    assert sorted(top) == ["result.json", "trajectory.json", "verdicts.json"]


def test_layout_rollout_files_and_trial_artifacts(store: Store) -> None:
    rs = RolloutStore(store, "quick")
    check = Check(id="c", source="UserQuery", description="answers")
    instances = [
        Instance(id=name, suite="pacific", turns=[turn], checks=[check])
        for name, turn in (("i1", "hi"), ("i2", "ho é"))
    ]
    assert not rs.has_instances()
    rs.write_specs([{"kind": "Rollout", "metadata": {"name": "quick"}}])
    rs.write_instances(instances)
    assert rs.has_instances() and [i.id for i in rs.read_instances()] == ["i1", "i2"]
    trial = Trial(rollout="quick", model="m", scaffold="chat", instance="i1", repeat=0)
    rs.write_calls(trial, [{"n": 1, "text": "é"}, {"n": 2}])
    assert rs.read_calls(trial) == [{"n": 1, "text": "é"}, {"n": 2}]
    assert rs.read_trajectory(trial) is None
    rs.write_trajectory(trial, Trajectory())
    assert rs.read_trajectory(trial) == Trajectory()
    rs.write_json(trial, "scaffold.json", {"exit": [0]})
    assert rs.read_json(trial, "scaffold.json") == {"exit": [0]}
    assert list(rs.iter_trials()) == []  # nothing is finished before result.json
    rs.write_result(result(trial))
    assert [t.result.trial_id for t in rs.iter_trials()] == [trial.id]
    assert store.read_bytes(rs.key("rollout.yaml")).startswith(b"kind: Rollout")


def test_verdict_cache(store: Store) -> None:
    cache = StoreVerdictCache(store)
    verdict = Verdict(check_id="c", result="pass", decided_by="judge-a", reasoning="ok")
    assert cache.get("ab" * 32) is None
    cache.put("ab" * 32, verdict)
    assert cache.get("ab" * 32) == verdict
    assert (cache.hits, cache.misses) == (1, 1)
    store.write_bytes(f"_cache/verdicts/cd/{'cd' * 32}.json", b"{not json")
    assert cache.get("cd" * 32) is None  # a damaged entry is a miss, not a crash
    assert list(store.list("_cache")) == [
        f"_cache/verdicts/ab/{'ab' * 32}.json",
        f"_cache/verdicts/cd/{'cd' * 32}.json",
    ]
