"""A trial pod's store hand-over: wall time of stage + trial + upload against a direct trial.

The trial pod runs ``adhere trial stage`` (init container), ``adhere trial run --spool``
(the agent's container, no credentials) and ``adhere trial upload`` (a native sidecar)
where it used to run only ``adhere trial run --rollout-uri`` with the store's
credentials. This measures, on one machine with a ``file://`` store, the time from
the first process's start until the trial's files are in the store (the uploader's
acknowledgement; the sidecar is then stopped), against one direct ``trial run`` of
another trial of the same rollout, interleaved in rounds (load drifts on a shared
machine). Each trial is a PACIFIC instance answered by the scripted policy server's
oracle in the trial process (the ``chat`` scaffold), so the figure is the hand-over's
own cost: two more Python starts (stage, upload), the copies and the polling.

Run: uv run python bench/bench_pod_spool.py [rounds]
"""

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from adhere.runner import prepare_rollout
from adhere.spec import Benchmark, Rollout, RunConfig

ROLLOUT = {
    "apiVersion": "adhere.dev/v1alpha1",
    "kind": "Rollout",
    "metadata": {"name": "bench", "namespace": "bench"},
    "spec": {
        "benchmark": "b",
        "models": [
            {
                "name": "oracle",
                "endpoint": {"api": "openai", "baseUrl": "scripted", "model": "oracle"},
            }
        ],
        "scaffolds": ["chat"],
    },
}
BENCHMARK = {
    "apiVersion": "adhere.dev/v1alpha1",
    "kind": "Benchmark",
    "metadata": {"name": "b", "namespace": "bench"},
    "spec": {
        "suite": "pacific",
        "source": {
            "generate": {"instructions": [3], "lengths": [3], "perLanguage": 4, "seed": 7,
                         "mode": "prompt"}
        },
    },
}  # fmt: skip


def adhere(*args: str) -> list[str]:
    return [sys.executable, "-m", "adhere.cli", *args]


def direct(uri: str, trial: str) -> float:
    started = time.perf_counter()
    subprocess.run(adhere("trial", "run", "--rollout-uri", uri, "--trial", trial), check=True,
                   stderr=subprocess.DEVNULL)  # fmt: skip
    return time.perf_counter() - started


def spooled(uri: str, trial: str, pod: Path) -> tuple[float, float]:
    """(total, of which the stage init container) seconds."""
    spool, state = str(pod / "spool"), str(pod / "state")
    where = ("--spool", spool, "--state", state)
    started = time.perf_counter()
    subprocess.run(adhere("trial", "stage", "--rollout-uri", uri, "--trial", trial, *where),
                   check=True, stderr=subprocess.DEVNULL)  # fmt: skip
    staged = time.perf_counter() - started
    upload = subprocess.Popen(
        adhere("trial", "upload", "--rollout-uri", uri, "--trial", trial, *where),
        stderr=subprocess.DEVNULL,
    )
    try:
        subprocess.run(adhere("trial", "run", "--spool", spool, "--trial", trial), check=True,
                       stderr=subprocess.DEVNULL)  # fmt: skip
        elapsed = time.perf_counter() - started  # trial run exits once the files are stored
    finally:
        upload.send_signal(signal.SIGTERM)
        upload.wait(timeout=60)
    return elapsed, staged


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        config = RunConfig(
            rollout=Rollout.model_validate(ROLLOUT),
            benchmark=Benchmark.model_validate(BENCHMARK),
            judge_panel=None,
            base_dir=root,
        )
        prepared = prepare_rollout(config, store_uri=(root / "runs").as_uri(), secrets=[])
        trials = [t.id for t in prepared.trials]
        if len(trials) < 2 * rounds:
            raise SystemExit(f"{len(trials)} trials: at most {len(trials) // 2} rounds")
        uri = prepared.store.uri
        os.environ["ADHERE_WORK_DIR"] = str(root / "work")
        base, pod, stage = [], [], []
        for n in range(rounds):
            base.append(direct(uri, trials[2 * n]))
            total, staged = spooled(uri, trials[2 * n + 1], root / f"pod{n}")
            pod.append(total)
            stage.append(staged)
            print(
                f"round {n + 1}: direct {base[-1]:.2f} s, stage+run+upload {total:.2f} s "
                f"(stage {staged:.2f} s)"
            )
        stored = sum(1 for _ in prepared.store.iter_trials())
        b, p = statistics.median(base), statistics.median(pod)
        print(json.dumps({"rounds": rounds, "direct_s": round(b, 2), "spooled_s": round(p, 2),
                          "ratio": round(p / b, 2), "added_s": round(p - b, 2),
                          "stage_s": round(statistics.median(stage), 2),
                          "trials_stored": stored}))  # fmt: skip


if __name__ == "__main__":
    main()
