import statistics

from adhere.core import Verdict
from adhere.metrics import ScoredTrial
from adhere.report._paper import paper_tables


def v(check: str, result: str, by: str = "verifier:x") -> Verdict:
    return Verdict(check_id=check, result=result, decided_by=by)


def trial(tid, model, scaffold, results):
    verdicts = [v(c, r) for c, r in results.items()]
    keys = {"model": model, "scaffold": scaffold, "instance": "i1", "trial": tid}
    return ScoredTrial(keys=keys, status="ok", verdicts=verdicts)


SOURCES = {"i1": {"sp": "SP", "uq": "UserQuery", "ts": "ToolSchema"}}


def test_main_and_category_tables_without_a_panel():
    trials = [
        trial("t1", "m", "claude-code", {"sp": "pass", "uq": "pass", "ts": "pass"}),
        trial("t2", "m", "kilo", {"sp": "fail", "uq": "pass", "ts": "pass"}),
        trial("t3", "n", "kilo", {"sp": "pass", "uq": "fail", "ts": "n/a"}),
    ]
    main, by_source = paper_tables(trials, {}, SOURCES)
    assert main.header == [
        "model",
        "claude-code ISR",
        "claude-code CSR",
        "kilo ISR",
        "kilo CSR",
        "all scaffolds ISR",
        "all scaffolds CSR",
    ]
    assert main.rows[0] == ["m", "100.0%", "100.0%", "0.0%", "66.7%", "50.0%", "83.3%"]
    assert main.rows[1] == ["n", "–", "–", "0.0%", "50.0%", "0.0%", "50.0%"]
    assert by_source.header == ["model", "SP", "User query", "Tool schema"]
    assert by_source.rows[0] == ["m", "50.0% / 50.0%", "100.0% / 100.0%", "100.0% / 100.0%"]
    assert by_source.rows[1][3] == "–"  # n/a only: no applicable tool-schema item


def test_panel_cells_are_mean_and_std_across_judges_and_one_table_per_judge():
    trials = [
        trial("t1", "m", "kilo", {"sp": "pass", "uq": "pass"}),
        trial("t2", "m", "kilo", {"sp": "pass", "uq": "fail"}),
    ]
    judged = {
        "t1": {"a": [v("uq", "pass", "judge:a")], "b": [v("uq", "fail", "judge:b")]},
        "t2": {"a": [v("uq", "pass", "judge:a")], "b": [v("uq", "pass", "judge:b")]},
    }
    main, _by_source, judge_a, judge_b = paper_tables(trials, judged, SOURCES)
    # judge a: both trials all-pass (ISR 1.0, CSR 1.0); judge b: ISR 0.5, CSR 0.75.
    isr_std = statistics.stdev([1.0, 0.5]) * 100
    csr_std = statistics.stdev([1.0, 0.75]) * 100
    assert main.rows == [["m", "75.0% ± " + f"{isr_std:.1f}", "87.5% ± " + f"{csr_std:.1f}"]]
    assert "mean ± std across judges" in main.title
    assert judge_a.title.startswith("Per judge — a") and judge_a.rows == [["m", "100.0%", "100.0%"]]
    assert judge_b.rows == [["m", "50.0%", "75.0%"]]
