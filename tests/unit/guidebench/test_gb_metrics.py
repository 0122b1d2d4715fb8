"""GuideBench metrics on hand-made verdicts."""

import pytest

from adhere.core import Verdict
from adhere.metrics import ScoredTrial
from adhere.suites.guidebench import Answer, macro_prf, report_tables, score
from adhere.suites.guidebench._metrics import VERIFIER, overall


def test_macro_precision_recall_f1_by_hand() -> None:
    pairs = [("A", "A"), ("A", "B"), ("B", "B"), ("C", None)]
    # A: TP 1, predicted 1, gold 2 → P 1, R 1/2, F1 2·1·½/(1½) = 2/3
    # B: TP 1, predicted 2, gold 1 → P 1/2, R 1, F1 2/3
    # C: TP 0, predicted 0, gold 1 → P 0, R 0, F1 0 (the invalid answer predicts nothing)
    p, r, f1 = macro_prf(pairs)  # type: ignore[misc]
    assert p == pytest.approx(0.5) and r == pytest.approx(0.5)
    assert f1 == pytest.approx((2 / 3 + 2 / 3) / 3)
    assert macro_prf([]) is None


def test_a_label_only_predicted_counts_with_zero_recall() -> None:
    # gold A twice; predicted A then D: labels {A, D}; A: P 1, R 1/2; D: P 0, R 0
    p, r, _ = macro_prf([("A", "A"), ("A", "D")])  # type: ignore[misc]
    assert p == pytest.approx(0.5) and r == pytest.approx(0.25)


def test_math_amounts_are_labels_as_in_the_papers_table_2() -> None:
    answers = [
        Answer("math", "170", "170", "correct"),
        Answer("math", "170", "180", "wrong"),
        Answer("math", "535", "535", "correct"),
        Answer("math", "5", None, "invalid"),
    ]
    s = score(answers)
    assert (s.tasks, s.correct, s.invalid, s.accuracy) == (4, 2, 1, 0.5)
    # labels {5, 170, 180, 535}: 170 P 1/1 R 1/2; 180 P 0/1 R 0/0 → 0; 535 P 1 R 1;
    # 5 predicted by nobody (the invalid answer predicts no label) P 0, R 0/1
    assert s.precision == pytest.approx((1 + 0 + 1 + 0) / 4)
    assert s.recall == pytest.approx((0.5 + 0 + 1 + 0) / 4)
    assert s.f1 == pytest.approx((2 / 3 + 0 + 1 + 0) / 4)


def test_a_placeholder_label_counts_where_the_verdict_gives_one() -> None:
    # the paper's protocol: an unparsable math answer is the label "0", as the public
    # evaluator fills it in; it becomes a label with P 0 and R 0
    two = [trial("m", "math", "170", "170", "correct"), trial("m", "math", "535", None, "invalid")]
    marked = [two[0], trial("m", "math", "535", None, "invalid", label="0")]
    # plain: labels {170, 535}: P (1 + 0)/2, R (1 + 0)/2; marked: {0, 170, 535} → /3
    assert report_tables(two)[0][1].rows[0][4:6] == ["50.0", "50.0"]
    assert report_tables(marked)[0][1].rows[0][4:6] == ["33.3", "33.3"]


def test_overall_is_weighted_by_task_count() -> None:
    chat = score([Answer("chat", "A", "A", "correct")] * 3 + [Answer("chat", "B", "A", "wrong")])
    math = score([Answer("math", "1", "2", "wrong")] * 2)
    total = overall({"chat": chat, "math": math})
    assert total.accuracy == pytest.approx(3 / 6)  # not the mean of 75% and 0%
    # P/R/F1 weighted by tasks too: chat A P 3/4, B P 0 → 3/8; math labels {1, 2} both P 0
    assert total.precision == pytest.approx((4 * 3 / 8 + 2 * 0.0) / 6)  # type: ignore[operator]


def trial(model, category, gold, got, outcome, *, update=False, steps=(), status="ok", label=None):
    details = {"category": outcome, "got": got, "expected": gold, "normalized": list(steps)}
    if label is not None:
        details["label"] = label
    verdict = Verdict(
        check_id="answer",
        result="error" if status != "ok" else ("pass" if outcome == "correct" else "fail"),
        decided_by=VERIFIER,
        details=details if status == "ok" else {},  # a failed trial's verdict has no details
    )
    keys = {"model": model, "category": category, "rule_update": update, "gold": gold}
    return ScoredTrial(keys=keys, status=status, verdicts=[verdict])


def test_report_tables_from_verdicts() -> None:
    trials = [
        trial("m", "chat", "A", "A", "correct", steps=("case",)),
        trial("m", "chat", "A", "B", "wrong"),
        trial("m", "chat", "B", "B", "correct"),
        trial("m", "chat", "C", None, "invalid"),
        trial("m", "math", "170", "170", "correct", update=True, steps=("numeric format",)),
        trial("m", "math", "535", "545", "wrong"),
        trial("m", "math", "900", None, "error", status="error"),
        trial("m", "chat", "B", None, "error", status="error"),
    ]
    paper, extra = report_tables(trials)
    main, detail = paper
    assert main.header == ["model", "math", "chat", "overall"]  # the paper's order
    assert main.rows == [["m", "33.3%", "40.0%", "37.5%"]]  # 1/3, 2/5, 3/8
    rows = {row[1]: row for row in detail.rows}
    # category: tasks, accuracy, P, R, F1, invalid, normalized. Chat as in the hand-worked
    # case above plus a failed trial with gold B: B's recall drops to 1/2, so
    # R = (1/2 + 1/2 + 0)/3 = 33.3 and F1 = (2/3 + 1/2 + 0)/3 = 38.9.
    assert rows["chat"][2:] == ["5", "40.0%", "50.0", "33.3", "38.9", "1", "1", "0"]
    # math labels {170, 535, 545, 900}: only 170 is right (P 1, R 1), the rest P 0, R 0
    assert rows["math"][2:] == ["3", "33.3%", "25.0", "25.0", "25.0", "0", "1", "0"]
    # overall P = (5 · 50 + 3 · 25)/8, R = (5 · 33.3 + 3 · 25)/8, F1 = (5 · 38.9 + 3 · 25)/8
    p = (5 * 0.5 + 3 * 0.25) / 8
    r = (5 * (1 / 3) + 3 * 0.25) / 8
    f1 = (5 * (2 / 3 + 1 / 2) / 3 + 3 * 0.25) / 8
    assert rows["overall"][2:] == [
        "8", "37.5%", f"{p * 100:.1f}", f"{r * 100:.1f}", f"{f1 * 100:.1f}", "1", "2", "0",
    ]  # fmt: skip
    updates, steps = extra
    assert updates.rows == [["m", "math", "1", "100.0%", "2", "0.0%"]]
    assert ["m", "numeric format", "1", "1"] in steps.rows
    assert ["m", "(invalid: no usable answer)", "1", "0"] in steps.rows


def test_no_tables_for_other_suites() -> None:
    other = ScoredTrial(keys={"model": "m", "category": "Skill"}, status="ok", verdicts=[])
    assert report_tables([other]) == ([], [])


def test_rule_edit_table_by_hand() -> None:
    def pair(n, original_ok, edited_got):
        gold, new = "100", "90"
        outcome = "correct" if original_ok else "wrong"
        o = trial("m", "math", gold, gold if original_ok else "1", outcome)
        o.keys.update(instance=f"t{n}", rule_edit="original", edit_pair=f"t{n}-edit")
        outcome = "correct" if edited_got == new else ("invalid" if edited_got is None else "wrong")
        e = trial("m", "math", new, edited_got, outcome)
        e.keys.update(
            instance=f"t{n}-edit", rule_edit="edited", edit_pair=f"t{n}", edit_original_answer=gold
        )
        return [o, e]

    trials = [*pair(1, True, "90"), *pair(2, True, "100"), *pair(3, False, "100.0")]
    trials += pair(4, True, None)
    table = next(t for t in report_tables(trials)[1] if t.title.startswith("GuideBench rule edits"))
    # 4 pairs: originals right 3/4; edited right 1/4; the old answer (100, 100.0) twice;
    # both right once (pair 1)
    assert table.rows == [["m", "4", "75.0%", "25.0%", "2", "1"]]


def test_undecided_answers_and_upstream_faults_are_left_out() -> None:
    decided = [trial("m", "price", "1", "1", "correct"), trial("m", "price", "0", "1", "wrong")]
    # the run finished but its check errored (the LLM parser gave no answer): undecided
    errored = ScoredTrial(
        keys={"model": "m", "category": "price", "gold": "1"},
        status="ok",
        verdicts=[Verdict(check_id="answer", result="error", decided_by="guidebench.llm-parse")],
    )
    fault = trial("m", "price", "1", None, "error", status="upstream_fault")
    failed = trial("m", "price", "1", None, "error", status="error")  # a failed run: wrong
    main, detail = report_tables([*decided, errored, fault, failed])[0]
    assert main.rows == [["m", "33.3%", "33.3%"]]  # 1 right of 3 decided
    assert detail.rows[0][2:4] == ["3", "33.3%"] and detail.rows[0][-1] == "1"


def test_a_failed_run_counts_against_the_gold_label_the_verdicts_use() -> None:
    # under the paper's parsing labels are JSON text; a failed run's verdict has no
    # details, so its gold label comes from the instance metadata (gold_label)
    ok = trial("m", "relevance", '"2（强相关）"', '"2（强相关）"', "correct")
    failed = trial("m", "relevance", "2", None, "error", status="error")
    failed.keys["gold_label"] = '"2（强相关）"'
    detail = report_tables([ok, failed])[0][1]
    # one label, P 1/1, R 1/2 (not a second, phantom label "2")
    assert detail.rows[0][4:6] == ["100.0", "50.0"]
