"""An S3 outage in the middle of a run: a clear error, nothing half-written, a clean resume.

The rollout runs through the real runner (scripted policy server, recording proxy,
chat scaffold) into moto's S3 server. The server is stopped for real between two
writes of one trial — after its calls and trajectory, before its verdicts — then
started again on the same port (moto keeps the objects in this process).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from adhere.artifacts import RolloutStore
from adhere.core import Trajectory, Trial, TrialResult, Verdict
from adhere.errors import StoreUnavailable
from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from adhere.store import S3Store, Store, open_store
from tests.helpers import bench_yaml, model, rollout_yaml
from tests.integration.store._s3_parts import FAST, PLANTED_SECRET, MotoS3

ARTIFACTS = ["calls.jsonl", "result.json", "scaffold.json", "trajectory.json", "verdicts.json"]
SCORED = sorted([*ARTIFACTS, "judge_verdicts.json"])
"""A trial's files once the run has also scored it (the outage came before scoring)."""


class OutageBefore:
    """A store that stops the S3 server just before the ``nth`` write of a ``name``."""

    def __init__(self, inner: Store, server: MotoS3, name: str, nth: int) -> None:
        self.inner, self.server, self.name, self.nth = inner, server, name, nth
        self.uri = inner.uri
        self.seen = 0
        self.cut_key: str | None = None

    def write_bytes(self, key: str, data: bytes, *, durable: bool = False) -> None:
        if key.endswith("/" + self.name):
            self.seen += 1
            if self.seen == self.nth:
                self.cut_key = key
                self.server.stop()
        self.inner.write_bytes(key, data, durable=durable)

    def read_bytes(self, key: str) -> bytes:
        return self.inner.read_bytes(key)

    def exists(self, key: str) -> bool:
        return self.inner.exists(key)

    def list(self, prefix: str = "") -> Iterator[str]:
        return self.inner.list(prefix)

    def rename(self, key: str, new_key: str) -> None:
        self.inner.rename(key, new_key)

    def local_path(self, key: str) -> Path | None:
        return self.inner.local_path(key)


def trial_dirs(store: Store, rollout: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key in store.list(f"{rollout}/trials"):
        folder, name = key.rsplit("/", 1)
        out.setdefault(folder, []).append(name)
    return out


async def test_outage_mid_trial_then_resume_loses_nothing_and_duplicates_nothing(
    moto: MotoS3, tmp_path: Path, write_specs
) -> None:
    uri = moto.uri("runs", connect_timeout=1, read_timeout=2, max_attempts=2)
    path = write_specs(
        bench_yaml(),  # 12 PACIFIC instances
        rollout_yaml(model("oracle", "oracle"), parallelism=1, storage=uri),
    )
    prepared = prepare(load_run_config([path]))
    s3 = prepared.store.store
    assert isinstance(s3, S3Store) and s3.uri == "s3://adhere-test/runs"
    assert len(prepared.trials) == 12
    outage = OutageBefore(s3, moto, "verdicts.json", nth=5)
    cut = dataclasses.replace(prepared, store=RolloutStore(outage, prepared.store.rollout))

    with pytest.raises(StoreUnavailable) as info:
        await execute(cut)
    message = str(info.value)
    assert outage.cut_key is not None
    assert f"cannot write s3://adhere-test/runs/{outage.cut_key}" in message
    assert moto.endpoint in message and PLANTED_SECRET not in message

    moto.start()  # the same port; the objects written before the outage are still there
    dirs = trial_dirs(s3, "r")
    done = {folder for folder, names in dirs.items() if "result.json" in names}
    assert len(done) == 4  # four trials finished before the outage
    assert all(sorted(dirs[f]) == ARTIFACTS for f in done)
    cut_folder = outage.cut_key.rsplit("/", 1)[0]
    assert sorted(dirs[cut_folder]) == ["calls.jsonl", "scaffold.json", "trajectory.json"]
    layout = RolloutStore(s3, "r")
    cut_trial = next(t for t in prepared.trials if layout.trial_key(t, "") == cut_folder + "/")
    assert not layout.is_done(cut_trial)
    before = {f: s3.read_bytes(f"{f}/result.json") for f in done}

    # Resume: a fresh run from the same spec finds the four, redoes the cut one.
    summary = await execute(prepare(load_run_config([path])))
    assert (summary.skipped, summary.ran, summary.ok) == (4, 8, 8)
    dirs = trial_dirs(s3, "r")
    # The cut attempt's files are kept aside as attempt-1/, never overwritten.
    assert sorted(dirs.pop(f"{cut_folder}/attempt-1")) == [
        "calls.jsonl",
        "scaffold.json",
        "trajectory.json",
    ]
    assert len(dirs) == 12 and all(sorted(names) == SCORED for names in dirs.values())
    assert all(s3.read_bytes(f"{f}/result.json") == before[f] for f in done)  # not run again
    results = {f: TrialResult.model_validate_json(s3.read_bytes(f"{f}/result.json")) for f in dirs}
    assert len({r.trial_id for r in results.values()}) == 12
    assert all(r.status == "ok" for r in results.values())
    assert {f: r.attempt for f, r in results.items() if r.attempt != 1} == {cut_folder: 2}
    verdicts = json.loads(s3.read_bytes(f"{cut_folder}/verdicts.json"))
    assert verdicts and all(v["result"] == "pass" for v in verdicts)  # oracle, scored whole
    for key in s3.list("r"):
        assert PLANTED_SECRET.encode() not in s3.read_bytes(key)


def test_outage_between_two_writes_of_a_trial_at_the_store_level(moto: MotoS3) -> None:
    store = open_store(moto.uri(), settings=FAST)
    rs = RolloutStore(store, "r")
    trial = Trial(rollout="r", model="m", scaffold="chat", instance="i", repeat=0)
    rs.write_calls(trial, [{"n": 1}])
    rs.write_trajectory(trial, Trajectory())
    moto.stop()
    try:
        with pytest.raises(StoreUnavailable) as info:
            rs.write_verdicts(trial, [Verdict(check_id="c", result="pass", decided_by="v")])
        key = rs.trial_key(trial, "verdicts.json")
        assert f"s3://adhere-test/runs/{key}" in str(info.value)
        assert PLANTED_SECRET not in str(info.value)
    finally:
        moto.start()
    assert not rs.is_done(trial)
    assert [k.rsplit("/", 1)[1] for k in store.list("r")] == ["calls.jsonl", "trajectory.json"]
    rs.write_calls(trial, [{"n": 1}])
    rs.write_trajectory(trial, Trajectory())
    rs.write_verdicts(trial, [Verdict(check_id="c", result="pass", decided_by="v")])
    rs.write_result(
        TrialResult(
            trial=trial,
            trial_id=trial.id,
            status="ok",
            attempt=1,
            started_at="t0",
            finished_at="t1",
            duration_seconds=0.1,
        )
    )
    assert rs.is_done(trial)
    assert [k.rsplit("/", 1)[1] for k in store.list("r")] == [
        "calls.jsonl",
        "result.json",
        "trajectory.json",
        "verdicts.json",
    ]
