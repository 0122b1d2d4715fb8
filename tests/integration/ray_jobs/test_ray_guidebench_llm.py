"""GuideBench's LLM answer parsing on Ray gives the in-process verdicts and call records,
and a re-score on Ray reads the panel's replies from the verdict cache as in process."""

import json
import shutil
from pathlib import Path

import pytest

from adhere.ray_jobs import ray_scorer
from adhere.runner import execute, prepare
from adhere.runner._rescore import rescore
from adhere.spec import load_run_config
from tests.helpers import ROOT

pytestmark = pytest.mark.usefixtures("local_ray")

DATA = ROOT.parent / "shared" / "data" / "guidebench"
SPEC = f"""\
apiVersion: adhere.dev/v1alpha1
kind: Benchmark
metadata: {{name: gb}}
spec:
  suite: guidebench
  source: {{path: {DATA}}}
  options: {{protocol: paper, parse: llm, perCategory: 2}}
---
apiVersion: adhere.dev/v1alpha1
kind: JudgePanel
metadata: {{name: parser}}
spec:
  judges:
    - name: one
      endpoint: {{api: openai, baseUrl: scripted, model: "judge:seed=1,misread=0.3"}}
    - name: two
      endpoint: {{api: openai, baseUrl: scripted, model: "judge:seed=2,misread=0.3"}}
---
apiVersion: adhere.dev/v1alpha1
kind: Rollout
metadata: {{name: gb-llm}}
spec:
  benchmark: gb
  judgePanel: parser
  models:
    - name: noisy
      endpoint: {{api: openai, baseUrl: scripted, model: "noisy:rate=0.3,seed=4"}}
  scaffolds: [chat]
  storage: file://./runs
"""


def verdicts(run: Path) -> dict[str, object]:
    return {
        str(p.relative_to(run)): json.loads(p.read_text())
        for p in sorted((run / "trials").rglob("verdicts.json"))
    }


def calls(run: Path) -> list[tuple[str, bool, int]]:
    """The recorded panel calls: judge, answered, prompt tokens (times differ)."""
    lines = (run / "judge_calls.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    return sorted((r["judge"], r["ok"], r["input_tokens"]) for r in records)


async def test_llm_parsing_on_ray_matches_in_process(tmp_path: Path) -> None:
    path = tmp_path / "gb.yaml"
    path.write_text(SPEC, encoding="utf-8")
    in_process = (await execute(prepare(load_run_config([path])))).scoring
    assert in_process.trials == 12 and in_process.judge_calls == 24  # two judges a trial
    run = tmp_path / "runs" / "gb-llm"
    expected = verdicts(run)
    parsed = [
        v for found in expected.values() for v in found if v["decided_by"] == "guidebench.llm-parse"
    ]  # type: ignore[union-attr,index]
    assert len(parsed) == 12
    assert any(not v["details"]["rules"]["agrees"] for v in parsed)  # misreads disagree

    copy = tmp_path / "ray-runs" / "gb-llm"
    shutil.copytree(run, copy)
    for stale in copy.joinpath("trials").rglob("verdicts.json"):
        stale.unlink()  # what Ray writes is checked, not what was copied
    (copy / "judge_calls.jsonl").unlink()
    on_ray = await rescore(copy, scorer=ray_scorer(verify_actors=2, judge_actors=1))
    assert on_ray.problems == []
    assert on_ray.judge_calls == in_process.judge_calls
    assert verdicts(copy) == expected
    assert calls(copy) == calls(run) and len(calls(run)) == 24

    # a second re-score on Ray reads the panel's replies from the cache: no call at all
    asked = (copy / "judge_calls.jsonl").read_text()
    again = await rescore(copy, scorer=ray_scorer(verify_actors=2, judge_actors=1))
    assert again.problems == [] and again.judge_calls == 0
    assert (copy / "judge_calls.jsonl").read_text() == asked
    assert verdicts(copy) == expected
