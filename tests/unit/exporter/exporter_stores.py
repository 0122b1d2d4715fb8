"""A small rollout written by hand into any store, for the exporter's tests."""

from pathlib import Path

from adhere.artifacts import RolloutStore
from adhere.core import Check, Instance, Trial, TrialResult, Verdict
from adhere.store import FileStore, Store

CHECKS = [
    Check(id="sp", source="SP", kind="compliance", description="d"),
    Check(id="uq", source="UserQuery", kind="testing", description="d"),
]


def instance(n: int) -> Instance:
    return Instance(id=f"i{n}", suite="octobench", turns=["go"], checks=CHECKS)


def write_rollout(
    root: Path | Store,
    name: str,
    outcomes: dict[str, list[tuple[str, str]]],
    *,
    baseline: str | None = None,
    calls: list[dict] | None = None,
) -> RolloutStore:
    """``outcomes``: model → one (sp, uq) result pair per instance."""
    store = RolloutStore(FileStore(root) if isinstance(root, Path) else root, name)
    spec: dict = {
        "benchmark": "bench",
        "models": [{"name": m, "endpoint": {"model": f"id-{m}"}} for m in outcomes],
        "scaffolds": [{"name": "chat"}],
    }
    if baseline:
        spec["baseline"] = baseline
    store.write_specs([{"kind": "Rollout", "metadata": {"name": name}, "spec": spec}])
    count = max(len(v) for v in outcomes.values())
    store.write_instances(instance(n) for n in range(count))
    for model, pairs in outcomes.items():
        for n, (sp, uq) in enumerate(pairs):
            trial = Trial(rollout=name, model=model, scaffold="chat", instance=f"i{n}", repeat=0)
            verdicts = [
                Verdict(check_id="sp", result=sp, decided_by="v"),  # type: ignore[arg-type]
                Verdict(check_id="uq", result=uq, decided_by="v"),  # type: ignore[arg-type]
            ]
            store.write_verdicts(trial, verdicts)
            store.write_calls(trial, calls or [{"status": 200, "duration_seconds": 0.2}])
            store.write_result(
                TrialResult(
                    trial=trial,
                    trial_id=trial.id,
                    status="ok",
                    started_at="2025-01-01T00:00:00+00:00",
                    finished_at=f"2025-01-01T00:00:{n:02d}+00:00",
                    duration_seconds=1,
                    input_tokens=1000,
                    output_tokens=100,
                )
            )
    return store
