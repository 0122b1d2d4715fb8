"""Scoring through the real runner: bound verifiers, a panel of scripted judges, the cache."""

import json
from pathlib import Path

from adhere.artifacts import open_rollout_dir
from adhere.report._results import report_for
from adhere.runner import execute, prepare
from adhere.runner._rescore import rescore
from adhere.spec import load_run_config

CHECKLIST = {
    "SP": {
        "description": "",
        "checks": [
            {
                "check_id": "SP_no_emoji",
                "description": "No emoji in answers.",
                "check_type": "compliance",
            },
            {
                "check_id": "SP_concise",
                "description": "Answers are concise.",
                "check_type": "compliance",
            },
            {
                "check_id": "SP_if_tests",
                "description": "If the assistant changes code, it runs the tests.",
                "check_type": "testing",
            },
        ],
    },
    "User query": {
        "description": "",
        "checks": [
            {
                "check_id": "UQ_first_line",
                "description": "The answer quotes the first line.",
                "check_type": "understanding",
            },
            {
                "check_id": "UQ_read_tool",
                "description": "README.md is read with the read tool.",
                "check_type": "compliance",
                "verifier": {
                    "name": "command_executed",
                    "params": {"pattern": "cat .*README", "expect": "absent"},
                },
            },
        ],
    },
}


def write(root: Path, judges: str) -> Path:
    (root / "ws").mkdir()
    (root / "ws" / "README.md").write_text("# scoring demo\n")
    rows = [
        {
            "instance_id": f"i{n}",
            "user_query": ["Show me the first line of README.md."],
            "system_prompt": "",
            "category": "SP",
            "workspace": ["ws"],
            "checklist": CHECKLIST,
        }
        for n in range(3)
    ]
    (root / "instances.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (root / "bindings.yaml").write_text(
        "bindings:\n  - match: {check_id: '.*_no_emoji'}\n    verifier: no_emoji\n"
    )
    (root / "benchmark.yaml").write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: Benchmark\nmetadata: {name: b}\n"
        "spec: {suite: octobench, source: {path: instances.jsonl},"
        " options: {bindings: bindings.yaml}}\n"
    )
    (root / "judges.yaml").write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: JudgePanel\nmetadata: {name: p}\nspec:\n"
        f"  aggregation: mean\n  judges:\n{judges}"
    )
    path = root / "rollout.yaml"
    path.write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: Rollout\nmetadata: {name: r}\nspec:\n"
        "  benchmark: b\n"
        "  judgePanel: p\n  models:\n"
        "    - {name: good, endpoint: {api: anthropic, baseUrl: scripted, model: 'agent:read'}}\n"
        "    - {name: emoji, endpoint: {api: anthropic, baseUrl: scripted,"
        " model: 'agent:read,emoji'}}\n"
        "  scaffolds: [reference]\n  parallelism: 4\n  storage: file://./runs\n"
    )
    return path


JUDGES = (
    "    - {name: a, endpoint: {baseUrl: scripted, model: 'judge:seed=1,garble=0.3,drop=0.2'}}\n"
    "    - {name: b, endpoint: {api: anthropic, baseUrl: scripted, model: 'judge:seed=2'}}\n"
    "    - {name: c, endpoint: {baseUrl: scripted, model: 'judge:seed=3,bias=0.1'}}\n"
)


async def test_verifiers_and_a_judge_panel_decide_every_check_once(tmp_path: Path) -> None:
    prepared = prepare(load_run_config([write(tmp_path, JUDGES)]))
    summary = await execute(prepared)
    assert summary.ok == 6
    scoring = summary.scoring
    assert (
        scoring.verifier_verdicts == 12
        and scoring.judged_checks == 18
        and scoring.judge_calls >= 18
    )
    for trial in prepared.trials:
        verdicts = prepared.store.read_verdicts(trial)
        assert [v.check_id for v in verdicts] == [
            "SP_no_emoji",
            "SP_concise",
            "SP_if_tests",
            "UQ_first_line",
            "UQ_read_tool",
        ]
        by_id = {v.check_id: v for v in verdicts}
        assert by_id["SP_no_emoji"].decided_by == "verifier:no_emoji"
        assert by_id["SP_no_emoji"].result == ("fail" if trial.model == "emoji" else "pass")
        assert by_id["UQ_read_tool"].decided_by == "verifier:command_executed"
        assert by_id["SP_concise"].decided_by == "panel:majority"
        assert set(by_id["SP_concise"].details["votes"]) <= {"a", "b", "c"}
        assert by_id["SP_concise"].result in ("pass", "fail", "error")
        assert by_id["SP_concise"].result != "n/a"  # only conditional items may be n/a
        per_judge = prepared.store.read_json(trial, "judge_verdicts.json")
        assert set(per_judge) == {"a", "b", "c"}
        for verdicts_of_judge in per_judge.values():
            assert sorted(v["check_id"] for v in verdicts_of_judge) == [
                "SP_concise",
                "SP_if_tests",
                "UQ_first_line",
            ]
    report = report_for(prepared.store)
    by_source = next(t for t in report.breakdowns if t.title == "By instruction source")
    sources = {row[by_source.header.index("source")] for row in by_source.rows}
    assert sources == {"SP", "UserQuery"}
    emoji_sp = next(r for r in by_source.rows if r[0] == "emoji" and r[1] == "SP")
    # the emoji check (a verifier's) failed under every judge: the mean rule's 0 ± 0
    assert emoji_sp[by_source.header.index("ISR")] == "0.0% ± 0.0"
    assert any(t.title == "By check type" for t in report.breakdowns)
    assert set(report.plots) == {"isr_vs_csr.svg", "by_source.svg"}  # one turn each: no turns plot
    title, svg = report.plots["by_source.svg"]
    assert title == "ISR by instruction source (bars: 95% intervals)"
    assert svg.count("<rect") >= 1 + 4
    # each bar with a known interval carries an error bar
    assert svg.count('class="ci"') >= 1
    titles = [t.title for t in report.panel]
    assert titles == [
        "Scores per judge (ISR / CSR) and across judges (mean ± std)",
        "Rank stability of models across judges",
        "Judge agreement (judge-decided items)",
    ]
    ranks = report.panel[1]

    # A model is ranked when every judge scored at least one of its trials: a trial a
    # judge left an error verdict on is incomplete for that judge, never a fail.
    def scored(model: str, judge: str) -> bool:
        return any(
            all(v["result"] != "error" for v in prepared.store.read_json(u, name)[judge])
            for u in prepared.trials
            if u.model == model
        )

    name = "judge_verdicts.json"
    rankable = {m for m in ("good", "emoji") if all(scored(m, j) for j in "abc")}
    assert {r[1] for r in ranks.rows} == {*rankable, "(all models)"}
    fleiss = report.panel[2].rows[-1]
    # items every judge decided (a judge's error verdicts are left out of κ)
    assert fleiss[0] == "all judges" and 0 < int(fleiss[2]) <= 18
    # Re-scoring the unchanged rollout asks the judges only about what ended in error
    # (errors are never cached); decided verdicts all come from the cache.
    errored = sum(
        v["result"] == "error"
        for t in prepared.trials
        for vs in prepared.store.read_json(t, "judge_verdicts.json").values()
        for v in vs
    )
    again = await rescore(tmp_path / "runs" / "r")
    assert again.trials == 6 and again.judged_checks == 18
    assert again.judge_calls <= 3 * errored


async def test_rescoring_an_unchanged_rollout_makes_no_judge_call(tmp_path: Path) -> None:
    judges = (
        "    - {name: a, endpoint: {baseUrl: scripted, model: 'judge:seed=1'}}\n"
        "    - {name: b, endpoint: {api: anthropic, baseUrl: scripted, model: 'judge:seed=2'}}\n"
    )
    summary = await execute(prepare(load_run_config([write(tmp_path, judges)])))
    # at most one call per judge and trial (identical transcripts share cached verdicts)
    assert 0 < summary.scoring.judge_calls <= 12 and summary.scoring.errors == 0
    again = await rescore(tmp_path / "runs" / "r")
    assert again.judge_calls == 0 and again.judged_checks == 18
    # Human labels: one check per trial, named by instance/model/scaffold.
    labels = tmp_path / "human.jsonl"
    rows = [
        {
            "instance": f"i{n}",
            "model": m,
            "scaffold": "reference",
            "check_id": "SP_concise",
            "label": "pass",
        }
        for n in range(3)
        for m in ("good", "emoji")
    ]
    rows.append(
        {
            "instance": "nope",
            "model": "good",
            "scaffold": "reference",
            "check_id": "SP_concise",
            "label": "fail",
        }
    )
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = report_for(open_rollout_dir(tmp_path / "runs" / "r"), human_labels=labels)
    human = report.panel[-1]
    assert human.title == (
        "Agreement with human labels (6 labelled items; 1 labels name no trial of this rollout)"
    )
    judges = {r[0]: r for r in human.rows}
    assert set(judges) == {"a", "b", "majority vote"}
    assert all(r[1] == "6" for r in judges.values())
    expected = sum(
        v["result"] == "pass"
        for t in open_rollout_dir(tmp_path / "runs" / "r").iter_trials()
        for v in json.loads(
            (
                tmp_path
                / "runs"
                / "r"
                / "trials"
                / t.result.trial.model
                / "reference"
                / t.result.trial.instance
                / "r0"
                / "judge_verdicts.json"
            ).read_text()
        )["a"]
        if v["check_id"] == "SP_concise"
    )
    assert judges["a"][2] == f"{expected / 6 * 100:.1f}%"


async def test_an_unreachable_judge_yields_error_verdicts_never_passes(tmp_path: Path) -> None:
    judges = (
        "    - {name: ok, endpoint: {baseUrl: scripted, model: 'judge:seed=1'}}\n"
        "    - {name: down, endpoint: {baseUrl: 'http://127.0.0.1:9/v1', model: m,"
        " limits: {maxRetries: 0, timeoutSeconds: 2}}}\n"
    )
    prepared = prepare(load_run_config([write(tmp_path, judges)]))
    summary = await execute(prepared)
    assert summary.ok == 6
    for trial in prepared.trials:
        per_judge = prepared.store.read_json(trial, "judge_verdicts.json")
        assert all(v["result"] == "error" for v in per_judge["down"])
        assert len(per_judge["down"]) == 3
        assert all(
            "ModelCallError" in v["reasoning"] or "connect" in v["reasoning"].lower()
            for v in per_judge["down"]
        )
    # The summary says how many verdicts ended in error; a re-score retries them.
    store = open_rollout_dir(tmp_path / "runs" / "r")
    assert any(row for row in report_for(store).panel[0].rows)
