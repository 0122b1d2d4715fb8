"""The Ray scoring pass gives the in-process pass's verdicts, shares endpoint budgets, caches."""

import json
import shutil
from pathlib import Path

import pytest

from adhere.artifacts import StoreVerdictCache, open_rollout_dir, read_judge_calls
from adhere.models import Served
from adhere.ray_jobs import limiter_name, ray_scorer, score_rollout_on_ray
from adhere.runner import execute, prepare
from adhere.runner._rescore import rescore
from adhere.runner._run import judge_endpoints
from adhere.spec import JudgePanel, load_resources, load_run_config
from adhere.suites import get_suite
from adhere.testing import PolicyServer, PolicyServerConfig
from adhere.testing._provider import ScriptedService

SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "octobench-sample"

pytestmark = pytest.mark.usefixtures("local_ray")


def trial_files(run: Path) -> dict[str, object]:
    """Relative path → parsed JSON of every trial's verdicts and judge verdicts."""
    return {
        str(path.relative_to(run)): json.loads(path.read_text())
        for name in ("verdicts.json", "judge_verdicts.json")
        for path in sorted((run / "trials").rglob(name))
    }


def counts(summary) -> dict[str, int]:
    keys = ("trials", "suite_verdicts", "verifier_verdicts", "judged_checks")
    keys += ("undecided_checks", "judge_calls", "errors")
    return {k: getattr(summary, k) for k in keys}


async def test_ray_and_in_process_scoring_write_identical_verdicts(tmp_path: Path) -> None:
    # The OctoBench sample (8 instances, bound verifiers, three scripted judges with
    # noise, garbled and dropped answers) under the reference scaffold: 16 trials.
    shutil.copytree(SAMPLE, tmp_path / "sample")
    rollout = tmp_path / "sample" / "rollout.yaml"
    text = rollout.read_text().replace("[claude-code, kilo, droid, reference]", "[reference]")
    rollout.write_text(text.replace("file://../../runs", "file://../runs"))
    prepared = prepare(load_run_config([rollout]))
    in_process = (await execute(prepared)).scoring
    assert in_process.trials == 16 and in_process.judge_calls > 0

    # The same stored rollout under a fresh root (so a fresh verdict cache), on Ray.
    run = tmp_path / "runs" / "octobench-sample"
    copy = tmp_path / "ray-runs" / "octobench-sample"
    shutil.copytree(run, copy)
    # (Few actors: each is a process that imports adhere, seconds on 2 cores.)
    on_ray = await rescore(copy, scorer=ray_scorer(verify_actors=1, judge_actors=2))
    assert on_ray.verify_actors == 1 and on_ray.judge_actors == 2
    assert len(on_ray.limiters) == 3  # one per judge endpoint
    assert counts(on_ray) == counts(in_process)
    assert on_ray.problems == in_process.problems == []
    expected = trial_files(run)
    assert len(expected) == 32
    assert trial_files(copy) == expected


def distinct_instances(root: Path, n: int) -> None:
    """n instances whose judged checks differ (so no two trials share cache entries)."""
    (root / "ws").mkdir()
    (root / "ws" / "README.md").write_text("# limiter demo\n")
    rows = [
        {
            "instance_id": f"i{k}",
            "user_query": ["Show me the first line of README.md."],
            "system_prompt": "",
            "category": "SP",
            "workspace": ["ws"],
            "checklist": {
                "SP": {
                    "description": "",
                    "checks": [
                        {
                            "check_id": "SP_concise",
                            "description": f"Answers are concise (case {k}).",
                            "check_type": "compliance",
                        },
                        {
                            "check_id": "SP_quotes",
                            "description": f"The answer quotes the first line (case {k}).",
                            "check_type": "understanding",
                        },
                    ],
                }
            },
        }
        for k in range(n)
    ]
    (root / "instances.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (root / "benchmark.yaml").write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: Benchmark\nmetadata: {name: b}\n"
        "spec: {suite: octobench, source: {path: instances.jsonl}}\n"
    )
    (root / "rollout.yaml").write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: Rollout\nmetadata: {name: r}\nspec:\n"
        "  benchmark: b\n  models:\n"
        "    - {name: good, endpoint: {api: anthropic, baseUrl: scripted, model: 'agent:read'}}\n"
        "    - {name: emoji, endpoint: {api: anthropic, baseUrl: scripted,"
        " model: 'agent:read,emoji'}}\n"
        "  scaffolds: [reference]\n  parallelism: 4\n  storage: file://./runs\n"
    )


CONCURRENCY, RPS = 2, 10.0
KEY = "sk-judge-0123456789abcdef"


async def test_judge_actors_share_one_limiter_per_endpoint_and_the_cache(tmp_path: Path) -> None:
    distinct_instances(tmp_path, 10)
    summary = await execute(prepare(load_run_config([tmp_path / "rollout.yaml"])))
    assert summary.ok == 20  # no panel in the rollout: judge-bound checks left undecided
    # One judge endpoint, slow (0.25 s a reply) and rate-limited by the server itself
    # (429 above RPS); three judge actors, each with room for 8 trials at once. The
    # server wants an API key, which the actors read from a file (never an argument).
    (tmp_path / "judge.key").write_text(KEY + "\n")
    (tmp_path / "judges.yaml").write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: JudgePanel\nmetadata: {name: p}\nspec:\n"
        "  judges:\n    - name: only\n      endpoint:\n        baseUrl: scripted\n"
        f"        model: 'judge:seed=1,delay=0.25,rps={RPS:g}'\n"
        f"        apiKey: {{file: {tmp_path / 'judge.key'}}}\n"
        f"        limits: {{concurrency: {CONCURRENCY}, requestsPerSecond: {RPS:g}}}\n"
    )
    (panel,) = [r for r in load_resources(tmp_path / "judges.yaml") if isinstance(r, JudgePanel)]
    store = open_rollout_dir(tmp_path / "runs" / "r")
    instances = {i.id: i for i in store.read_instances()}
    async with PolicyServer(PolicyServerConfig(require_api_key=KEY)) as server:
        endpoints = judge_endpoints(panel, Served({"scripted": ScriptedService(server.url)}))

        async def score(judge_actors: int):
            return await score_rollout_on_ray(
                store,
                instances,
                get_suite,
                panel=panel,
                judge_endpoints=endpoints,
                cache=StoreVerdictCache(store.store),
                verify_actors=1,
                judge_actors=judge_actors,
            )

        first = await score(3)
        stats = dict(server.stats)
        again = await score(1)
        after = dict(server.stats)
    assert first.trials == 20 and first.judged_checks == 40 and first.errors == 0
    assert first.judge_calls == stats["requests"] == 20  # one batch per trial
    assert sum(1 for calls in first.calls_per_judge_actor if calls) >= 2
    # The server never saw more than the endpoint's concurrency, nor a rate over RPS.
    assert stats["max_in_flight"] <= CONCURRENCY
    assert stats["by_status"] == {"200": 20}
    (name,) = first.limiters
    assert name == limiter_name(endpoints["only"])
    limiter = first.limiters[name]
    assert limiter["granted"] == 20 and limiter["max_held"] == CONCURRENCY
    # Send times given out by the rate limiter (before a concurrency slot is taken,
    # as in process) are 1/RPS apart.
    times = limiter["rate_times"]
    assert len(times) == 20
    assert all(b - a >= 1 / RPS - 1e-3 for a, b in zip(times, times[1:], strict=False))
    # Re-scoring on Ray: every judge verdict comes from the store's cache.
    assert again.judge_calls == 0 and after["requests"] == stats["requests"]
    assert again.judged_checks == 40 and again.limiters[name]["granted"] == 0
    # Judge call telemetry comes back from the actors: one record per call, for the exporter.
    records = read_judge_calls(store)
    assert len(records) == 20 and all(r["judge"] == "only" and r["seconds"] > 0 for r in records)
    stored = [p.read_bytes() for p in (tmp_path / "runs").rglob("*") if p.is_file()]
    assert stored and not any(KEY.encode() in data for data in stored)
