"""Before a run: stored results under a changed config are refused (or rerun on request)."""

from pathlib import Path

import pytest

from adhere.artifacts import RolloutStore
from adhere.core import Check, Instance, Trial, TrialResult
from adhere.errors import SpecError
from adhere.runner._fingerprint import trial_fingerprint
from adhere.runner._reuse import check_reuse
from adhere.spec import Benchmark, Rollout, RunConfig
from adhere.store import open_store

INSTANCE = Instance(
    id="i",
    suite="pacific",
    turns=["hi"],
    checks=[Check(id="c", source="SP", kind="compliance", description="d")],
)


def rollout_doc(model: str = "oracle", timeout: float = 1800) -> dict:
    return {
        "apiVersion": "adhere.dev/v1alpha1",
        "kind": "Rollout",
        "metadata": {"name": "r"},
        "spec": {
            "benchmark": "b",
            "models": [{"name": "m", "endpoint": {"baseUrl": "scripted", "model": model}}],
            "scaffolds": [{"name": "chat", "timeoutSeconds": timeout}],
        },
    }


BENCHMARK_DOC = {
    "apiVersion": "adhere.dev/v1alpha1",
    "kind": "Benchmark",
    "metadata": {"name": "b"},
    "spec": {"suite": "pacific", "source": {"path": "x.jsonl"}, "options": {}},
}


def config(rollout: dict, benchmark: dict = BENCHMARK_DOC) -> RunConfig:
    return RunConfig(
        rollout=Rollout.model_validate(rollout),
        benchmark=Benchmark.model_validate(benchmark),
        judge_panel=None,
        base_dir=Path("."),
        files={"Rollout/r": "rollout.yaml"},
    )


def planned(cfg: RunConfig, trial: Trial, instance: Instance = INSTANCE):
    spec = cfg.rollout.spec
    return {
        trial.id: trial_fingerprint(
            spec.models[0].endpoint, spec.scaffolds[0], "builtin", instance, cfg.benchmark.spec
        )
    }


TRIALS = [Trial(rollout="r", model="m", scaffold="chat", instance="i", repeat=n) for n in (0, 1)]


def store_with(tmp_path: Path, results: list[tuple[Trial, str, dict]]) -> RolloutStore:
    store = RolloutStore(open_store(str(tmp_path)), "r")
    for trial, status, parts in results:
        store.write_result(
            TrialResult(
                trial=trial,
                trial_id=trial.id,
                status=status,
                started_at="2025-01-01T00:00:00+00:00",
                finished_at="2025-01-01T00:00:01+00:00",
                duration_seconds=1.0,
                fingerprint_parts=parts,
            )
        )
    store.write_specs([rollout_doc(), BENCHMARK_DOC])
    return store


def parts_under(cfg: RunConfig, trial: Trial) -> dict:
    return dict(planned(cfg, trial)[trial.id].parts)


def test_results_under_the_same_config_or_before_fingerprints_are_reused(tmp_path) -> None:
    old = config(rollout_doc())
    store = store_with(
        tmp_path, [(TRIALS[0], "ok", parts_under(old, TRIALS[0])), (TRIALS[1], "ok", {})]
    )
    fingerprints = planned(old, TRIALS[0]) | planned(old, TRIALS[1])
    check = check_reuse(store, old, TRIALS, fingerprints, rerun_changed=False)
    assert (check.changed, check.legacy, check.what) == (0, 1, {})


def test_failed_results_under_another_config_are_not_in_the_way(tmp_path) -> None:
    """Only finished (ok) results could be wrongly reused; failed ones run again anyway."""
    old, new = config(rollout_doc()), config(rollout_doc(model="noisy"))
    store = store_with(tmp_path, [(TRIALS[0], "error", parts_under(old, TRIALS[0]))])
    check = check_reuse(store, new, TRIALS, planned(new, TRIALS[0]) | planned(new, TRIALS[1]),
                        rerun_changed=False)  # fmt: skip
    assert (check.changed, check.legacy) == (0, 0)


def test_a_changed_endpoint_is_refused_naming_file_counts_and_old_and_new_values(tmp_path) -> None:
    old, new = config(rollout_doc()), config(rollout_doc(model="noisy"))
    store = store_with(tmp_path, [(t, "ok", parts_under(old, t)) for t in TRIALS])
    fingerprints = planned(new, TRIALS[0]) | planned(new, TRIALS[1])
    with pytest.raises(SpecError) as caught:
        check_reuse(store, new, TRIALS, fingerprints, rerun_changed=False)
    message = str(caught.value)
    assert caught.value.file == "rollout.yaml"
    assert "2 finished trial(s) of rollout 'r' ran under a different config" in message
    assert "model 'm' × scaffold 'chat': endpoint (model: \"oracle\" → \"noisy\")" in message
    assert "--rerun-changed" in message and "metadata.name" in message
    check = check_reuse(store, new, TRIALS, fingerprints, rerun_changed=True)
    assert (check.changed, check.legacy) == (2, 0)
    assert check.what == {("m", "chat"): {"endpoint"}}


def test_a_changed_scaffold_names_the_option(tmp_path) -> None:
    old, new = config(rollout_doc()), config(rollout_doc(timeout=99))
    store = store_with(tmp_path, [(TRIALS[0], "ok", parts_under(old, TRIALS[0]))])
    with pytest.raises(SpecError, match=r"scaffold \(timeout_seconds: 1800.0 → 99.0\)"):
        check_reuse(store, new, TRIALS[:1], planned(new, TRIALS[0]), rerun_changed=False)


def test_a_changed_instance_is_named_as_such(tmp_path) -> None:
    cfg = config(rollout_doc())
    store = store_with(tmp_path, [(TRIALS[0], "ok", parts_under(cfg, TRIALS[0]))])
    edited = INSTANCE.model_copy(update={"turns": ["bye"]})
    with pytest.raises(SpecError, match=r"instance \(the instance's prompt, turns or workspace\)"):
        check_reuse(store, cfg, TRIALS[:1], planned(cfg, TRIALS[0], edited), rerun_changed=False)
