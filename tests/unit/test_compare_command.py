"""`adhere compare` on small hand-written stores: what it prints, writes and exits with."""

import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from adhere.artifacts import RolloutStore
from adhere.cli import main
from adhere.core import Check, Instance, Trial, TrialResult, Verdict
from adhere.store import FileStore

CHECKS = 20


def write_run(
    root: Path,
    name: str,
    passed: dict[tuple[str, int], int],
    *,
    checks: int = CHECKS,
) -> Path:
    """A rollout of model ``m``: (instance, repeat) → how many of ``checks`` SP checks passed."""
    store = RolloutStore(FileStore(root), name)
    spec = {
        "benchmark": "bench",
        "models": [{"name": "m", "endpoint": {"model": "id-m"}}],
        "scaffolds": [{"name": "chat"}],
    }
    store.write_specs([{"kind": "Rollout", "metadata": {"name": name}, "spec": spec}])
    check_list = [
        Check(id=f"c{n}", source="SP", kind="compliance", description="d") for n in range(checks)
    ]
    instances = sorted({i for i, _ in passed})
    store.write_instances(
        Instance(id=i, suite="octobench", turns=["go"], checks=check_list) for i in instances
    )
    for (instance, repeat), count in passed.items():
        trial = Trial(rollout=name, model="m", scaffold="chat", instance=instance, repeat=repeat)
        store.write_verdicts(
            trial,
            [
                Verdict(check_id=f"c{n}", result="pass" if n < count else "fail", decided_by="v")
                for n in range(checks)
            ],
        )
        store.write_result(
            TrialResult(
                trial=trial,
                trial_id=trial.id,
                status="ok",
                started_at="2025-01-01T00:00:00+00:00",
                finished_at="2025-01-01T00:00:01+00:00",
                duration_seconds=1,
            )
        )
    return root / name


def compare(base: Path, cand: Path, *args: str):
    return CliRunner().invoke(main, ["compare", str(base), str(cand), *args])


def flags(report: Path) -> list[str]:
    """The flag column of the Markdown report's table."""
    rows = [line for line in report.read_text().splitlines() if line.startswith("| m |")]
    return [row.split(" | ")[-1].rstrip(" |") for row in rows]


def test_one_instance_with_four_repeats_says_insufficient_data(tmp_path: Path) -> None:
    # The measured case: CSR 100 % → 50 % on four repeats of one instance. It used to be
    # "REGRESSED CSR" at p < 0.001 and made --fail-on-regression exit 1.
    base = write_run(tmp_path, "a", {("i0", r): CHECKS for r in range(4)})
    cand = write_run(tmp_path, "b", {("i0", r): CHECKS // 2 for r in range(4)})
    out = tmp_path / "compare.md"
    result = compare(base, cand, "--fail-on-regression", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "insufficient data" in result.output
    assert "REGRESSED" not in result.output and "<0.001" not in result.output
    assert "No regression flagged." in out.read_text()
    assert flags(out) == ["insufficient data", "insufficient data"]


def test_only_isr_regressing_fails_the_gate(tmp_path: Path) -> None:
    # Eight instances; the candidate fails one check of 20 everywhere: ISR −100 pp,
    # CSR −5 pp (below a 10 pp threshold). Only ISR is flagged, and that is enough.
    base = write_run(tmp_path, "a", {(f"i{n}", 0): CHECKS for n in range(8)})
    cand = write_run(tmp_path, "b", {(f"i{n}", 0): CHECKS - 1 for n in range(8)})
    out = tmp_path / "compare.md"
    result = compare(base, cand, "--threshold", "0.1", "--fail-on-regression", "--out", str(out))
    assert result.exit_code == 1, result.output
    assert flags(out) == ["REGRESSED ISR", "REGRESSED ISR"]  # sources all and SP
    assert compare(base, cand, "--threshold", "0.1").exit_code == 0  # no gate, no failure


def test_only_csr_regressing_fails_the_gate(tmp_path: Path) -> None:
    # Every trial fails ISR on both sides (no discordant pair), CSR drops 15 → 5 of 20.
    base = write_run(tmp_path, "a", {(f"i{n}", 0): 15 for n in range(8)})
    cand = write_run(tmp_path, "b", {(f"i{n}", 0): 5 for n in range(8)})
    out = tmp_path / "compare.md"
    result = compare(base, cand, "--fail-on-regression", "--out", str(out))
    assert result.exit_code == 1, result.output
    assert flags(out) == ["REGRESSED CSR", "REGRESSED CSR"]


def test_the_report_shows_rates_and_differences_with_intervals(tmp_path: Path) -> None:
    base = write_run(tmp_path, "a", {(f"i{n}", 0): CHECKS for n in range(8)}, checks=CHECKS)
    cand = write_run(
        tmp_path, "b", {(f"i{n}", 0): CHECKS if n < 4 else 0 for n in range(8)}, checks=CHECKS
    )
    out = tmp_path / "compare.md"
    assert compare(base, cand, "--out", str(out)).exit_code == 0
    lines = out.read_text().splitlines()
    header = next(line for line in lines if line.startswith("| model"))
    row = next(line for line in lines if line.startswith("| m | all"))
    cells = dict(zip(header.split(" | "), row.split(" | "), strict=True))
    # Baseline 8/8 (Wilson [67.6, 100]), candidate 4/8 (Wilson [21.5, 78.5]).
    assert cells["ISR base"] == "100.0% [67.6, 100.0]"
    assert cells["ISR cand"] == "50.0% [21.5, 78.5]"
    assert cells["ΔISR"].startswith("-50.0 pp [")
    # McNemar with 4 worse, 0 better: 2/16 — not significant, not flagged.
    assert cells["p"] == "0.125"


def test_a_ci_log_gets_whole_cells(tmp_path: Path) -> None:
    """Off a terminal (a CI log, where --fail-on-regression runs) no cell is cut to "…":
    the console is not Rich's 80-column fallback."""
    base = write_run(tmp_path, "a", {(f"i{n}", 0): CHECKS for n in range(8)})
    cand = write_run(tmp_path, "b", {(f"i{n}", 0): CHECKS - 1 for n in range(8)})
    env = {k: v for k, v in os.environ.items() if k not in {"COLUMNS", "LINES"}}
    done = subprocess.run(
        [sys.executable, "-m", "adhere.cli", "compare", str(base), str(cand), "--threshold", "0.1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout, done.stdout
    assert "REGRESSED ISR" in done.stdout
    widest = max(len(line) for line in done.stdout.splitlines())
    assert widest > 80  # the table's natural width, wider than the old fallback
