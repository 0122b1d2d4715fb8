"""The version a plan chooses is the one in each trial's fingerprint."""

from pathlib import Path

from adhere.core import Check, Instance, ScaffoldRef, Source
from adhere.runner import plan_rollout
from adhere.runner._reuse import plan_fingerprints
from adhere.spec import Benchmark, Rollout, RunConfig

INSTANCES = [
    Instance(
        id="cc",
        suite="octobench",
        turns=["go"],
        checks=[Check(id="c", source=Source.USER_QUERY, description="d")],
        scaffold=ScaffoldRef(name="claude-code", version="2.0.69"),
    )
]
BENCH = Benchmark.model_validate(
    {"metadata": {"name": "b"}, "spec": {"suite": "octobench", "source": {"path": "x.jsonl"}}}
)


def config(scaffolds) -> RunConfig:
    rollout = Rollout.model_validate(
        {
            "metadata": {"name": "r"},
            "spec": {
                "benchmark": "b",
                "models": [{"name": "m", "endpoint": {"baseUrl": "http://h/v1", "model": "x"}}],
                "scaffolds": scaffolds,
            },
        }
    )
    return RunConfig(rollout=rollout, benchmark=BENCH, judge_panel=None, base_dir=Path())


def scaffold_part(scaffolds) -> tuple[str, str]:
    cfg = config(scaffolds)
    plan, built = plan_rollout(cfg, INSTANCES)
    (trial,) = plan.trials
    return built[trial.scaffold].tool.version, plan_fingerprints(
        cfg, INSTANCES, plan.trials, built, plan
    )[trial.id].parts["scaffold"]


def test_the_chosen_version_is_built_and_fingerprinted():
    pinned_version, pinned = scaffold_part(["claude-code"])
    own_version, own = scaffold_part([{"name": "claude-code", "version": "fromInstance"}])
    exact_version, exact = scaffold_part([{"name": "claude-code", "version": "2.0.69"}])
    assert (own_version, exact_version) == ("2.0.69", "2.0.69")
    assert pinned_version != "2.0.69"
    assert own == exact  # the same version, however it was chosen
    assert pinned != own
