"""Feedback correction end to end: run, feed failed checks back, run again, report the Δ.

A careless scripted agent (blind edits, ``git reset --hard``, emoji) that heeds
feedback runs a few OctoBench sample instances through the reference scaffold;
``adhere feedback`` re-runs the trials with failures, and the fixed violations pass.
"""

import json
from pathlib import Path

import pytest

from adhere.artifacts import FEEDBACK as FEEDBACK_FILE
from adhere.artifacts import open_rollout_dir
from adhere.metrics import ScoredTrial, rates
from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from adhere.workflows._feedback import plan_feedback
from adhere.workflows._feedback_report import feedback_report, render_markdown, write_markdown
from adhere.workflows._feedback_run import run_feedback
from tests.helpers import ROOT, run_cli

SAMPLE = ROOT / "examples" / "octobench-sample"
IDS = ["sp-no-emoji-brief", "agents-md-git", "memory-language", "tool-schema-absolute-path"]
FIXED = {
    "sp-no-emoji-brief": ["SP_no_emoji"],
    "agents-md-git": ["MD_no_reset_hard", "MD_read_before_edit"],
}


def write(root: Path) -> Path:
    path = root / "rollout.yaml"
    path.write_text(
        f"""\
apiVersion: adhere.dev/v1alpha1
kind: Benchmark
metadata: {{name: b}}
spec:
  suite: octobench
  source: {{path: {SAMPLE / "instances.jsonl"}}}
  options: {{bindings: {SAMPLE / "bindings.yaml"}}}
  filters: {{ids: {json.dumps(IDS)}}}
---
apiVersion: adhere.dev/v1alpha1
kind: JudgePanel
metadata: {{name: p}}
spec:
  aggregation: mean
  judges:
    - {{name: a, endpoint: {{baseUrl: scripted, model: 'judge:seed=1'}}}}
    - {{name: b, endpoint: {{api: anthropic, baseUrl: scripted, model: 'judge:seed=2'}}}}
---
apiVersion: adhere.dev/v1alpha1
kind: Rollout
metadata: {{name: fb}}
spec:
  benchmark: b
  judgePanel: p
  models:
    - {{name: careful, endpoint: {{api: anthropic, baseUrl: scripted, model: 'agent:edit'}}}}
    - name: careless
      endpoint:
        api: anthropic
        baseUrl: scripted
        model: 'agent:edit,edit-without-read,forbidden,emoji,heeds-feedback'
  scaffolds: [reference]
  parallelism: 4
  storage: file://./runs
"""
    )
    return path


def verdicts_by_check(store, trial):
    return {v.check_id: v.result for v in store.read_verdicts(trial)}


def overall(store) -> tuple[float | None, float | None]:
    """ISR and CSR straight from the stored verdicts, independently of the report code."""
    scored = [ScoredTrial({}, s.result.status, s.verdicts) for s in store.iter_trials()]
    r = rates(scored)
    return r.isr, r.csr


def overall_of(store, trials) -> tuple[float, float]:
    """ISR and CSR of these trials, by hand from their stored verdicts (no n/a, no error)."""
    passed, shares = 0, []
    for trial in trials:
        results = [v.result for v in store.read_verdicts(trial) if v.result != "n/a"]
        passed += all(r == "pass" for r in results)
        shares.append(results.count("pass") / len(results))
    return passed / len(trials), sum(shares) / len(shares)


@pytest.mark.slow
async def test_feedback_fixes_the_named_violations_and_resumes(tmp_path: Path) -> None:
    prepared = prepare(load_run_config([write(tmp_path)]))
    first = await execute(prepared)
    assert first.ok == 8
    source = open_rollout_dir(tmp_path / "runs" / "fb")
    for trial in prepared.trials:
        if trial.model == "careless" and trial.instance in FIXED:
            found = verdicts_by_check(source, trial)
            assert all(found[c] == "fail" for c in FIXED[trial.instance])

    plan = plan_feedback(source.uri.removeprefix("file://"))
    assert plan.target.rollout == "fb-feedback"
    failing = {
        (s.result.trial.model, s.result.trial.instance)
        for s in source.iter_trials()
        if any(v.result == "fail" for v in s.verdicts)
    }
    assert {(c.trial.model, c.trial.instance) for c in plan.corrected} == failing
    assert len(plan.corrected) + len(plan.carried) == 8
    summary = await run_feedback(plan)
    assert summary.run.ran == len(plan.corrected) and summary.run.failed == 0
    assert summary.carried == len(plan.carried) and not summary.stale

    target = plan.target
    assert (tmp_path / "runs" / "fb-feedback" / "instances.jsonl").is_file()
    for item in plan.corrected:
        record = target.read_json(item.trial, FEEDBACK_FILE)
        assert record["corrected"] and record["source_trial"] == item.source.id
        assert record["failed_checks"] == list(item.failed)
        assert record["turns"][0].endswith(record["feedback"])
        assert record["feedback"].startswith("<feedback>")
        trajectory = target.read_trajectory(item.trial)
        assert trajectory is not None
        first_user = next(m for m in trajectory.messages if m.role == "user")
        assert "<feedback>" in first_user.content  # the agent saw it
    for item in plan.carried:
        assert not target.read_json(item.trial, FEEDBACK_FILE)["corrected"]
        assert target.read_verdicts(item.trial) == source.read_verdicts(item.source)
        assert target.read_result(item.trial).trial_id == item.trial.id

    # the violations the careless agent was told about are gone
    for item in plan.corrected:
        if item.trial.model == "careless" and item.trial.instance in FIXED:
            after = verdicts_by_check(target, item.trial)
            assert all(after[c] == "pass" for c in FIXED[item.trial.instance]), after

    report = feedback_report(source, target)
    isr_before, csr_before = overall(source)
    isr_after, csr_after = overall(target)
    assert report.overall.pairs == 8
    assert report.overall.before.isr == pytest.approx(isr_before)
    assert report.overall.after.isr == pytest.approx(isr_after)
    assert report.overall.isr == pytest.approx(isr_after - isr_before)
    assert report.overall.csr == pytest.approx(csr_after - csr_before)
    assert report.overall.csr > 0 and report.overall.fixed >= 3
    # Table 5: the partial-failure trials of the base run, by hand from the stored verdicts
    partial = set()
    for stored in source.iter_trials():
        results = [v.result for v in stored.verdicts if v.result != "n/a"]
        if "pass" in results and "fail" in results and "error" not in results:
            partial.add(stored.result.trial.id)
    assert partial and len(partial) < 8  # the subset differs from all trials
    chosen = [t for t in prepared.trials if t.id in partial]
    table5 = report.table5
    assert table5 is not None
    by_model = {r[0]: dict(zip(table5.header, r, strict=True)) for r in table5.rows}
    assert set(by_model) == {t.model for t in chosen}
    for model, row in by_model.items():
        mine = [t for t in chosen if t.model == model]
        isr_b, csr_b = overall_of(source, mine)
        corrected = [t.model_copy(update={"rollout": "fb-feedback"}) for t in mine]
        isr_a, csr_a = overall_of(target, corrected)
        assert row["trials"] == str(len(mine)) and row["ISR before"] == f"{isr_b * 100:.1f}%"
        assert row["CSR before"] == f"{csr_b * 100:.1f}%"
        assert row["ISR after"] == f"{isr_a * 100:.1f}%"
        assert row["CSR after"] == f"{csr_a * 100:.1f}%"
    main = report.tables[0]
    assert [r[:2] for r in main.rows] == [
        ["careful", "reference"],
        ["careless", "reference"],
        ["all", "all"],
    ]
    sources = {r[2] for r in report.tables[1].rows}
    assert {"SP", "AgentsMd", "Memory"} <= sources
    # verifier-decided checks move only where the agent heeded the feedback
    deciders = {(r[0], r[1]): r for r in report.tables[2].rows}
    delta_isr = report.tables[2].header.index("ΔISR")
    assert deciders[("careful", "verifier")][delta_isr] == "0.0 pp"
    assert deciders[("careless", "verifier")][delta_isr].startswith("+")
    checks = {r[0]: r for r in report.tables[3].rows}
    assert checks["SP_no_emoji"][2] == "verifier"
    assert checks["SP_no_emoji"][4] == "1" and checks["MD_read_before_edit"][4] == "1"
    french = checks["MEM_answer_french"]  # the scripted agent cannot learn French
    assert french[3] == french[5] != "0"
    written = Path(write_markdown(report, target))
    assert written == tmp_path / "runs" / "fb-feedback" / "report" / "feedback.md"
    assert written.read_text() == render_markdown(report)

    # again: nothing runs twice, nothing is duplicated
    trial_dirs = sorted(p for p in (tmp_path / "runs" / "fb-feedback" / "trials").rglob("r0"))
    again = await run_feedback(plan_feedback(tmp_path / "runs" / "fb"))
    assert again.run.ran == 0 and again.run.skipped == len(plan.corrected)
    assert sorted(p for p in (tmp_path / "runs" / "fb-feedback" / "trials").rglob("r0")) == (
        trial_dirs
    )
    assert len(list(target.iter_trials())) == 8
    assert not list((tmp_path / "runs" / "fb-feedback" / "trials").rglob("attempt-*"))
    assert feedback_report(source, target).tables == report.tables
    # an interrupted trial (no result.json) is the only one that runs again
    redo = plan.corrected[0].trial
    (tmp_path / "runs" / target.trial_key(redo, "result.json")).unlink()
    resumed = await run_feedback(plan_feedback(tmp_path / "runs" / "fb"))
    assert (resumed.run.ran, resumed.run.skipped) == (1, len(plan.corrected) - 1)
    assert target.read_json(redo, FEEDBACK_FILE)["corrected"]

    # the CLI: same run, nothing left to do, the Δ tables on stdout
    cli = run_cli("feedback", str(tmp_path / "runs" / "fb"), "--quiet")
    assert cli.returncode == 0, cli.stderr
    assert "ΔISR and ΔCSR per model × scaffold" in cli.stdout and "0 ran" in cli.stderr

    # feedback as one more user turn: a separate corrected run; the first turn's
    # violations are still in the conversation, so whole-conversation checks still fail
    turn = plan_feedback(tmp_path / "runs" / "fb", placement="new-turn")
    assert turn.target.rollout == "fb-feedback-turn"
    await run_feedback(turn)
    for item in turn.corrected:
        record = turn.target.read_json(item.trial, FEEDBACK_FILE)
        assert record["turns"][-1] == record["feedback"] and len(record["turns"]) == 2
        if item.trial.model == "careless" and item.trial.instance == "sp-no-emoji-brief":
            assert verdicts_by_check(turn.target, item.trial)["SP_no_emoji"] == "fail"

    # the control: the same trials again without feedback; the violations stay
    control = plan_feedback(tmp_path / "runs" / "fb", placement="none")
    assert control.target.rollout == "fb-rerun"
    await run_feedback(control)
    for item in control.corrected:
        record = control.target.read_json(item.trial, FEEDBACK_FILE)
        assert record["turns"] == plan.instances[item.trial.instance].turns
        if item.trial.model == "careless" and item.trial.instance in FIXED:
            after = verdicts_by_check(control.target, item.trial)
            assert all(after[c] == "fail" for c in FIXED[item.trial.instance])
    assert any(
        n.startswith("Feedback (the failed") for n in feedback_report(source, control.target).notes
    )


def test_cli_feedback_rejects_a_foreign_directory(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "x"
    run.mkdir(parents=True)
    result = run_cli("feedback", str(run))
    assert result.returncode == 2
    assert "not a rollout directory" in result.stderr


@pytest.mark.slow
async def test_cli_feedback_scaffold_restricts_the_rerun_and_table_5(tmp_path: Path) -> None:
    path = write(tmp_path)
    text = path.read_text().replace("scaffolds: [reference]", "scaffolds: [chat, reference]")
    path.write_text(text)
    assert (await execute(prepare(load_run_config([path])))).ok == 16
    run = tmp_path / "runs" / "fb"
    source = open_rollout_dir(run)

    unknown = run_cli("feedback", str(run), "--scaffold", "claude-code", "--quiet")
    assert unknown.returncode == 2
    assert "--scaffold" in unknown.stderr and "'claude-code'" in unknown.stderr
    assert "its scaffolds: chat, reference" in unknown.stderr
    assert not (tmp_path / "runs" / "fb-feedback").exists()

    cli = run_cli("feedback", str(run), "--scaffold", "reference", "--quiet")
    assert cli.returncode == 0, cli.stderr
    target = open_rollout_dir(tmp_path / "runs" / "fb-feedback")
    partial, corrected = set(), set()
    for stored in source.iter_trials():
        trial = stored.result.trial
        record = target.read_json(
            trial.model_copy(update={"rollout": "fb-feedback"}), FEEDBACK_FILE
        )
        results = [v.result for v in stored.verdicts if v.result != "n/a"]
        failed = "fail" in results
        if trial.scaffold == "chat":
            assert not record["corrected"]  # another scaffold's trials are carried over
        else:
            assert record["corrected"] == failed
        if record["corrected"]:
            corrected.add(trial.id)
        if trial.scaffold == "reference" and failed and "pass" in results:
            partial.add(trial.id)
    assert corrected and partial
    assert any(  # chat had failures too: only the restriction kept them from re-running
        "fail" in [v.result for v in s.verdicts]
        for s in source.iter_trials()
        if s.result.trial.scaffold == "chat"
    )
    report = feedback_report(source, target, scaffold="reference")
    assert report.overall.pairs == 8  # the reference trials only
    assert report.table5 is not None
    by_model = {r[0]: dict(zip(report.table5.header, r, strict=True)) for r in report.table5.rows}
    chosen = [s.result.trial for s in source.iter_trials() if s.result.trial.id in partial]
    assert set(by_model) == {t.model for t in chosen}
    for model, row in by_model.items():
        mine = [t for t in chosen if t.model == model]
        isr_b, csr_b = overall_of(source, mine)
        after = [t.model_copy(update={"rollout": "fb-feedback"}) for t in mine]
        isr_a, csr_a = overall_of(target, after)
        assert row["trials"] == str(len(mine))
        assert [row["ISR before"], row["CSR before"], row["ISR after"], row["CSR after"]] == [
            f"{v * 100:.1f}%" for v in (isr_b, csr_b, isr_a, csr_a)
        ]
    assert "Table 5" in cli.stdout
