"""One judge rule in every table of a report: the Summary recomputed by hand under each.

A small OctoBench store — three judges that disagree, two models, a trial one judge
left undecided, a check every judge errored on, a trial that failed to run — is
reported with the panel's ``aggregation: mean`` and ``majority``. The expectations
are computed here from the fixture's own verdicts with plain loops (the majority
vote too), never read from the report.
"""

import html
import random
import statistics
from pathlib import Path

import pytest

from adhere.artifacts import RolloutStore
from adhere.core import Check, Instance, Source, Trial, TrialResult, Verdict
from adhere.report import compare_stores, comparison_notes, render_html, render_markdown
from adhere.report._results import report_for
from adhere.store import open_store
from tests.helpers import run_cli

JUDGES = ("j1", "j2", "j3")
MODELS = ("m1", "m2")
INSTANCES = ("i1", "i2", "i3", "i4")
REPEATS = (0, 1)
FIXED = "v"  # decided by a verifier, the same for every judge
JUDGED = ("q1", "q2")
SOURCES = {"v": "SP", "q1": "UserQuery", "q2": "AgentsMd"}
ONE_JUDGE_ERRS = ("m1", "i1", 1)  # j3 errors on q1: incomplete for j3 only
ALL_JUDGES_ERR = ("m1", "i2", 0)  # every judge errors on q2: incomplete for everyone
FAILED_RUN = ("m2", "i3", 0)  # failed to run: scored as failed under every judge


def fixture() -> dict:
    rng = random.Random(7)
    out = {}
    for key in ((m, i, r) for m in MODELS for i in INSTANCES for r in REPEATS):
        judges = {
            j: {c: rng.choice(["pass", "pass", "fail", "n/a" if c == "q2" else "pass"])
                for c in JUDGED}
            for j in JUDGES
        }  # fmt: skip
        if key == ONE_JUDGE_ERRS:
            judges["j3"]["q1"] = "error"
        if key == ALL_JUDGES_ERR:
            for j in JUDGES:
                judges[j]["q2"] = "error"
        out[key] = {
            "status": "error" if key == FAILED_RUN else "ok",
            "fixed": rng.choice(["pass", "pass", "fail"]),
            "judges": judges,
        }
    return out


def vote(results: list[str]) -> str:
    """The panel's majority: errors abstain, most frequent wins, ties go to fail."""
    cast = [r for r in results if r != "error"]
    if not cast:
        return "error"
    top = max(cast.count(r) for r in cast)
    winners = {r for r in cast if cast.count(r) == top}
    if len(winners) == 1:
        return winners.pop()
    return "fail" if "fail" in winners else "pass"


def write_store(root: Path, data: dict, aggregation: str | None) -> RolloutStore:
    store = RolloutStore(open_store(str(root)), "rule")
    checks = [Check(id=c, source=Source(s), description=c) for c, s in SOURCES.items()]
    store.write_instances(
        [Instance(id=i, suite="octobench", turns=["Do it."], checks=checks) for i in INSTANCES]
    )
    if aggregation is not None:
        judges = [{"name": j, "endpoint": {"baseUrl": "scripted", "model": "judge"}}
                  for j in JUDGES]  # fmt: skip
        store.write_specs(
            [
                {
                    "apiVersion": "adhere.dev/v1alpha1",
                    "kind": "JudgePanel",
                    "metadata": {"name": "three"},
                    "spec": {"aggregation": aggregation, "judges": judges},
                }
            ]
        )
    for (model, instance, repeat), trial_data in data.items():
        trial = Trial(rollout="rule", model=model, scaffold="claude-code", instance=instance,
                      repeat=repeat)  # fmt: skip
        result = TrialResult(trial=trial, trial_id=trial.id, status=trial_data["status"],
                             started_at="2026-01-01T00:00:00Z",
                             finished_at="2026-01-01T00:00:01Z", duration_seconds=1.0)  # fmt: skip
        if trial_data["status"] == "error":
            store.write_verdicts(
                trial, [Verdict(check_id=c, result="error", decided_by="trial") for c in SOURCES]
            )
            store.write_judge_verdicts(trial, {})
        else:
            judged = {
                j: [Verdict(check_id=c, result=r, decided_by=f"judge:{j}") for c, r in rs.items()]
                for j, rs in trial_data["judges"].items()
            }
            majority = [
                Verdict(
                    check_id=c,
                    result=vote([trial_data["judges"][j][c] for j in JUDGES]),  # type: ignore[arg-type]
                    decided_by="panel:majority",
                )
                for c in JUDGED
            ]
            fixed = Verdict(check_id=FIXED, result=trial_data["fixed"], decided_by="verifier:x")
            store.write_verdicts(trial, [fixed, *majority])
            store.write_judge_verdicts(trial, judged)
        store.write_result(result)
    return store


# -- by hand ---------------------------------------------------------------------------


def results_of(trial: dict, judge: str | None) -> dict[str, str]:
    """Check → result for one judge (its verdicts and the verifier's) or the vote (None)."""
    if judge is None:
        judged = {c: vote([trial["judges"][j][c] for j in JUDGES]) for c in JUDGED}
    else:
        judged = dict(trial["judges"][judge])
    return {FIXED: trial["fixed"], **judged}


def counts(data: dict, model: str, judge: str | None) -> dict:
    """ISR, CSR and what they rest on, for one scoring set of a model's trials."""
    passed, shares = [], []
    out = {"incomplete": 0, "errored": 0, "n/a": 0, "trial errors": 0}
    for (m, _i, _r), trial in data.items():
        if m != model:
            continue
        if trial["status"] == "error":
            out["trial errors"] += 1
            passed.append(False)
            shares.append(0.0)
            continue
        results = results_of(trial, judge)
        out["errored"] += sum(r == "error" for r in results.values())
        out["n/a"] += sum(r == "n/a" for r in results.values())
        if "error" in results.values():
            out["incomplete"] += 1
            continue
        applicable = [r for r in results.values() if r != "n/a"]
        passed.append(all(r == "pass" for r in applicable))
        shares.append(applicable.count("pass") / len(applicable))
    out["scored"] = len(passed)
    out["isr"] = sum(passed) / len(passed)
    out["csr"] = sum(shares) / len(shares)
    return out


def per_judge(values: list) -> str:
    return str(values[0]) if len(set(values)) == 1 else " / ".join(map(str, values))


def summary_rows(report) -> dict[str, dict[str, str]]:
    header = report.summary.header
    return {row[0]: dict(zip(header, row, strict=True)) for row in report.summary.rows}


@pytest.fixture(scope="module")
def data() -> dict:
    return fixture()


def test_the_judges_disagree_and_a_trial_is_incomplete_for_one_judge_only(data):
    isrs = {j: counts(data, "m1", j)["isr"] for j in JUDGES}
    assert len(set(isrs.values())) > 1  # else mean and majority could not differ
    assert counts(data, "m1", "j3")["incomplete"] > counts(data, "m1", "j1")["incomplete"]


def test_mean_rule_summary_is_the_mean_of_the_judges(tmp_path, data):
    report = report_for(write_store(tmp_path, data, "mean"))
    assert report.rule.startswith("Judges (3: j1, j2, j3) — rule: mean")
    assert "mean of the judges' ISR / CSR" in report.rule
    assert render_markdown(report).splitlines()[2] == f"**{report.rule}**"
    page = render_html(report)
    assert page.index(html.escape(report.rule)) < page.index("<table>")
    rows = summary_rows(report)
    for model in MODELS:
        found = [counts(data, model, j) for j in JUDGES]
        row = rows[model]
        for metric, column in (("isr", "ISR"), ("csr", "CSR")):
            values = [f[metric] for f in found]
            mean, std = statistics.fmean(values), statistics.pstdev(values)
            assert row[column] == f"{mean * 100:.1f}% ± {std * 100:.1f}", (model, metric)
            low, high = (float(x) / 100 for x in row[f"{column} 95% CI"].rstrip("%").split("–"))
            assert low <= round(mean, 3) <= high  # the interval is of the mean's statistic
        assert row["trials"] == str(len(INSTANCES) * len(REPEATS))
        assert row["scored"] == per_judge([f["scored"] for f in found])
        assert row["incomplete"] == per_judge([f["incomplete"] for f in found])
        assert row["errored checks"] == per_judge([f["errored"] for f in found])
        assert row["n/a checks"] == per_judge([f["n/a"] for f in found])
        assert row["trial errors"] == per_judge([f["trial errors"] for f in found])
    # m1: j3 has one more incomplete trial than j1 and j2
    assert rows["m1"]["incomplete"] == "1 / 1 / 2"
    # Table 3 and the Summary agree (one rule); Table 2's aggregate is the same mean
    table_3 = next(t for t in report.paper if t.title.startswith("Table 3"))
    table_2 = next(t for t in report.paper if t.title.startswith("Table 2"))
    for t3, t2 in zip(table_3.rows, table_2.rows, strict=True):
        assert t3[1:3] == [rows[t3[0]]["ISR"], rows[t3[0]]["CSR"]]
        assert t2[-2:] == t3[1:3]
    # the stored verdicts decide the INCOMPLETE line (exit status 3): one check every
    # judge errored on; j3's own error is noted apart
    assert report.totals.incomplete == 1 and not report.complete
    assert any(n.startswith("INCOMPLETE: 1 of") for n in report.notes)
    assert any("j3 2" in n and "left out of that judge's rates only" in n for n in report.notes)


def test_majority_rule_summary_is_the_vote(tmp_path, data):
    report = report_for(write_store(tmp_path, data, "majority"))
    assert report.rule.startswith("Judges (3: j1, j2, j3) — rule: majority")
    assert "majority vote" in report.rule
    assert render_markdown(report).splitlines()[2] == f"**{report.rule}**"
    rows = summary_rows(report)
    for model in MODELS:
        found = counts(data, model, None)
        row = rows[model]
        assert row["ISR"] == f"{found['isr'] * 100:.1f}%"
        assert row["CSR"] == f"{found['csr'] * 100:.1f}%"
        assert row["scored"] == str(found["scored"])
        assert row["incomplete"] == str(found["incomplete"])
        assert row["errored checks"] == str(found["errored"])
    table_2 = next(t for t in report.paper if t.title.startswith("Table 2"))
    assert table_2.header[-2:] == ["majority ISR", "majority CSR"]
    assert table_2.header[1:-2] == [f"{j} {m}" for j in JUDGES for m in ("ISR", "CSR")]
    for row in table_2.rows:
        model = row[0]
        assert row[-2:] == [rows[model]["ISR"], rows[model]["CSR"]]
        # the per-judge columns are still each judge's own, by definition
        j1 = counts(data, model, "j1")
        assert row[1:3] == [f"{j1['isr'] * 100:.1f}%", f"{j1['csr'] * 100:.1f}%"]
    table_3 = next(t for t in report.paper if t.title.startswith("Table 3"))
    assert "majority vote" in table_3.title
    assert all(r[1:3] == [rows[r[0]]["ISR"], rows[r[0]]["CSR"]] for r in table_3.rows)
    # no per-judge incompleteness note under majority: the vote decided j3's check
    assert not any("left out of that judge's rates only" in n for n in report.notes)


def test_the_rules_differ_on_this_store_and_the_override_wins(tmp_path, data):
    store = write_store(tmp_path, data, "majority")
    overridden = report_for(store, aggregation="mean")
    assert overridden.rule.startswith("Judges (3: j1, j2, j3) — rule: mean")
    assert summary_rows(overridden)["m1"]["ISR"] != summary_rows(report_for(store))["m1"]["ISR"]


def test_without_a_panel_the_rule_is_the_default_mean(tmp_path, data):
    report = report_for(write_store(tmp_path, data, None))
    assert "rule: mean" in report.rule


def test_cli_report_states_the_rule_and_takes_an_override(tmp_path, data):
    write_store(tmp_path, data, "mean")
    run = str(tmp_path / "rule")
    default = run_cli("report", run, "--allow-incomplete", "--out", str(tmp_path / "a"))
    assert default.returncode == 0, default.stderr
    assert default.stdout.lstrip().startswith("Judges (3: j1, j2, j3) — rule: mean")
    majority = run_cli("report", run, "--aggregation", "majority", "--out", str(tmp_path / "b"))
    assert majority.returncode == 3  # a check every judge errored on: incomplete, as before
    assert majority.stdout.lstrip().startswith("Judges (3: j1, j2, j3) — rule: majority")
    markdown = (tmp_path / "b" / "report.md").read_text()
    assert "rule: majority" in markdown.splitlines()[2]


def test_compare_pairs_the_majority_verdicts_and_says_so(tmp_path, data):
    store = write_store(tmp_path, data, "mean")
    comparison = compare_stores(store, store)
    assert comparison.judged
    assert any("majority vote" in n and "mean" in n for n in comparison_notes(comparison))
    overall = next(r for r in comparison.rows if r.model == "m1" and r.source == "all")
    assert overall.regression.isr.baseline == pytest.approx(counts(data, "m1", None)["isr"])
