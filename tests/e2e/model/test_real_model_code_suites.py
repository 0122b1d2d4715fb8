"""ManyIH (coding) and VeriCode with the real model: its code goes to the sandbox and Ruff.

The model is real and weak: nothing is asserted about its answers. What is asserted is
that the suites score unscripted, often broken code without losing anything: every
trial ends with a result and its calls stored; every check of every finished trial
has exactly one verdict (pass, fail, n/a or error — never missing); ManyIH's unit
tests pass only when the sandboxed run passed, and every run that happened was
isolated; an undecided check makes the run exit 3, never a pass.
"""

from pathlib import Path

import pytest

from adhere.artifacts import RolloutStore
from adhere.store import open_store
from tests.e2e.model.test_real_model_suites import assert_nothing_lost
from tests.helpers import ROOT, run_cli

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

MANYIH = ROOT.parent / "shared" / "data" / "manyih" / "coding.json"
ROLLOUT = """\
apiVersion: adhere.dev/v1alpha1
kind: Benchmark
metadata: {{name: {name}}}
spec: {benchmark}
---
apiVersion: adhere.dev/v1alpha1
kind: Rollout
metadata: {{name: {name}}}
spec:
  benchmark: {name}
  models:
    - name: smollm2
      endpoint: {{api: openai, baseUrl: local-model, model: smollm2-135m-instruct,
                 maxTokens: 160, limits: {{timeoutSeconds: 300}}}}
  scaffolds: [chat]
  parallelism: 2
  storage: file://./runs
"""
BENCHMARKS = {
    "manyih-real": (
        f"{{suite: manyih, source: {{path: {MANYIH}}}, options: {{samples: 2, tiers: [6]}}}}"
    ),
    "vericode-real": (
        "{suite: vericode, source: {generate: {tasks: builtin, k: 1, seed: 0, limit: 2}}, "
        "options: {protocols: [single], ks: [1]}}"
    ),
}


def run(tmp_path: Path, name: str) -> tuple[RolloutStore, int]:
    path = tmp_path / f"{name}.yaml"
    path.write_text(ROLLOUT.format(name=name, benchmark=BENCHMARKS[name]), encoding="utf-8")
    proc = run_cli("run", str(path), "--quiet", timeout=1200)
    assert proc.returncode in (0, 1, 3), proc.stderr  # 1: a trial failed; 3: undecided
    store = RolloutStore(open_store(str(tmp_path / "runs")), name)
    return store, proc.returncode


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_real_code_is_scored_check_by_check(tmp_path: Path, name: str) -> None:
    store, code = run(tmp_path, name)
    instances = {i.id: i for i in store.read_instances()}
    assert len(instances) == 2
    trials = [stored.result.trial for stored in store.iter_trials()]
    statuses = assert_nothing_lost(store, trials)
    assert sum(statuses.values()) == 2
    undecided = 0
    for stored in store.iter_trials():
        if stored.result.status != "ok":
            continue
        checks = sorted(c.id for c in instances[stored.result.trial.instance].checks)
        verdicts = {v.check_id: v for v in stored.verdicts}
        assert sorted(verdicts) == checks  # one verdict a check, none dropped
        assert {v.result for v in verdicts.values()} <= {"pass", "fail", "n/a", "error"}
        undecided += any(v.result == "error" for v in verdicts.values())
        tests = verdicts.get("tests")
        if name == "manyih-real" and tests is not None:
            status = tests.details["status"]
            assert (tests.result == "pass") == (status == "pass"), tests
            if status not in ("no code", "error"):  # the code ran: in the sandbox
                assert tests.details["isolation"], tests
    failed = sum(n for status, n in statuses.items() if status != "ok")
    assert code == (1 if failed else 3 if undecided else 0), (code, statuses, undecided)
