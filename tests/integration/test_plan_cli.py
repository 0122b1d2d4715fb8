"""`adhere plan`, `validate` and `run` with instance-bound scaffolds and image-only instances."""

import json
from pathlib import Path

from tests.helpers import run_cli

CHECKLIST = {
    "SP": {
        "description": "",
        "checks": [{"check_id": "a", "description": "x", "check_type": "compliance"}],
    }
}


def row(id_, scaffold=None, **extra):
    return {
        "instance_id": id_,
        "user_query": ["do it"],
        "category": "SP",
        "checklist": CHECKLIST,
        **({"scaffold": scaffold} if scaffold else {}),
        **extra,
    }


def specs(tmp_path: Path, rows, scaffolds="fromInstance") -> Path:
    (tmp_path / "rows.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
    )
    path = tmp_path / "specs.yaml"
    path.write_text(
        f"""\
apiVersion: adhere.dev/v1alpha1
kind: Benchmark
metadata: {{name: b}}
spec: {{suite: octobench, source: {{path: rows.jsonl}}}}
---
apiVersion: adhere.dev/v1alpha1
kind: Rollout
metadata: {{name: bound}}
spec:
  benchmark: b
  models: [{{name: m, endpoint: {{api: anthropic, baseUrl: scripted, model: "agent:read"}}}}]
  scaffolds: {scaffolds}
  storage: file://./runs
""",
        encoding="utf-8",
    )
    return path


FILES = {"workspace": {"README.md": "hello\n"}}


def test_plan_prints_trials_per_scaffold_and_version_and_the_skipped(tmp_path: Path) -> None:
    path = specs(
        tmp_path,
        [
            row("cc", {"name": "claudecode", "version": "2.0.69"}, **FILES),
            row("kd", {"name": "kilo-dev"}, **FILES),
            row("none", **FILES),
        ],
    )
    done = run_cli("plan", str(path))
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0] == (
        "Rollout bound: 2 instances (1 skipped) × 1 model × 1 repeat under "
        "claude-code 2.0.69, kilo 7.7.7 = 2 trials"
    )
    assert [line.split() for line in out[4:6]] == [
        ["m", "claude-code", "2.0.69", "1"],
        ["m", "kilo", "7.7.7", "1"],
    ]
    assert any("1 instance name kilo 0.10.2" in line and "not on npm" in line for line in out)
    assert any(line.startswith("  1 instance: names no scaffold") for line in out)
    validated = run_cli("validate", str(path))
    assert validated.returncode == 0, validated.stderr
    assert "ok: 2 instances (1 skipped) × 1 model × 1 repeat under claude-code 2.0.69" in (
        validated.stdout
    )


def test_image_only_instances_are_refused_at_plan_time_for_a_local_run(tmp_path: Path) -> None:
    image = {"image": "registry.example/private:1"}
    path = specs(
        tmp_path,
        [
            row("img-1", {"name": "claudecode", "version": "2.0.69"}, **image),
            row("img-2", {"name": "droid"}, **image),
            row("files", {"name": "droid"}, **image, **FILES),
        ],
    )
    planned = run_cli("plan", str(path))
    assert planned.returncode == 2
    assert "= 3 trials" in planned.stdout.splitlines()[0]  # the plan is shown, then refused
    refusal = planned.stderr
    assert "2 of the 3 planned instances give their workspace only as a container image" in refusal
    assert "supply the workspaces as files" in refusal and "on a cluster" in refusal
    assert refusal.startswith(f"error: {path}: workspace: ")
    assert run_cli("plan", "--cluster", str(path)).returncode == 0

    validated = run_cli("validate", "--no-secrets", str(path))
    assert validated.returncode == 2
    assert "2 of the 3 planned instances" in validated.stderr
    assert run_cli("validate", "--cluster", str(path)).returncode == 0

    ran = run_cli("run", str(path))
    assert ran.returncode == 2
    assert "2 of the 3 planned instances" in ran.stderr
    assert not (tmp_path / "runs").exists()  # refused before the store was opened
