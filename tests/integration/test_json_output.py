"""``--format json``: one JSON document on stdout for run, report, score, compare, plan, validate.

stdout must parse as JSON as a whole (progress and messages go to stderr); each
document is compared with what adhere's own objects hold (the Report, the
comparison, the plan), and the exit status is the one the text output has.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adhere.report import compare_stores, comparison_table, open_run, report_for, report_json
from adhere.runner import check_run
from adhere.spec import load_run_config
from tests.helpers import run_cli
from tests.integration.export_run import KEY_VAR, SECRET, write_run


def _doc(proc: Any, kind: str) -> dict[str, Any]:
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    doc = json.loads(proc.stdout)  # the whole of stdout, nothing before or after
    assert doc["kind"] == kind and doc["format"] == 1
    return doc  # type: ignore[no-any-return]


@pytest.fixture
def spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(KEY_VAR, SECRET)
    return write_run(tmp_path)


def test_plan_and_validate_as_json(spec: Path) -> None:
    files = [str(spec.parent / n) for n in ("benchmark.yaml", "judges.yaml", "rollout.yaml")]
    proc = run_cli("plan", *files, "--format", "json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = _doc(proc, "plan")
    config = load_run_config(files)
    plan = check_run(config, secrets=False, local=False).plan
    assert doc["trials"] == len(plan.trials) == sum(g["trials"] for g in doc["groups"])
    assert [e["model"] for e in doc["estimates"]] == ["good", "emoji"]
    assert all(e["input_tokens"] > 0 and e["cost"] is None for e in doc["estimates"])

    proc = run_cli("validate", *files, "--format", "json", env={KEY_VAR: SECRET})
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = _doc(proc, "validate")
    assert [f["file"] for f in doc["files"]] == files and doc["valid"] is True

    proc = run_cli("validate", str(spec.parent / "nope.yaml"), "--format", "json")
    assert proc.returncode == 2 and proc.stdout == ""  # problems go to stderr alone


def test_run_report_score_and_compare_as_json(spec: Path) -> None:
    files = [str(spec.parent / n) for n in ("benchmark.yaml", "judges.yaml", "rollout.yaml")]
    proc = run_cli("run", *files, "--quiet", "--format", "json", env={KEY_VAR: SECRET})
    doc = _doc(proc, "run")
    assert proc.returncode == (0 if doc["complete"] else 3), proc.stderr[-3000:]
    assert doc["trials"]["ok"] == doc["trials"]["ran"] == 6
    assert doc["scoring"]["trials"] == 6
    assert doc["report"]["totals"]["trials"] == 6
    assert "done in" in proc.stderr  # the human summary stays on stderr

    run = str(spec.parent / "runs" / "r")
    store = open_run(run)
    proc = run_cli("report", run, "--format", "json", "--allow-incomplete")
    assert proc.returncode == 0, proc.stderr[-3000:]
    printed = _doc(proc, "report")
    assert printed == json.loads(json.dumps(report_json(report_for(store))))
    summary = printed["summary"]
    assert len(summary["rows"]) == len(report_for(store).summary.rows) > 0
    assert set(summary["rows"][0]) == set(summary["columns"])
    assert (spec.parent / "runs" / "r" / "report" / "report.html").is_file()

    proc = run_cli("report", run, "--format", "json")  # the exit status is unchanged
    assert proc.returncode == (0 if printed["complete"] else 3)
    json.loads(proc.stdout)

    proc = run_cli("score", run, "--format", "json", "--allow-incomplete")
    assert proc.returncode == 0, proc.stderr[-3000:]
    scored = _doc(proc, "score")
    assert scored["scoring"]["trials"] == 6 and scored["scoring"]["judge_calls"] == 0  # cached
    assert scored["report"]["rollout"] == "r"

    proc = run_cli("compare", run, run, "--format", "json", "--fail-on-regression")
    assert proc.returncode == 0, proc.stderr[-3000:]
    compared = _doc(proc, "compare")
    expected = comparison_table(compare_stores(store, store))
    rows = [dict(zip(expected.header, r, strict=True)) for r in expected.rows]
    assert compared["table"]["rows"] == rows
    assert compared["regressed"] is False and {r["model"] for r in compared["rows"]} >= {
        "good",
        "emoji",
    }
    assert all(r["isr"]["delta"] == 0 for r in compared["rows"] if r["isr"]["delta"] is not None)
