"""The checklist judge panel with the real model as its judge (``baseUrl: local-model``).

A researcher points a JudgePanel at an endpoint and scores a run. The tiny real model
rarely writes the verdict JSON the judge prompt asks for: what is asserted is that its
replies are read strictly — every check gets exactly one verdict from the judge, a
check the judge never answered readably is ``error`` (undecided: the run exits 3 and
the report says INCOMPLETE), never a pass — and that every judge call is recorded
and stays within the endpoint's ``maxTokens``.
"""

import json
from pathlib import Path

import pytest

from adhere.artifacts import RolloutStore
from adhere.store import open_store
from tests.helpers import run_cli

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

JUDGE_CAP = 200  # one check a call, each reply at most 200 tokens
INSTANCE = {
    "instance_id": "greet",
    "system_prompt": "You are a friendly assistant. Answer in one short sentence.",
    "user_query": ["Say hello."],
    "category": "SP",
    "workspace": ["ws"],
    "checklist": {
        "SP": {
            "description": "",
            "checks": [
                {"check_id": "SP_1", "description": "The reply greets the user.",
                 "check_type": "compliance"},
            ],
        }
    },
}  # fmt: skip
SPECS = f"""\
apiVersion: adhere.dev/v1alpha1
kind: Benchmark
metadata: {{name: greet}}
spec: {{suite: octobench, source: {{path: instances.jsonl}}}}
---
apiVersion: adhere.dev/v1alpha1
kind: JudgePanel
metadata: {{name: real-judge}}
spec:
  judges:
    - name: real
      endpoint: {{api: openai, baseUrl: local-model, model: smollm2-135m-instruct,
                 maxTokens: {JUDGE_CAP}, limits: {{timeoutSeconds: 300}}}}
---
apiVersion: adhere.dev/v1alpha1
kind: Rollout
metadata: {{name: real-judge}}
spec:
  benchmark: greet
  judgePanel: real-judge
  models:
    - name: tiny
      endpoint: {{api: openai, baseUrl: local-model, model: smollm2-135m-instruct,
                 maxTokens: 24}}
  scaffolds: [chat]
  storage: file://./runs
"""


def test_a_real_judge_s_unreadable_verdicts_are_undecided_never_passes(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "README.md").write_text("# a tiny project\n")
    (tmp_path / "instances.jsonl").write_text(json.dumps(INSTANCE) + "\n")
    (tmp_path / "rollout.yaml").write_text(SPECS)
    proc = run_cli("run", str(tmp_path / "rollout.yaml"), timeout=1200)
    assert proc.returncode in (0, 3), proc.stderr  # 3: some check is undecided

    store = RolloutStore(open_store(str(tmp_path / "runs")), "real-judge")
    (stored,) = list(store.iter_trials())
    assert stored.result.status == "ok"
    per_judge = store.read_judge_verdicts(stored.result.trial)
    assert set(per_judge) == {"real"}
    by_judge = {v.check_id: v for v in per_judge["real"]}
    assert sorted(by_judge) == ["SP_1"]  # one verdict a check, none dropped
    final = {v.check_id: v for v in stored.verdicts}
    undecided = 0
    for check_id, verdict in by_judge.items():
        assert verdict.result in ("pass", "fail", "n/a", "error"), verdict
        if verdict.result == "error":  # the judge never answered it readably
            undecided += 1
            assert final[check_id].result == "error", final[check_id]
        else:
            assert final[check_id].result == verdict.result
    printed = proc.stdout + proc.stderr
    if undecided:
        assert proc.returncode == 3 and "INCOMPLETE" in printed
    else:
        assert proc.returncode == 0 and "INCOMPLETE" not in printed

    lines = (tmp_path / "runs" / "real-judge" / "judge_calls.jsonl").read_text().splitlines()
    calls = [json.loads(line) for line in lines]
    assert calls and {(c["judge"], c["model"]) for c in calls} == {
        ("real", "smollm2-135m-instruct")
    }
    answered = [c for c in calls if c["ok"]]
    assert answered and all(0 < c["output_tokens"] <= JUDGE_CAP for c in answered)
