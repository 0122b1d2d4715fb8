"""The user-facing path: bad input gives one line ``error: FILE: FIELD: …`` and exit status 2.

The cases are the ones measured on main (a traceback, or accepted by ``validate`` and
then failing at ``run``, or accepted silently).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import ROOT, bench_yaml, model, rollout_yaml, run_cli

ORACLE = model("oracle", "oracle")


def _one_clean_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert "Traceback" not in stderr
    assert len(lines) == 1, stderr
    return lines[0]


CASES = {
    "not-utf8": (b"apiVersion: adhere.dev/v1alpha1\nkind: \xff\xfe\n", None,
                 "line 2, column 7: not UTF-8"),
    "deep": (bench_yaml() + "  options: " + "[" * 5000 + "]" * 5000 + "\n", None,
             "line 13: values nested deeper than 100 levels"),
    "kind-list": (bench_yaml().replace("kind: Benchmark", "kind: [Benchmark]"), None,
                  "kind: expected one of ['Benchmark', 'JudgePanel', 'Rollout'], "
                  "got ['Benchmark']"),
    "duplicate-key": (bench_yaml(per_language=2).replace("perLanguage: 2\n",
                      "perLanguage: 2\n      perLanguage: 999\n"), rollout_yaml(ORACLE),
                      "line 11: duplicate key 'perLanguage' (first given at line 10)"),
    "generator-type": (bench_yaml(per_language='"two"'), rollout_yaml(ORACLE),
                       "spec.source.generate.perLanguage: expected an integer, got 'two'"),
    "base-url": (bench_yaml(), rollout_yaml(model("m", "oracle", base="not a url")),
                 "spec.models[0].endpoint.baseUrl: expected an http(s) URL"),
    "scaffold": (bench_yaml(), rollout_yaml(ORACLE).replace("  parallelism",
                 "  scaffolds: [claude_code]\n  parallelism"),
                 "spec.scaffolds[0].name: unknown scaffold 'claude_code'; "
                 "did you mean 'claude-code'?"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_validate_gives_one_clean_line(tmp_path: Path, case: str) -> None:
    bench, rollout, expected = CASES[case]
    bench_file = tmp_path / "benchmark.yaml"
    bench_file.write_bytes(bench if isinstance(bench, bytes) else bench.encode())
    files = [bench_file]
    if rollout is not None:
        (tmp_path / "rollout.yaml").write_text(rollout)
        files.append(tmp_path / "rollout.yaml")
    proc = run_cli("validate", *map(str, files))
    assert proc.returncode == 2
    line = _one_clean_line(proc.stderr)
    assert line.startswith("error: ") and str(tmp_path) in line
    assert expected in line


def test_run_stops_at_the_same_check_before_any_trial(tmp_path: Path) -> None:
    (tmp_path / "benchmark.yaml").write_text(bench_yaml(per_language='"two"'))
    (tmp_path / "rollout.yaml").write_text(rollout_yaml(ORACLE))
    proc = run_cli("run", str(tmp_path / "rollout.yaml"), "--quiet")
    assert proc.returncode == 2
    line = _one_clean_line(proc.stderr)
    assert "spec.source.generate.perLanguage: expected an integer, got 'two'" in line
    assert not (tmp_path / "runs").exists()  # nothing started


def test_validate_reads_the_octobench_sample_with_its_bindings_file() -> None:
    files = sorted(str(p) for p in (ROOT / "examples" / "octobench-sample").glob("*.yaml"))
    proc = run_cli("validate", *files)
    assert proc.returncode == 0, proc.stderr
    assert "bindings.yaml: verifier bindings ok (10 rules)" in proc.stdout
    assert "Rollout octobench-sample ok: 8 instances" in proc.stdout
