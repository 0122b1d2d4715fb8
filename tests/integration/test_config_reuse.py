"""Results belong to a config: a changed model, scaffold option or suite option is never
reused silently (the measured case: the quickstart's noisy model changed from rate 0.15
to 0.9 under the same name, and the rerun printed the old numbers)."""

import json
from pathlib import Path

from tests.helpers import bench_yaml, model, rollout_yaml, run_cli


def _flat(text: str) -> str:
    return " ".join(text.split())


def _current(run: Path) -> dict[str, dict]:
    """The latest attempt of each trial (archived attempts sit in ``attempt-N/``)."""
    paths = [p for p in (run / "trials").rglob("result.json") if p.parent.name == "r0"]
    return {r["trial_id"]: r for r in (json.loads(p.read_text()) for p in paths)}


def test_a_changed_model_is_refused_naming_it_then_rerun_on_request(
    tmp_path: Path, write_specs
) -> None:
    noisy = model("noisy", "noisy:rate=0.15,seed=7") + model("oracle", "oracle")
    path = write_specs(bench_yaml(), rollout_yaml(noisy))
    first = run_cli("run", str(path), "--quiet", "--no-report")
    assert first.returncode == 0, first.stderr
    run = tmp_path / "runs" / "r"
    before = _current(run)
    assert len(before) == 24 and all(r["fingerprint"] for r in before.values())
    parts = {r["trial"]["model"]: r["fingerprint_parts"] for r in before.values()}
    assert set(parts["noisy"]) == {"endpoint", "scaffold", "instance", "suite"}
    assert parts["noisy"]["endpoint"] != parts["oracle"]["endpoint"]
    assert parts["noisy"]["suite"] == parts["oracle"]["suite"]

    # Same name, different model: refused before any trial runs, naming what changed.
    path.write_text(path.read_text().replace("noisy:rate=0.15", "noisy:rate=0.9"))
    refused = run_cli("run", str(path), "--quiet", "--no-report")
    assert refused.returncode == 2
    err = _flat(refused.stderr)
    assert "rollout.yaml" in err and "12 finished trial(s) of rollout 'r'" in err
    assert "model 'noisy' × scaffold 'chat': endpoint" in err
    assert '"noisy:rate=0.15,seed=7" → "noisy:rate=0.9,seed=7"' in err
    assert "--rerun-changed" in err and "metadata.name" in err
    assert "Traceback" not in refused.stderr
    assert _current(run) == before  # nothing ran, nothing was overwritten

    # On request: only the changed trials run again; their first attempts are archived.
    again = run_cli("run", str(path), "--quiet", "--no-report", "--rerun-changed")
    assert again.returncode == 0, again.stderr
    out = _flat(again.stderr)
    assert "12 finished trial(s) ran under a changed config (noisy × chat: endpoint)" in out
    assert "12 ran (12 ok, 0 failed), 12 already done (same config)" in out
    after = _current(run)
    for trial_id, result in after.items():
        if result["trial"]["model"] == "noisy":
            assert result["attempt"] == 2
            assert result["fingerprint"] != before[trial_id]["fingerprint"]
        else:
            assert result == before[trial_id]
    archived = [json.loads(p.read_text()) for p in (run / "trials").rglob("attempt-1/result.json")]
    assert len(archived) == 12 and {r["trial_id"] for r in archived} == {
        i for i, r in before.items() if r["trial"]["model"] == "noisy"
    }
    assert all(r == before[r["trial_id"]] for r in archived)  # kept as they were

    # A third run under the new config reuses everything.
    third = run_cli("run", str(path), "--quiet", "--no-report")
    assert third.returncode == 0 and "24 already done (same config)" in third.stderr


def test_a_changed_scaffold_option_is_refused_and_a_new_instance_set_leaves_old_trials_out(
    tmp_path: Path, write_specs
) -> None:
    path = write_specs(bench_yaml(), rollout_yaml(model("m", "oracle")))
    assert run_cli("run", str(path), "--quiet", "--no-report").returncode == 0
    original = path.read_text()
    path.write_text(
        original.replace(
            "  parallelism:", "  scaffolds: [{name: chat, timeoutSeconds: 99}]\n  parallelism:"
        )
    )
    refused = run_cli("run", str(path), "--quiet", "--no-report")
    assert refused.returncode == 2
    assert "model 'm' × scaffold 'chat': scaffold (timeout_seconds: 1800.0 → 99.0)" in _flat(
        refused.stderr
    )
    path.write_text(original)
    # Another generator mode makes other instances (other ids): nothing is reused, and
    # the first run's trials, still in the store, are left out of scoring and the report.
    bench = tmp_path / "benchmark.yaml"
    bench.write_text(bench.read_text().replace("mode: prompt", "mode: chat"))
    second = run_cli("run", str(path), "--quiet")
    assert second.returncode == 0, second.stderr
    out = _flat(second.stdout + second.stderr)
    assert "12 ran (12 ok, 0 failed), 0 already done (same config)" in out
    assert "12 stored trial(s) of instances no longer in the benchmark not scored" in out
    assert "12 stored trial(s) belong to instances the benchmark no longer holds" in out
    assert "Traceback" not in second.stderr
    report = (tmp_path / "runs" / "r" / "report" / "report.md").read_text()
    assert "| m | 12 |" in report  # the summary rests on this config's 12 trials
