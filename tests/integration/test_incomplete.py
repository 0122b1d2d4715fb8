"""Undecided and errored checks are never passes: the measured cases, through the real CLI.

Each rollout is an OctoBench-format benchmark of three instances whose checklist has
two verifier-bound checks and three judge-bound ones, run through the real runner and
the recording proxy against the scripted policy server.

* No judge panel: the judge-bound checks stay undecided; every trial is incomplete.
  (Before: the verifier's pass made each trial count as passed — ISR 100%.)
* Every judge call failing: every per-judge verdict is ``error``; ``adhere score``
  exits 3 and says so. (Before: "0 errors", exit 0.)
* A store whose scoring was cut short: the report says INCOMPLETE at the top and
  rests on the scored trials only; ``adhere report`` exits 3.
"""

import json
import shutil
from pathlib import Path

from tests.helpers import run_cli
from tests.integration.test_scoring import write

NO_PANEL = "  judgePanel: p\n"
DOWN = (
    "    - {name: down, endpoint: {baseUrl: 'http://127.0.0.1:9/v1', model: m,"
    " limits: {maxRetries: 0, timeoutSeconds: 2}}}\n"
)


def _flat(text: str) -> str:
    return " ".join(text.split())


def _without_panel(rollout: Path) -> Path:
    rollout.write_text(rollout.read_text().replace(NO_PANEL, ""))
    return rollout


def _row(report_md: str, model: str) -> dict[str, str]:
    """The Summary row of ``model`` in report.md, by column name."""
    lines = report_md.split("## Summary", 1)[1].strip().splitlines()
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == model:
            return dict(zip(header, cells, strict=True))
    raise AssertionError(f"no row for {model} in {lines}")


def test_with_no_judge_panel_judge_checks_are_undecided_and_isr_incomplete(
    tmp_path: Path,
) -> None:
    rollout = _without_panel(write(tmp_path, ""))
    proc = run_cli("run", str(rollout), "--quiet")
    assert proc.returncode == 3, proc.stderr
    out = _flat(proc.stdout)
    assert "INCOMPLETE: 6 of 6 trials that ran have undecided checks (18 without a verdict" in out
    assert "incomplete" in _flat(proc.stderr)
    report = (tmp_path / "runs" / "r" / "report" / "report.md").read_text()
    good = _row(report, "good")
    # Two verifier checks decided per trial; three judge checks were never decided.
    assert good["ISR"] == "incomplete" and good["CSR"] == "incomplete"
    assert (good["scored"], good["incomplete"], good["undecided checks"]) == ("0", "3", "9")
    # Accepting it on purpose exits 0 and prints the same report.
    proc = run_cli("report", str(tmp_path / "runs" / "r"), "--allow-incomplete")
    assert proc.returncode == 0 and "INCOMPLETE: 6 of 6" in _flat(proc.stdout)


def test_every_judge_failing_makes_score_exit_3_with_the_errors_counted(tmp_path: Path) -> None:
    rollout = write(tmp_path, DOWN)
    proc = run_cli("run", str(rollout), "--quiet", "--no-preflight")  # judge errors are the point
    assert proc.returncode == 3, proc.stderr
    proc = run_cli("score", str(tmp_path / "runs" / "r"))
    assert proc.returncode == 3
    err = _flat(proc.stderr)
    # 6 trials × 3 judge checks: every vote errored, and the judge's own verdicts too
    assert "18 errored; judges' own errored verdicts: down 18" in err
    report = (tmp_path / "runs" / "r" / "report" / "report.md").read_text()
    row = _row(report, "good")
    assert row["ISR"] == "incomplete" and row["errored checks"] == "9"
    assert "panel:majority 18" in _flat(report)
    assert run_cli("score", str(tmp_path / "runs" / "r"), "--allow-incomplete").returncode == 0


def test_a_store_whose_scoring_was_cut_short_says_so_and_exits_3(tmp_path: Path) -> None:
    rollout = write(
        tmp_path, "    - {name: a, endpoint: {baseUrl: scripted, model: 'judge:seed=1'}}\n"
    )
    proc = run_cli("run", str(rollout), "--quiet")
    assert proc.returncode == 0, proc.stderr
    run = tmp_path / "runs" / "r"
    verdicts = sorted(run.glob("trials/**/verdicts.json"))
    assert len(verdicts) == 6
    complete = run_cli("report", str(run))
    assert complete.returncode == 0 and "INCOMPLETE" not in complete.stdout
    # Scoring killed after four of six trials: two have no verdicts at all.
    for path in verdicts[:2]:
        path.unlink()
        judged = path.with_name("judge_verdicts.json")
        if judged.exists():
            judged.unlink()
    proc = run_cli("report", str(run))
    assert proc.returncode == 3
    out = _flat(proc.stdout)
    assert "INCOMPLETE: 2 of 6 trials that ran have undecided checks (10 without a verdict" in out
    assert "rest on the 4 complete trials only" in out
    report = (run / "report" / "report.md").read_text()
    assert report.index("INCOMPLETE") < report.index("## Summary")  # at the top
    rows = [_row(report, m) for m in ("good", "emoji")]
    assert sum(int(r["scored"]) for r in rows) == 4
    assert sum(int(r["incomplete"]) for r in rows) == 2
    # The trials left hold the same verdicts they had: the rates rest on them alone.
    shutil.rmtree(run / "report")
    stored = [json.loads(p.read_text()) for p in verdicts[2:]]
    assert all(len(v) == 5 for v in stored)
