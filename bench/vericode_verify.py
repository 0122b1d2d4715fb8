"""VeriCode verification throughput: batched Ruff against one Ruff process per check.

Builds N (response, instruction) pairs — responses are the built-in tasks' reference
solutions with seeded violations (as the noisy double writes them), each made distinct,
five instructions per response from the deterministic selector — and verifies them:

1. batched: :func:`adhere.runner._ruff_batch.check_requests` (one Ruff process per
   compatible settings group, files deduplicated, diagnostics mapped back);
2. one process per check: :func:`check_one_by_one` (the naive way); with ``--sample``
   only that many pairs are run this way and the time is scaled up (said in the output);
3. raw Ruff: one ``ruff check`` over the same distinct files with the union of every
   selector and ``--preview`` — what Ruff alone costs, with no mapping back.

Prints the speedup of (1) over (2) as ``N.Nx`` (goal ≥ 20x) and the ratio of (1) to (3)
(goal within 2x), and checks that (1) and (2) agree on every pair run both ways.

Run: uv run python bench/vericode_verify.py [--pairs 10000] [--sample 500]
"""

import argparse
import random
import subprocess
import tempfile
import time
from pathlib import Path

from adhere.judging.verifiers._ruff import find_ruff
from adhere.runner._ruff_batch import check_one_by_one, check_requests
from adhere.spec import RuffRun
from adhere.suites.vericode import (
    INSTRUCTIONS,
    builtin_tasks,
    by_id,
    extract_code,
    render_reply,
    select_deterministic,
)


def build_pairs(count: int, seed: int = 0) -> list[RuffRun]:
    rng = random.Random(seed)
    tasks = builtin_tasks()
    ruff_ids = {i.id for i in INSTRUCTIONS if i.custom is None}
    requests: list[RuffRun] = []
    response = 0
    while len(requests) < count:
        task = tasks[response % len(tasks)]
        chosen = [c for c in select_deterministic(task, 5, response).instructions]
        active = [(c.id, c.params) for c in chosen]
        wrong = {c.id for c in chosen if rng.random() < 0.3}
        code = extract_code(render_reply(task, active, lambda key, w=wrong: key in w))
        code += f"\n\nVARIANT = {response}\n"  # every response distinct, as a model's would be
        for c in chosen:
            if c.id not in ruff_ids or len(requests) >= count:
                continue
            instruction = by_id(c.id)
            requests.append(
                RuffRun(
                    id=f"{response}:{c.id}",
                    code=code,
                    select=list(instruction.select),
                    config=instruction.ruff_config(c.params),
                    preview=instruction.preview,
                )
            )
        response += 1
    return requests


def raw_ruff(requests: list[RuffRun]) -> float:
    """Seconds for one plain ``ruff check`` over the distinct files, every selector at once."""
    codes = sorted({r.code for r in requests})
    select = sorted({s for r in requests for s in r.select})
    with tempfile.TemporaryDirectory() as tmp:
        for i, code in enumerate(codes):
            (Path(tmp) / f"r{i}.py").write_text(code, encoding="utf-8")
        command = [find_ruff(), "check", "--isolated", "--no-cache", "--exit-zero", "--preview",
                   "--output-format", "json", "--select", ",".join(select), "."]  # fmt: skip
        started = time.perf_counter()
        subprocess.run(command, cwd=tmp, capture_output=True, check=True)
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--sample", type=int, default=0, help="naive pairs run (0: all)")
    args = parser.parse_args()

    requests = build_pairs(args.pairs)
    responses = len({r.code for r in requests})
    print(f"{len(requests)} (response, instruction) pairs over {responses} distinct responses")

    started = time.perf_counter()
    batched = check_requests(requests)
    batched_s = time.perf_counter() - started
    failing = sum(1 for e in batched if e.status == "fail")
    errors = sum(1 for e in batched if e.status == "error")
    print(f"batched:          {batched_s:8.2f} s  ({len(requests) / batched_s:,.0f} pairs/s; "
          f"{failing} fail, {errors} error)")  # fmt: skip

    sample = requests if not args.sample else random.Random(1).sample(requests, args.sample)
    started = time.perf_counter()
    naive = check_one_by_one(sample)
    naive_run = time.perf_counter() - started
    naive_s = naive_run * len(requests) / len(sample)
    scaled = "" if len(sample) == len(requests) else f" (scaled from {len(sample)} pairs)"
    print(f"one per check:    {naive_s:8.2f} s{scaled}")

    by_id_batched = {e.id: e.status for e in batched}
    disagree = [e.id for e in naive if by_id_batched[e.id] != e.status]
    print(f"agreement:        {len(sample) - len(disagree)}/{len(sample)} pairs")

    raw_s = min(raw_ruff(requests) for _ in range(2))
    print(f"raw ruff:         {raw_s:8.2f} s  (one process, every selector, same files)")
    print(f"speedup over one process per check: {naive_s / batched_s:.1f}x (goal >= 20x)")
    print(f"batched / raw ruff throughput:      {batched_s / raw_s:.1f}x (goal <= 2x)")
    if disagree:
        raise SystemExit(f"batched and per-check results differ: {disagree[:5]}")


if __name__ == "__main__":
    main()
