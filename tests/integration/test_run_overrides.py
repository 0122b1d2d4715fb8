"""`adhere run --fail-fast`, `--limit`, `--model`, `--scaffold` and `--parallelism`."""

import time
from pathlib import Path

import pytest

from adhere.errors import SpecError
from adhere.runner import execute, narrow, prepare
from adhere.spec import load_run_config
from tests.helpers import bench_yaml, model, rollout_yaml, run_cli

FAILING = "oracle:fail_first=9,fail_status=503,retry_after=0"
NO_RETRY = ", limits: {maxRetries: 0}"


async def test_fail_fast_stops_at_the_first_failed_trial_and_cancels_those_in_flight(
    tmp_path: Path, write_specs
) -> None:
    models = model("bad", FAILING, extra=NO_RETRY) + model("slow", "oracle:delay=60")
    path = write_specs(bench_yaml(), rollout_yaml(models, parallelism=2, max_retries=0))
    prepared = narrow(prepare(load_run_config([path])), limit=1)
    assert sorted(t.model for t in prepared.trials) == ["bad", "slow"]
    began = time.monotonic()
    summary = await execute(prepared, fail_fast=True)
    assert time.monotonic() - began < 30  # the 60 s trial was not waited for
    bad = next(t for t in prepared.trials if t.model == "bad")
    slow = next(t for t in prepared.trials if t.model == "slow")
    assert summary.stopped == f"bad/chat/{bad.instance}"
    assert (summary.ran, summary.faults, summary.cancelled) == (1, 1, 1)
    assert prepared.store.read_result(slow) is None  # not finished: the next run runs it
    result = prepared.store.read_result(bad)
    assert result is not None and result.status == "upstream_fault"


async def test_without_fail_fast_every_trial_runs(tmp_path: Path, write_specs) -> None:
    path = write_specs(
        bench_yaml(), rollout_yaml(model("bad", FAILING, extra=NO_RETRY), max_retries=0)
    )
    summary = await execute(narrow(prepare(load_run_config([path])), limit=3))
    assert (summary.ran, summary.faults, summary.stopped) == (3, 3, None)


async def test_a_filtered_run_is_resumed_by_the_whole_one(tmp_path: Path, write_specs) -> None:
    models = model("a", "oracle") + model("b", "oracle")
    path = write_specs(bench_yaml(), rollout_yaml(models))
    whole = prepare(load_run_config([path]))
    part = narrow(whole, limit=2, models=["b"], parallelism=1)
    assert [t.model for t in part.trials] == ["b", "b"]
    first_two = list(dict.fromkeys(t.instance for t in whole.trials if t.model == "b"))[:2]
    assert [t.instance for t in part.trials] == first_two
    assert part.config.rollout.spec.parallelism == 1
    assert [m.name for m in part.config.rollout.spec.models] == ["b"]
    assert (await execute(part)).ran == 2
    # The whole plan again, at another parallelism: the two are reused, nothing is
    # refused as a changed config, the rest runs.
    again = narrow(prepare(load_run_config([path])), parallelism=3)
    assert again.reuse.changed == 0
    summary = await execute(again)
    assert (summary.skipped, summary.ran, summary.ok) == (2, 22, 22)
    stored = {s.result.trial_id: s.result.fingerprint for s in again.store.iter_trials()}
    assert stored == {t.id: whole.fingerprints[t.id].digest for t in whole.trials}


def test_unknown_names_and_bad_numbers_are_refused(tmp_path: Path, write_specs) -> None:
    path = write_specs(bench_yaml(), rollout_yaml(model("a", "oracle")))
    prepared = prepare(load_run_config([path]))
    with pytest.raises(SpecError, match=r"no model named 'zz' in this run \(it has: a\)"):
        narrow(prepared, models=["zz"])
    with pytest.raises(SpecError, match=r"no scaffold named 'cli' in this run \(it has: chat\)"):
        narrow(prepared, scaffolds=["cli"])
    with pytest.raises(SpecError, match="--limit must be at least 1"):
        narrow(prepared, limit=0)
    assert len(narrow(prepared, scaffolds=["chat"]).trials) == len(prepared.trials)


def test_the_cli_runs_part_of_the_plan_and_says_so(tmp_path: Path, write_specs) -> None:
    models = model("a", "oracle") + model("b", "oracle")
    path = write_specs(bench_yaml(), rollout_yaml(models))
    args = ["--model", "a", "--limit", "3", "--parallelism", "1", "--quiet", "--no-report"]
    done = run_cli("run", str(path), *args)
    assert done.returncode == 0, done.stderr
    assert "running 3 of the 24 planned trials" in done.stderr
    assert "done in" in done.stderr and "3 ran (3 ok, 0 failed)" in done.stderr
    refused = run_cli("run", str(path), "--model", "nope", "--quiet")
    assert refused.returncode == 2
    assert "--model: no model named 'nope' in this run (it has: a, b)" in refused.stderr
