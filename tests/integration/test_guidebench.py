"""GuideBench end to end: the example through the runner and the scripted policy server.

The oracle must score 100% in every category; the noisy policy less, with its
garbled replies counted as invalid answers (failures, never dropped) and its
differently written answers normalized and counted.
"""

from pathlib import Path

from adhere.artifacts import RolloutStore
from adhere.report._results import report_for
from adhere.store import open_store
from tests.helpers import ROOT, run_cli

EXAMPLE = ROOT / "examples" / "guidebench"
DATA = ROOT.parent / "shared" / "data" / "guidebench"


def test_example_reports_per_category_accuracy(tmp_path: Path) -> None:
    bench = (EXAMPLE / "benchmark.yaml").read_text(encoding="utf-8")
    bench = bench.replace("path: ../../../shared/data/guidebench", f"path: {DATA}")
    (tmp_path / "benchmark.yaml").write_text(bench, encoding="utf-8")
    rollout = (EXAMPLE / "rollout.yaml").read_text(encoding="utf-8")
    rollout = rollout.replace("file://../../runs", "file://./runs")
    (tmp_path / "rollout.yaml").write_text(rollout, encoding="utf-8")

    proc = run_cli("run", str(tmp_path / "rollout.yaml"))
    assert proc.returncode == 0, proc.stderr
    assert "GuideBench accuracy per category" in proc.stdout
    oracle_line = next(
        line
        for line in proc.stdout.splitlines()
        if line.startswith("│ oracle ") and "relevance" not in line and line.count("%") == 7
    )
    assert oracle_line.count("100.0%") == 7  # six categories and the overall

    report = report_for(RolloutStore(open_store(str(tmp_path / "runs")), "guidebench"))
    main, detail = report.paper
    assert main.header == [
        "model", "price", "relevance", "math", "chat", "summary", "hallucination", "overall",
    ]  # fmt: skip
    rows = {row[0]: row for row in main.rows}
    assert rows["oracle"][1:] == ["100.0%"] * 7
    assert float(rows["noisy"][-1].rstrip("%")) < 100.0

    header = detail.header
    overall = {row[0]: row for row in detail.rows if row[1] == "overall"}
    assert overall["oracle"][header.index("tasks")] == "60"
    assert overall["oracle"][header.index("invalid")] == "0"
    assert int(overall["noisy"][header.index("invalid")]) > 0
    assert int(overall["noisy"][header.index("normalized")]) > 0

    summary = {row[0]: row for row in report.summary.rows}
    invalid = int(summary["noisy"][report.summary.header.index("invalid")])
    wrong = int(summary["noisy"][report.summary.header.index("wrong")])
    assert invalid == int(overall["noisy"][header.index("invalid")])
    # Every noisy failure is either a wrong or an invalid answer: none is dropped.
    accuracy = float(summary["noisy"][report.summary.header.index("accuracy")].rstrip("%"))
    assert round(accuracy * 60 / 100) == 60 - wrong - invalid

    titles = [t.title for t in report.breakdowns]
    assert any(t.startswith("GuideBench rule updates") for t in titles)
    assert any(t.startswith("GuideBench answer normalizations") for t in titles)
    assert (tmp_path / "runs" / "guidebench" / "report" / "report.md").is_file()
