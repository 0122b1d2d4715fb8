import statistics

from adhere.core import Verdict
from adhere.metrics import ScoredTrial
from adhere.report._judges import per_judge_trials, rule_note
from adhere.report._paper import paper_tables
from adhere.report._turns import bin_label, turn_bin


def v(check: str, result: str, by: str = "verifier:x") -> Verdict:
    return Verdict(check_id=check, result=result, decided_by=by)


def trial(tid, model, scaffold, results, status="ok"):
    verdicts = [v(c, r) for c, r in results.items()]
    keys = {"model": model, "scaffold": scaffold, "instance": "i1", "trial": tid}
    return ScoredTrial(keys=keys, status=status, verdicts=verdicts)


SOURCES = {"i1": {"sp": "SP", "uq": "UserQuery", "ts": "ToolSchema"}}


def test_tables_without_a_panel_are_plain_rates_of_the_stored_verdicts():
    trials = [
        trial("t1", "m", "claude-code", {"sp": "pass", "uq": "pass", "ts": "pass"}),
        trial("t2", "m", "kilo", {"sp": "fail", "uq": "pass", "ts": "pass"}),
        trial("t3", "n", "kilo", {"sp": "pass", "uq": "fail", "ts": "n/a"}),
    ]
    table_2, table_3, table_13, table_15 = paper_tables(per_judge_trials(trials, {}), SOURCES)
    assert table_2.title.startswith("Table 2 — by judge model")
    assert table_2.header == ["model", "mean ISR", "mean CSR"]  # no judge columns
    assert table_2.rows == [["m", "50.0%", "83.3%"], ["n", "0.0%", "50.0%"]]
    assert table_3.header == ["model", "claude-code ISR", "claude-code CSR", "kilo ISR", "kilo CSR"]
    assert table_3.rows[0] == ["m", "100.0%", "100.0%", "0.0%", "66.7%"]
    assert table_3.rows[1] == ["n", "–", "–", "0.0%", "50.0%"]
    assert table_13.title.startswith("Table 13 — claude-code by instruction category")
    assert table_13.rows == [["m", *["100.0%"] * 6]]  # n never ran claude-code
    assert table_15.title.startswith("Table 15 — kilo")
    assert table_15.header[1:3] == ["SP ISR", "SP CSR"]
    m, n = table_15.rows
    assert m[1:3] == ["0.0%", "0.0%"] and n[-2:] == ["–", "–"]  # n/a only: no tool-schema item
    assert "no" in rule_note([]) and "plain rates" in rule_note([])


def test_panel_cells_are_mean_and_population_std_and_failed_runs_count_for_every_judge():
    trials = [
        trial("t1", "m", "kilo", {"sp": "pass", "uq": "pass"}),
        trial("t2", "m", "kilo", {"sp": "pass", "uq": "fail"}),
        trial("t3", "m", "kilo", {"sp": "error", "uq": "error"}, status="error"),
    ]
    judged = {
        "t1": {"a": [v("uq", "pass", "judge:a")], "b": [v("uq", "fail", "judge:b")]},
        "t2": {"a": [v("uq", "pass", "judge:a")], "b": [v("uq", "pass", "judge:b")]},
    }
    table_2, table_3, _kilo = paper_tables(per_judge_trials(trials, judged), SOURCES)
    # judge a: t1, t2 pass, t3 failed to run → ISR 2/3, CSR 2/3; judge b: ISR 1/3, CSR 1.5/3.
    a, b = (2 / 3, 2 / 3), (1 / 3, 0.5)
    isr, csr = (
        f"{statistics.fmean(pair) * 100:.1f}% ± {statistics.pstdev(pair) * 100:.1f}"
        for pair in ([a[0], b[0]], [a[1], b[1]])
    )
    assert table_2.header == ["model", "a ISR", "a CSR", "b ISR", "b CSR", "mean ISR", "mean CSR"]
    assert table_2.rows == [["m", "66.7%", "66.7%", "33.3%", "50.0%", isr, csr]]
    assert table_3.rows == [["m", isr, csr]]


def test_a_judge_with_only_incomplete_trials_is_named_in_the_cell():
    trials = [trial("t1", "m", "kilo", {"sp": "pass", "uq": "pass"})]
    judged = {"t1": {"a": [v("uq", "pass", "judge:a")], "b": [v("uq", "error", "judge:b")]}}
    table_2 = paper_tables(per_judge_trials(trials, judged), SOURCES)[0]
    assert table_2.rows == [["m", "100.0%", "100.0%", "incomplete", "incomplete",
                             "100.0% (1/2 judges)", "100.0% (1/2 judges)"]]  # fmt: skip


def test_turn_bins():
    assert [bin_label(turn_bin(n)) for n in (0, 1, 5, 6, 10, 11, 20, 21, 40, 41, 80, 81, 500)] == [
        "0", "1–5", "1–5", "6–10", "6–10", "11–20", "11–20", "21–40", "21–40", "41–80",
        "41–80", "81+", "81+",
    ]  # fmt: skip
