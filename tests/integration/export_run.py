"""A small scored run for the export tests, and the counts its files hold (read by hand).

Three OctoBench-format instances (five checks, two decided by verifiers, three by a
panel of two scripted judges) under two scripted agents, one of which writes emoji.
The counts are computed from the stored JSON files directly, not through adhere.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SECRET = "sk-export-test-0123456789-planted"
"""Planted in the agents' API key variable; no exported file may hold it."""
KEY_VAR = "ADHERE_EXPORT_TEST_KEY"

CHECKLIST = {
    "SP": {
        "description": "",
        "checks": [
            {"check_id": "SP_no_emoji", "description": "No emoji.", "check_type": "compliance"},
            {"check_id": "SP_concise", "description": "Concise.", "check_type": "compliance"},
            {
                "check_id": "SP_if_tests",
                "description": "If it changes code, it runs the tests.",
                "check_type": "testing",
            },
        ],
    },
    "User query": {
        "description": "",
        "checks": [
            {
                "check_id": "UQ_first_line",
                "description": "Quotes the first line.",
                "check_type": "understanding",
            },
            {
                "check_id": "UQ_no_cat",
                "description": "README.md is not read with cat.",
                "check_type": "compliance",
                "verifier": {
                    "name": "command_executed",
                    "params": {"pattern": "cat .*README", "expect": "absent"},
                },
            },
        ],
    },
}
CHECKS = 5


def write_run(root: Path, storage: str = "file://./runs") -> Path:
    """The spec files of the run; returns the rollout YAML."""
    (root / "ws").mkdir()
    (root / "ws" / "README.md").write_text("# export demo\n")
    rows = [
        {
            "instance_id": f"i{n}",
            "user_query": ["Show me the first line of README.md."],
            "system_prompt": "Never use emoji.",
            "category": "SP",
            "workspace": ["ws"],
            "checklist": CHECKLIST,
        }
        for n in range(3)
    ]
    (root / "instances.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (root / "bindings.yaml").write_text(
        "bindings:\n  - match: {check_id: '.*_no_emoji'}\n    verifier: no_emoji\n"
    )
    (root / "benchmark.yaml").write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: Benchmark\nmetadata: {name: b}\n"
        "spec: {suite: octobench, source: {path: instances.jsonl},"
        " options: {bindings: bindings.yaml}}\n"
    )
    (root / "judges.yaml").write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: JudgePanel\nmetadata: {name: p}\nspec:\n"
        "  judges:\n"
        "    - {name: a, endpoint: {baseUrl: scripted, model: 'judge:seed=1,drop=0.3'}}\n"
        "    - {name: b, endpoint: {api: anthropic, baseUrl: scripted, model: 'judge:seed=2'}}\n"
    )
    key = f"apiKey: {{env: {KEY_VAR}}}"
    path = root / "rollout.yaml"
    path.write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: Rollout\nmetadata: {name: r}\nspec:\n"
        "  benchmark: b\n  judgePanel: p\n  models:\n"
        "    - {name: good, endpoint: {api: anthropic, baseUrl: scripted,"
        f" model: 'agent:read', {key}}}}}\n"
        "    - {name: emoji, endpoint: {api: openai, baseUrl: scripted,"
        f" model: 'agent:read,emoji', {key}}}}}\n"
        f"  scaffolds: [reference]\n  parallelism: 4\n  storage: {storage}\n"
    )
    return path


def trial_dirs(files: dict[str, bytes]) -> list[str]:
    """Key prefixes of the finished trials (``…/r<n>/``) among a store's files."""
    return sorted(
        key[: -len("result.json")]
        for key in files
        if key.endswith("/result.json") and "/attempt-" not in key
    )


def expected_rows(files: dict[str, bytes]) -> dict[str, int]:
    """Each table's row count, from a rollout's files (key → bytes) read by hand."""
    dirs = trial_dirs(files)
    counts = {"trials": len(dirs), "checks": 0, "calls": 0, "messages": 0}
    for prefix in dirs:
        judges: dict[str, list[Any]] = json.loads(files.get(prefix + "judge_verdicts.json", b"{}"))
        counts["checks"] += CHECKS + sum(len(verdicts) for verdicts in judges.values())
        calls = files.get(prefix + "calls.jsonl", b"").decode()
        counts["calls"] += sum(1 for line in calls.splitlines() if line.strip())
        if prefix + "trajectory.json" in files:
            trajectory = json.loads(files[prefix + "trajectory.json"])
            counts["messages"] += len(trajectory["messages"]) + bool(trajectory["system"])
    return counts
