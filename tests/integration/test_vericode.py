"""VeriCode end to end: the example subset through the runner, the chat scaffold and the
scripted policy server (oracle and noisy; single-turn and multi-turn), with Ruff checked
by the batched executor and the tests run in the sandbox; then the selector command and
the vibe-correlation analysis on the same run.
"""

import json
from pathlib import Path

from adhere.artifacts import RolloutStore
from adhere.report._results import report_for
from adhere.spec import BenchmarkSpec
from adhere.store import open_store
from adhere.suites import get_suite
from tests.helpers import ROOT, run_cli

EXAMPLE = ROOT / "examples" / "vericode"


def _subset(tmp_path: Path) -> Path:
    bench = (EXAMPLE / "benchmark.yaml").read_text(encoding="utf-8")
    bench = bench.replace("seed: 0}", "seed: 0, limit: 3}").replace(
        "ks: [0, 1, 2, 3, 4, 5]", "ks: [0, 1, 5]"
    )
    assert "limit: 3" in bench and "ks: [0, 1, 5]" in bench
    (tmp_path / "benchmark.yaml").write_text(bench, encoding="utf-8")
    rollout = (EXAMPLE / "rollout.yaml").read_text(encoding="utf-8")
    rollout = rollout.replace("file://../../runs", "file://./runs")
    (tmp_path / "rollout.yaml").write_text(rollout, encoding="utf-8")
    return tmp_path / "rollout.yaml"


def test_example_subset_end_to_end(tmp_path: Path) -> None:
    proc = run_cli("run", str(_subset(tmp_path)), "--quiet", timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "VeriCode instruction following per k" in proc.stdout

    store = RolloutStore(open_store(str(tmp_path / "runs")), "vericode")
    report = report_for(store)
    functional, following = report.paper[-2:]
    rows = {tuple(r[:2]): r[2:] for r in functional.rows}
    # 3 tasks × (k=0, 1, 5 single-turn + one multi-turn) × 2 models
    assert set(rows) == {("oracle", "single"), ("oracle", "multi"),
                         ("noisy", "single"), ("noisy", "multi")}  # fmt: skip
    header = functional.header
    for protocol in ("single", "multi"):
        oracle = rows[("oracle", protocol)]
        assert oracle[header.index("pass@1 k=0") - 2] == "100.0%"
        assert oracle[header.index("pass@1 k=5") - 2] == "100.0%"
        assert oracle[header.index("FR_5") - 2] == "0.0%"
    follow = {tuple(r[:3]): r[3:] for r in following.rows}
    k5 = following.header.index("k=5") - 3
    assert follow[("oracle", "single", "IF_task")][k5] == "100.0%"
    assert follow[("oracle", "multi", "IF_task")] == ["100.0%"] * 5  # cumulative, every turn
    noisy = [follow[("noisy", p, m)][k5] for p in ("single", "multi")
             for m in ("IF_task", "IF_instruction")]  # fmt: skip
    assert all(value != "100.0%" for value in noisy[:1] + noisy[2:3]), noisy
    titles = [t.title for t in report.breakdowns]
    assert any(t.startswith("VeriCode IF_instruction per category") for t in titles)
    assert any(t.startswith("VeriCode IF by instruction position") for t in titles)
    summary = {row[0]: row for row in report.summary.rows}
    assert summary["oracle"][report.summary.header.index("all checks passed")] == "100.0%"

    # noisy failures are real: a Ruff diagnostic or a failing test, never a missing verdict
    noisy_verdicts = [
        v for s in store.iter_trials() if s.result.trial.model == "noisy" for v in s.verdicts
    ]
    failed = [v for v in noisy_verdicts if v.result != "pass"]
    assert failed and all(v.result == "fail" for v in failed)
    assert any(v.details.get("diagnostics") for v in failed)

    elo = tmp_path / "elo.csv"
    elo.write_text("model,elo\noracle,1300\nnoisy,1100\n", encoding="utf-8")
    proc = run_cli(
        "analyze", "vibe-correlation", str(tmp_path / "runs" / "vericode"), "--elo", str(elo)
    )
    assert proc.returncode == 0, proc.stderr
    assert "models compared: noisy, oracle" in proc.stdout
    assert "best α by Pearson: undefined" in proc.stdout  # two models: no correlation
    assert "best α by Kendall: undefined" in proc.stdout
    proc = run_cli(
        "analyze", "vibe-correlation", str(tmp_path / "runs" / "vericode"), "--elo", str(elo),
        "--points", "largest", "--max-error-rate", "0.1",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "models compared: noisy, oracle" in proc.stdout


def test_generate_with_the_selector_double_and_load(tmp_path: Path) -> None:
    out = tmp_path / "selected.jsonl"
    proc = run_cli(
        "generate", "vericode", "--selector", "vericode-selector:seed=2,params=1",
        "--limit", "4", "--k", "3", "--seed", "5", "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 4 and all(len(line["instructions"]) == 3 for line in lines)
    assert all(line["selector"] == "vericode-selector:seed=2,params=1" for line in lines)
    suite = get_suite("vericode", protocols=["single"], ks=[3])
    spec = BenchmarkSpec.model_validate({"suite": "vericode", "source": {"path": str(out)}})
    loaded = suite.load(spec, base_dir=tmp_path)
    assert len(loaded) == 4 and all(i.metadata["k"] == 3 for i in loaded)


def test_vibe_correlation_from_a_scores_file(tmp_path: Path) -> None:
    scores = tmp_path / "scores.csv"
    scores.write_text("model,if,func\na,10,10\nb,20,30\nc,30,20\nd,40,40\n", encoding="utf-8")
    elo = tmp_path / "elo.yaml"
    elo.write_text("a: 1000\nb: 1200\nc: 1100\nd: 1300\n", encoding="utf-8")
    proc = run_cli("analyze", "vibe-correlation", "--scores", str(scores), "--elo", str(elo),
                   "--step", "0.5")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "best α by Pearson: 0.00 (1.000)" in proc.stdout
    assert "0.50" in proc.stdout and "0.949" in proc.stdout
