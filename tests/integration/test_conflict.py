"""OctoBench-Conflict end to end: the five sample scenarios under policies that obey one side.

The sample rollout's models are run through the reference agent; the report's
side-followed tables are computed from the stored verdicts, and must show every
policy following the source it obeys wherever that source is a side.
"""

import asyncio
import json
from pathlib import Path

import pytest

from adhere.artifacts import open_rollout_dir
from adhere.metrics import followed
from adhere.report._results import collect, report_for
from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from tests.helpers import ROOT, run_cli

SAMPLE = ROOT / "examples" / "octobench-conflict"
SOURCE = {"sp": "SP", "user": "UserQuery", "doc": "AgentsMd"}
ORDERS = {"follows-sp": ["sp"], "follows-user": ["user"], "follows-doc": ["doc"]}
ORDERS["hierarchy"] = ["sp", "doc", "user"]


def rollout(root: Path) -> Path:
    text = (SAMPLE / "rollout.yaml").read_text()
    text = text.replace(
        "scaffolds: [claude-code, kilo, droid, reference]", "scaffolds: [reference]"
    )
    text = text.replace("storage: file://../../runs", f"storage: file://{root / 'runs'}")
    bench = (SAMPLE / "benchmark.yaml").read_text()
    bench = bench.replace("path: instances.jsonl", f"path: {SAMPLE / 'instances.jsonl'}")
    path = root / "rollout.yaml"
    path.write_text(bench + "---\n" + text)
    return path


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("conflict")
    prepared = prepare(load_run_config([rollout(root)]))
    summary = asyncio.run(execute(prepared))
    assert summary.failed == 0 and summary.ran == 20
    return root / "runs" / "octobench-conflict"


def test_each_policy_follows_its_side_wherever_it_is_one(run_dir: Path):
    collected = collect(open_rollout_dir(run_dir))
    assert len(collected.conflicts) == 20
    seen = set()
    for run in collected.conflicts:
        sides = [side["source"] for side in run.conflict["sides"]]
        order = [SOURCE[s] for s in ORDERS[run.keys["model"]]]
        obeyed = next((s for s in order if s in sides), None)
        outcome = followed(run)
        if obeyed is not None:
            expected = "first" if obeyed == sides[0] else "second"
            assert outcome == expected, (run.keys["model"], run.conflict["scenario"], outcome)
            seen.add((run.keys["model"], run.conflict["scenario"]))
        else:
            assert outcome != "both" and outcome != "undecided"
    # SP is a side in 4 scenarios, the user in 4, the doc in 2; the hierarchy obeys in all 5.
    assert len(seen) == 4 + 4 + 2 + 5


def test_report_tables_and_isr_leave_the_side_checks_out(run_dir: Path):
    report = report_for(open_rollout_dir(run_dir))
    tables = {t.title: t for t in report.breakdowns}
    detailed = tables["OctoBench-Conflict cross-check: side checks, per conflict type and scenario"]
    rows = {(r[0], r[2]): r for r in detailed.rows}
    assert set(r[1] for r in detailed.rows) == {
        "SP vs UserQuery",
        "SP vs AgentsMd",
        "UserQuery vs AgentsMd",
    }
    assert rows[("follows-user", "language")][4:6] == ["SP: 0.0% (0)", "UserQuery: 100.0% (1)"]
    assert rows[("follows-sp", "safety")][4:6] == ["SP: 100.0% (1)", "UserQuery: 0.0% (0)"]
    totals = "OctoBench-Conflict cross-check: side checks, per conflict type (all scenarios)"
    per_type = {(r[0], r[1]): r for r in tables[totals].rows}
    assert per_type[("hierarchy", "SP vs UserQuery")][2:4] == ["3", "SP: 100.0% (3)"]
    # Only the tool-schema check counts towards ISR/CSR, and the agents' calls are valid.
    assert all(row[2:4] == ["100.0%", "100.0%"] for row in report.summary.rows)
    assert any("left out of ISR/CSR" in note for note in report.notes)


def test_report_command_prints_the_conflict_pivot(run_dir: Path):
    result = run_cli("report", str(run_dir))
    assert result.returncode == 0, result.stderr
    assert "% of runs following the 1st / 2nd side" in result.stdout
    assert "language (SP vs UserQuery)" in result.stdout
    markdown = (run_dir / "report" / "report.md").read_text()
    heading = "## OctoBench-Conflict cross-check: side checks, per conflict type and scenario"
    assert heading in markdown


def test_sample_instances_are_all_conflicts():
    lines = [json.loads(x) for x in (SAMPLE / "instances.jsonl").read_text().splitlines()]
    scenarios = {line["conflict"]["scenario"] for line in lines}
    assert scenarios == {"language", "emoji", "verbosity", "safety", "identity"}
