"""ManyIH end to end: the examples through the runner, the scripted policy server,
the sandbox and the report (oracle vs noisy; tier variants; scalar perturbation).
"""

from pathlib import Path

from adhere.artifacts import RolloutStore
from adhere.report._results import report_for
from adhere.store import open_store
from tests.helpers import ROOT, run_cli

EXAMPLE = ROOT / "examples" / "manyih"
DATA = ROOT.parent / "shared" / "data" / "manyih" / "coding.json"


def copy_example(tmp_path: Path, name: str, **replace: str) -> Path:
    text = (EXAMPLE / name).read_text(encoding="utf-8")
    text = text.replace("path: ../../../shared/data/manyih/coding.json", f"path: {DATA}")
    text = text.replace("file://../../runs", "file://./runs")
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_tier_variants_oracle_and_noisy(tmp_path: Path) -> None:
    copy_example(tmp_path, "benchmark.yaml", **{"samples: 20": "samples: 8"})
    rollout = copy_example(tmp_path, "rollout.yaml")
    proc = run_cli("run", str(rollout))
    assert proc.returncode == 0, proc.stderr
    assert "ManyIH coding: Acc" in proc.stdout

    report = report_for(RolloutStore(open_store(str(tmp_path / "runs")), "manyih"))
    main = report.paper[0]
    assert main.header == ["model", "tiers", "samples", "Acc", "Acc_test", "Acc_style"]
    rows = {(r[0], r[1]): r for r in main.rows}
    assert set(rows) == {(m, t) for m in ("noisy", "oracle") for t in ("6", "8", "12")}
    for tiers in ("6", "8", "12"):
        assert rows[("oracle", tiers)][2:] == ["8", "100.0%", "100.0%", "100.0%"]
    noisy_acc = [float(rows[("noisy", t)][3].rstrip("%")) for t in ("6", "8", "12")]
    assert min(noisy_acc) < 100.0

    titles = [t.title for t in report.breakdowns]
    styles = next(t for t in report.breakdowns if t.title.startswith("ManyIH winning styles"))
    tests = next(t for t in report.breakdowns if t.title.startswith("ManyIH unit tests"))
    assert any(t.startswith("ManyIH unit tests") for t in titles)
    noisy_failed = sum(int(r[3]) for r in styles.rows if r[0] == "noisy")
    oracle_failed = sum(int(r[3]) for r in styles.rows if r[0] == "oracle")
    assert oracle_failed == 0 and noisy_failed > 0
    followed = sum(int(r[4]) for r in styles.rows if r[0] == "noisy")
    assert 0 < followed <= noisy_failed  # noise follows a conflicting loser where it can
    outcomes = {r[0]: r for r in tests.rows}
    assert outcomes["oracle"][1] == "24"  # every oracle test run passed, in the sandbox
    assert int(outcomes["noisy"][1]) + int(outcomes["noisy"][4]) == 24  # pass or crash
    summary = {r[0]: r for r in report.summary.rows}
    assert summary["oracle"][report.summary.header.index("Acc")] == "100.0%"


def test_scalar_perturbation_flip_rates(tmp_path: Path) -> None:
    rollout = copy_example(tmp_path, "perturb.yaml", **{"samples: 15": "samples: 5"})
    proc = run_cli("run", str(rollout))
    assert proc.returncode == 0, proc.stderr
    report = report_for(RolloutStore(open_store(str(tmp_path / "runs")), "manyih-perturbed"))
    flips = next(t for t in report.paper if t.title.startswith("ManyIH scalar perturbation"))
    rows = {r[0]: r for r in flips.rows}
    # samples, perturbations each, Acc original/perturbed, Acc/test/style flips, samples
    assert rows["oracle"][1:] == ["5", "3", "100.0%", "100.0%", "0.0%", "0.0%", "0.0%", "0.0%"]
    assert rows["noisy"][1:3] == ["5", "3"]


def test_paper_protocol_example(tmp_path: Path) -> None:
    """protocol: paper scores with the public-compatible checkers and shifts values by ≤ 3."""
    rollout = copy_example(tmp_path, "paper.yaml", **{"samples: 15": "samples: 5"})
    proc = run_cli("run", str(rollout))
    assert proc.returncode == 0, proc.stderr
    store = RolloutStore(open_store(str(tmp_path / "runs")), "manyih-paper")
    report = report_for(store)
    by_tiers = {r[0]: r for r in report.paper[0].rows}
    # the oracle meets the corrected checkers everywhere (the default example shows
    # 100%); under the public checkers some of its styles fail, its tests still pass
    assert by_tiers["oracle"][4] == "100.0%" and by_tiers["oracle"][5] != "100.0%"
    flips = next(t for t in report.paper if t.title.startswith("ManyIH scalar perturbation"))
    assert {r[0]: r for r in flips.rows}["oracle"][5:8] == ["0.0%", "0.0%", "0.0%"]
