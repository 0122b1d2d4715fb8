"""PACIFIC generation and scoring throughput, as ratios against same-run baselines.

Generation: samples/s of the generator (length-aware selection, type checks, sample
validation) against the baseline of merely re-evaluating the same chains with the
reference implementations.
Scoring: samples/s of parsing + classifying + building verdicts against the baseline
of a bare regex scan of the same replies.

Run: uv run python bench/bench_pacific.py
"""

import re
import time

from adhere.core import ChatMessage, Trajectory
from adhere.suites.pacific import GeneratorParams, PacificSuite, by_id, generate, sample_to_instance

PARAMS = GeneratorParams(
    instructions=(3, 5, 8, 10, 15), lengths=(3, 5, 10), per_language=33, seed=9
)


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    samples = list(generate(PARAMS))
    n = len(samples)

    def evaluate_chains() -> None:
        for s in samples:
            value = s.initial
            for step in s.steps:
                value = by_id(step.paper_id)(value)

    gen = best_of(lambda: list(generate(PARAMS)))
    base = best_of(evaluate_chains)
    print(
        f"generation: {n / gen:,.0f} samples/s; "
        f"baseline chain evaluation {n / base:,.0f} samples/s; "
        f"generator costs {gen / base:.1f}x a bare evaluation"
    )

    suite = PacificSuite()
    instances = [sample_to_instance(s) for s in samples]
    trajectories = []
    for inst in instances:
        reply = suite.oracle_reply(inst, 0, lambda k: k == "step-2")
        trajectories.append(
            Trajectory(
                messages=[
                    ChatMessage(role="user", content=inst.turns[0]),
                    ChatMessage(role="assistant", content=reply),
                ]
            )
        )
    tag = re.compile(r"\[ANSWER\]\[(\d+)\](.*?)\[\\ANSWER\]", re.S)

    def score() -> None:
        for inst, traj in zip(instances, trajectories, strict=True):
            suite.score(inst, traj)

    def scan() -> None:
        for traj in trajectories:
            tag.findall(traj.messages[-1].content)

    sc = best_of(score)
    bl = best_of(scan)
    print(
        f"scoring: {n / sc:,.0f} samples/s; baseline regex scan {n / bl:,.0f} samples/s; "
        f"scoring costs {sc / bl:.1f}x a bare scan"
    )


if __name__ == "__main__":
    main()
