"""A spec ``adhere validate`` accepts does not fail at ``run`` for a spec reason.

Measured on main: of 73 fuzzed specs that ``validate`` accepted, 28 failed at ``run``
(scaffold names, suite options, generator parameters, API pairings were not checked).
Here seeded mutations of a small rollout (three PACIFIC instances, two scripted
models) go through ``validate_files``; each one it accepts is then run for real —
services started, trials run through the recording proxy and scored — and must
finish with every trial ``ok``.
"""

from __future__ import annotations

import random
from pathlib import Path

from adhere.errors import AdhereError
from adhere.runner import execute, prepare, validate_files
from adhere.spec import load_run_config
from tests.fuzz_inputs import mutate
from tests.helpers import bench_yaml, model, rollout_yaml

CASES = 250
MODELS = model("oracle", "oracle") + model(
    "noisy", "noisy:rate=0.5,seed=3", api="anthropic", extra=", stream: true"
)


async def test_what_validate_accepts_runs(tmp_path: Path) -> None:
    texts = {
        "benchmark.yaml": bench_yaml(instructions="[3]", lengths="[3]").encode(),
        "rollout.yaml": rollout_yaml(MODELS, parallelism=6).encode(),
    }
    rng = random.Random(2024)
    accepted, ran = 0, []
    for case in range(CASES):
        # A directory of its own: a store holding another case's trials is another matter.
        where = tmp_path / f"case-{case}"
        where.mkdir()
        bench, rollout = where / "benchmark.yaml", where / "rollout.yaml"
        originals = {bench: texts["benchmark.yaml"], rollout: texts["rollout.yaml"]}
        for path, data in originals.items():
            path.write_bytes(data)
        target = rng.choice(sorted(originals))
        data, what = mutate(rng, target, originals[target])
        target.write_bytes(data)
        try:
            validate_files([bench, rollout], env={})
        except AdhereError:
            continue
        accepted += 1
        prepared = prepare(load_run_config([rollout]))
        summary = await execute(prepared, retry_backoff_seconds=0.01)
        statuses = {prepared.store.read_result(t).status for t in prepared.trials}
        ran.append(len(prepared.trials))
        assert statuses == {"ok"}, f"case {case} ({target.name}: {what}): {summary.errors[:3]}"
    assert accepted >= 15  # enough accepted mutations to mean something
    assert all(n > 0 for n in ran)
