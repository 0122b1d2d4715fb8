"""Two known rollouts written by the real runner (scripted policy server, recording proxy,
a two-judge panel), and the numbers a test expects, computed from the stored files
directly (plain JSON, not adhere's metrics code).

* ``base``: models ``steady`` and ``drifting``, both the ``agent:read`` policy.
* ``cand`` (``spec.baseline: base``): ``steady`` as before; ``drifting`` now adds an
  emoji to its answers (``SP_no_emoji`` fails everywhere); ``flaky`` gets a 503 on the
  first call of every conversation (the proxy records upstream errors, the client
  retries); ``broken`` is answered 400 on every call (every trial fails; the rollout is
  run twice, so each of its trials is retried once).
"""

import asyncio
import itertools
import json
import math
from collections import defaultdict
from pathlib import Path

from adhere.runner import execute, prepare
from adhere.spec import load_run_config

INSTANCES = 8
FAST = "limits: {maxRetries: 2, backoffBaseSeconds: 0.01, backoffMaxSeconds: 0.02}"
PRICES = {
    "steady": {"inputPerMillion": 1.0, "outputPerMillion": 2.0},
    "agent:*": {"inputPerMillion": 3.0, "outputPerMillion": 5.0},
    "a": {"inputPerMillion": 0.5, "outputPerMillion": 1.5},
}

CHECKLIST = {
    "SP": {
        "description": "",
        "checks": [
            {
                "check_id": "SP_no_emoji",
                "description": "No emoji in answers.",
                "check_type": "compliance",
                "verifier": {"name": "no_emoji"},
            }
        ],
    },
    "User query": {
        "description": "",
        "checks": [
            {
                "check_id": "UQ_first_line",
                "description": "The answer quotes the first line.",
                "check_type": "understanding",
            },
            {
                "check_id": "UQ_read_tool",
                "description": "README.md is read with the read tool.",
                "check_type": "compliance",
                "verifier": {
                    "name": "command_executed",
                    "params": {"pattern": "cat .*README", "expect": "absent"},
                },
            },
        ],
    },
}


def _model(name: str, policy: str) -> str:
    return (
        f"    - {{name: {name}, endpoint: {{api: anthropic, baseUrl: scripted, "
        f"model: '{policy}', {FAST}}}}}\n"
    )


def _write(root: Path) -> tuple[Path, Path]:
    rows = []
    for n in range(INSTANCES):
        # A README of its own per instance: transcripts differ, so do the judges' verdicts.
        (root / f"ws{n}").mkdir(parents=True)
        (root / f"ws{n}" / "README.md").write_text(f"# exporter demo {n}\n")
        rows.append(
            {
                "instance_id": f"i{n}",
                "user_query": ["Show me the first line of README.md."],
                "system_prompt": "",
                "category": "SP",
                "workspace": [f"ws{n}"],
                "checklist": CHECKLIST,
            }
        )
    (root / "instances.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (root / "benchmark.yaml").write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: Benchmark\nmetadata: {name: b}\n"
        "spec: {suite: octobench, source: {path: instances.jsonl}}\n"
    )
    (root / "judges.yaml").write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: JudgePanel\nmetadata: {name: p}\nspec:\n"
        "  aggregation: mean\n  judges:\n"
        "    - {name: a, endpoint: {baseUrl: scripted, model: 'judge:seed=1,garble=0.3'}}\n"
        "    - {name: b, endpoint: {api: anthropic, baseUrl: scripted, model: 'judge:seed=2'}}\n"
    )
    head = "apiVersion: adhere.dev/v1alpha1\nkind: Rollout\n"
    tail = "  scaffolds: [reference]\n  parallelism: 4\n  storage: file://./runs\n"
    base = root / "base.yaml"
    base.write_text(
        f"{head}metadata: {{name: base}}\nspec:\n  benchmark: b\n  judgePanel: p\n  models:\n"
        + _model("steady", "agent:read")
        + _model("drifting", "agent:read")
        + tail
    )
    cand = root / "cand.yaml"
    cand.write_text(
        f"{head}metadata: {{name: cand}}\nspec:\n  benchmark: b\n  judgePanel: p\n"
        "  baseline: base\n  models:\n"
        + _model("steady", "agent:read")
        + _model("drifting", "agent:read,emoji")
        + _model("flaky", "agent:read,fail_first=1,fail_status=503")
        + _model("broken", "agent:read,fail_first=99,fail_status=400")
        + tail
    )
    return base, cand


def build_rollouts(root: Path) -> Path:
    """Write and run both rollouts (``cand`` twice); return the store directory."""
    base, cand = _write(root)

    async def run_all() -> None:
        for path in (base, cand, cand):
            await execute(prepare(load_run_config([path, root / "judges.yaml"])))

    asyncio.run(run_all())
    return root / "runs"


# --- expected values, from the stored JSON files --------------------------------------


def trial_files(store: Path, rollout: str) -> dict[tuple[str, str, str, str], dict]:
    """(model, scaffold, instance, repeat) → {"result": …, "verdicts": […]}, latest attempts."""
    out = {}
    for result in (store / rollout / "trials").rglob("result.json"):
        if any(p.startswith("attempt-") for p in result.parts):
            continue
        model, scaffold, instance, repeat = result.parent.parts[-4:]
        out[(model, scaffold, instance, repeat)] = {
            "result": json.loads(result.read_text()),
            "verdicts": json.loads((result.parent / "verdicts.json").read_text()),
        }
    return out


def _rates(verdict_lists: list[list[dict]]) -> tuple[float, float]:
    all_pass, shares = [], []
    for verdicts in verdict_lists:
        applicable = [v for v in verdicts if v["result"] != "n/a"]
        if not applicable:
            continue
        passed = sum(v["result"] == "pass" for v in applicable)
        all_pass.append(passed == len(applicable))
        shares.append(passed / len(applicable))
    return sum(all_pass) / len(all_pass), sum(shares) / len(shares)


def expected_rates(store: Path, rollout: str, source_prefix: str = "") -> dict[str, tuple]:
    """Model → (ISR, CSR), over the checks whose id starts with ``source_prefix``."""
    by_model: dict[str, list[list[dict]]] = defaultdict(list)
    for (model, *_), files in trial_files(store, rollout).items():
        kept = [v for v in files["verdicts"] if v["check_id"].startswith(source_prefix)]
        if kept:
            by_model[model].append(kept)
    return {model: _rates(lists) for model, lists in by_model.items()}


def expected_isr_regression(store: Path, model: str, source_prefix: str) -> tuple[float, float]:
    """ΔISR of ``model`` (cand − base) over the checks of one source, and McNemar's p."""
    before, after = trial_files(store, "base"), trial_files(store, "cand")
    worse = better = 0
    deltas = []
    for key, files in after.items():
        if key[0] != model or key not in before:
            continue
        sides = []
        for side in (before[key], files):
            kept = [
                v
                for v in side["verdicts"]
                if v["check_id"].startswith(source_prefix) and v["result"] != "n/a"
            ]
            sides.append(all(v["result"] == "pass" for v in kept))
        worse += sides[0] and not sides[1]
        better += sides[1] and not sides[0]
        deltas.append(int(sides[1]) - int(sides[0]))
    n = worse + better
    tail = sum(math.comb(n, k) for k in range(min(worse, better) + 1))
    p = 1.0 if n == 0 else min(1.0, 2 * tail / 2**n)
    return sum(deltas) / len(deltas), p


SOURCE_PREFIXES = {"all": "", "SP": "SP_", "UserQuery": "UQ_"}


def _enumerated_sign_flip(differences: list[float]) -> float:
    """Exact two-sided p: share of the 2^k sign patterns with |Σ ± d| ≥ |Σ d|."""
    observed = abs(sum(differences))
    patterns = list(itertools.product((1, -1), repeat=len(differences)))
    extreme = sum(
        abs(sum(s * d for s, d in zip(signs, differences, strict=True))) >= observed - 1e-9
        for signs in patterns
    )
    return extreme / len(patterns)


def _bh(p_values: list[float]) -> list[float]:
    """Benjamini–Hochberg by hand: p·m/rank, then the running minimum from the largest."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, p_values[i] * m / rank)
        adjusted[i] = running
    return adjusted


def expected_regressions(store: Path, threshold: float = 0.05, alpha: float = 0.05) -> dict:
    """(model, source) → metric → (Δ, p, p adjusted, flagged), from the stored files.

    Every instance has one pair here (one scaffold, one repeat): ISR by McNemar's exact
    test, CSR by the sign-flip test over instances (all 2^8 patterns), Benjamini–Hochberg
    over every (model, source, metric) with a pair.
    """
    before, after = trial_files(store, "base"), trial_files(store, "cand")
    rows: dict = {}
    for model in sorted({key[0] for key in after if key in before}):
        for source, prefix in SOURCE_PREFIXES.items():
            isr, csr = [], []
            for key, files in sorted(after.items()):
                if key[0] != model or key not in before:
                    continue
                sides = []
                for side in (before[key], files):
                    kept = [
                        v
                        for v in side["verdicts"]
                        if v["check_id"].startswith(prefix) and v["result"] != "n/a"
                    ]
                    passed = sum(v["result"] == "pass" for v in kept)
                    sides.append((passed == len(kept), passed / len(kept)) if kept else None)
                if sides[0] is None or sides[1] is None:
                    continue
                isr.append(int(sides[1][0]) - int(sides[0][0]))
                csr.append(sides[1][1] - sides[0][1])
            if not isr:
                continue
            worse, better = isr.count(-1), isr.count(1)
            n = worse + better
            tail = sum(math.comb(n, k) for k in range(min(worse, better) + 1))
            p_isr = 1.0 if n == 0 else min(1.0, 2 * tail / 2**n)
            p_csr = _enumerated_sign_flip(csr) if any(csr) else 1.0
            rows[(model, source)] = {
                "isr": [sum(isr) / len(isr), p_isr],
                "csr": [sum(csr) / len(csr), p_csr],
            }
    family = [(row, metric) for row in rows for metric in ("isr", "csr")]
    adjusted = _bh([rows[row][metric][1] for row, metric in family])
    for (row, metric), p in zip(family, adjusted, strict=True):
        delta = rows[row][metric][0]
        rows[row][metric] = (delta, rows[row][metric][1], p, delta <= -threshold and p < alpha)
    return rows
