"""VeriCode verification throughput: batched Ruff against one Ruff process per check.

Builds N (response, instruction) pairs — responses are the built-in tasks' reference
solutions with seeded violations (as the noisy double writes them), each made distinct,
five instructions per response from the deterministic selector — and verifies them:

1. batched: :func:`adhere.scoring._ruff_batch.check_requests`, all of it — writing the
   distinct files, one Ruff process per compatible settings group (three here: preview
   rules; the stricter settings; ``E``/``W`` at the default line length), reading
   Ruff's output, mapping diagnostics back and building one Evidence per pair;
2. one process per check: :func:`check_one_by_one` (the naive way); with ``--sample``
   only that many pairs are run this way and the time is scaled up (said in the output);
3. raw Ruff: Ruff alone over the same distinct files, written beforehand (outside the
   timing) in the same scratch directory, with the same output format
   (``concise --quiet``), nothing read back: (a) one process with the union of every
   selector and ``--preview`` — the goal's "raw throughput"; (b) the same three group
   commands the batched path runs, started together as it starts them — what Ruff
   alone costs for the work batched verification must do (preview and non-preview
   rules, and ``line-length = 79`` beside ``E`` at the default, cannot share a process).

Batched and raw runs alternate, ``--repeat`` rounds, and the best of each is kept (the
machine may be shared; the first round also warms the caches). Prints the speedup of
(1) over (2) as ``N.Nx`` (goal ≥ 20x) and the ratios of (1) to (3a) (goal within 2x)
and to (3b), and checks that (1) and (2) agree on every pair run both ways.

Run: uv run python bench/vericode_verify.py [--pairs 10000] [--sample 500] [--repeat 5]
"""

import argparse
import os
import random
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from adhere.core import RuffRun
from adhere.judging.verifiers._ruff import find_ruff, toml_setting, write_files
from adhere.scoring._ruff_batch import check_one_by_one, check_requests, plan_groups, scratch_dir
from adhere.suites.vericode import (
    INSTRUCTIONS,
    builtin_tasks,
    by_id,
    extract_code,
    render_reply,
    select_deterministic,
)

T = TypeVar("T")


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


def ruff_commands(requests: list[RuffRun]) -> tuple[list[str], list[list[str]]]:
    """Raw Ruff argv: (one process, every selector; one per run group), paths appended."""
    base = [find_ruff(), "check", "--isolated", "--no-cache", "--exit-zero", "--quiet",
            "--output-format", "concise"]  # fmt: skip
    select = sorted({s for r in requests for s in r.select})
    single = [*base, "--preview", "--select", ",".join(select)]
    names = distinct_files(requests)
    groups = []
    for preview, settings, members in plan_groups(requests):
        command = [
            *base,
            "--select",
            ",".join(sorted({s for i in members for s in requests[i].select})),
        ]
        command += ["--preview"] if preview else []
        for key, value in sorted(settings.items()):
            command += ["--config", toml_setting(key, value)]
        groups.append([*command, "--", *sorted({names[requests[i].code] for i in members})])
    return [*single, "--", *sorted(names.values())], groups


def distinct_files(requests: list[RuffRun]) -> dict[str, str]:
    """``{code: file name}``, one file per distinct code, named as the batched path names them."""
    names: dict[str, str] = {}
    for request in requests:
        names.setdefault(request.code, f"r{len(names)}.py")
    return names


def run_raw(commands: list[list[str]], cwd: str) -> None:
    """Ruff alone: the commands started together, their output read, not parsed."""
    running = [subprocess.Popen(c, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
               for c in commands]  # fmt: skip
    for process in running:
        process.communicate()
        if process.returncode:
            raise SystemExit(f"raw ruff failed with {process.returncode}")


def timed(run: Callable[[], T]) -> tuple[float, float, T]:
    """(wall seconds, CPU seconds of this process and the children it waited for, result)."""
    cpu = os.times()
    started = time.perf_counter()
    result = run()
    wall = time.perf_counter() - started
    after = os.times()
    used = sum(after[:4]) - sum(cpu[:4])  # user, system, children's user and system
    return wall, used, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--sample", type=int, default=0, help="naive pairs run (0: all)")
    parser.add_argument("--repeat", type=int, default=5, help="rounds; the best is kept")
    args = parser.parse_args()

    requests = build_pairs(args.pairs)
    names = distinct_files(requests)
    print(f"{len(requests)} (response, instruction) pairs over {len(names)} distinct responses")

    single, groups = ruff_commands(requests)
    wall = {"batched": float("inf"), "raw": float("inf"), "raw groups": float("inf")}
    cpu = dict(wall)

    def keep(key: str, seconds: float, used: float) -> None:
        wall[key], cpu[key] = min(wall[key], seconds), min(cpu[key], used)

    with tempfile.TemporaryDirectory(prefix="adhere-raw-", dir=scratch_dir()) as tmp:
        root = str(Path(tmp).resolve())
        write_files(Path(root), {name: code for code, name in names.items()})  # untimed
        for _ in range(max(1, args.repeat)):
            seconds, used, batched = timed(lambda: check_requests(requests))
            keep("batched", seconds, used)
            keep("raw", *timed(lambda: run_raw([single], root))[:2])
            keep("raw groups", *timed(lambda: run_raw(groups, root))[:2])
    failing = sum(1 for e in batched if e.status == "fail")
    errors = sum(1 for e in batched if e.status == "error")
    print(f"batched:          {wall['batched']:8.2f} s  ({len(requests) / wall['batched']:,.0f} "
          f"pairs/s; {failing} fail, {errors} error; all of check_requests: files written, "
          f"{len(groups)} Ruff groups, output read, evidence built)")  # fmt: skip

    sample = requests if not args.sample else random.Random(1).sample(requests, args.sample)
    naive_run, _, naive = timed(lambda: check_one_by_one(sample))
    naive_s = naive_run * len(requests) / len(sample)
    scaled = "" if len(sample) == len(requests) else f" (scaled from {len(sample)} pairs)"
    print(f"one per check:    {naive_s:8.2f} s{scaled}")

    by_id_batched = {e.id: e for e in batched}
    disagree = [e.id for e in naive if by_id_batched[e.id] != e]
    print(f"agreement:        {len(sample) - len(disagree)}/{len(sample)} pairs (whole evidence)")

    print(f"raw ruff:         {wall['raw']:8.2f} s  (Ruff alone, files pre-written: one process, "
          "every selector, --preview)")  # fmt: skip
    print(f"raw ruff, groups: {wall['raw groups']:8.2f} s  (Ruff alone, files pre-written: the "
          f"{len(groups)} group commands of the batched path, started together)")  # fmt: skip
    print(f"best of {max(1, args.repeat)} rounds each, batched and raw alternating")
    print(f"speedup over one process per check: {naive_s / wall['batched']:.1f}x (goal >= 20x)")
    print(f"batched / raw ruff throughput:      {wall['batched'] / wall['raw']:.1f}x (goal <= 2x)")
    print(f"batched / raw ruff, same groups:    {wall['batched'] / wall['raw groups']:.1f}x")
    print(f"CPU seconds (process + Ruff), best: batched {cpu['batched']:.2f}, raw {cpu['raw']:.2f}"
          f" ({cpu['batched'] / cpu['raw']:.1f}x), raw groups {cpu['raw groups']:.2f}")  # fmt: skip
    if disagree:
        raise SystemExit(f"batched and per-check results differ: {disagree[:5]}")


if __name__ == "__main__":
    main()
