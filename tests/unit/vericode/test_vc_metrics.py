"""VeriCode metrics on hand-made verdicts, and vibe correlation on a made-up Elo table."""

import pytest

from adhere.core import Verdict
from adhere.metrics import ScoredTrial
from adhere.metrics._vibe import kendall, pearson, spearman, vibe_correlation
from adhere.suites.vericode import error_rates, excluded_models, model_scores, report_tables, units
from adhere.suites.vericode._metrics import fr, if_instruction, if_task, pass_at_1


def trial(model, protocol, k, results):
    verdicts = [Verdict(check_id=check, result=result, decided_by="t") for check, result in results]
    keys = {"model": model, "scaffold": "chat", "protocol": protocol, "k": k}
    return ScoredTrial(keys=keys, status="ok", verdicts=verdicts)


# single-turn, model m: S_0 = 2/2; at k = 2: tests pass 1 of 2 (FR_2 = 0.5);
# instructions: trial A follows both, trial B follows only the first.
SINGLE = [
    trial("m", "single", 0, [("tests", "pass")]),
    trial("m", "single", 0, [("tests", "pass")]),
    trial("m", "single", 2, [("tests", "pass"), ("style_1", "pass"), ("doc_1", "pass")]),
    trial("m", "single", 2, [("tests", "fail"), ("style_1", "pass"), ("doc_1", "error")]),
]
# multi-turn, one trial with two edit turns.
MULTI = [
    trial(
        "m",
        "multi",
        2,
        [
            ("t0.tests", "pass"),
            ("t1.tests", "pass"),
            ("t1.logic_1", "fail"),
            ("t2.tests", "fail"),
            ("t2.logic_1", "pass"),
            ("t2.error_2", "pass"),
        ],
    )
]


def test_units_from_check_ids():
    multi = units(MULTI[0])
    assert [(u.k, u.tests, u.instructions) for u in multi] == [
        (0, True, []),
        (1, True, [("logic_1", 1, False)]),
        (2, False, [("logic_1", 1, True), ("error_2", 2, True)]),
    ]
    single = units(SINGLE[3])
    assert [(u.k, u.tests, u.instructions) for u in single] == [
        (2, False, [("style_1", 1, True), ("doc_1", 2, False)])
    ]


def test_rates_by_hand():
    group = [u for t in SINGLE for u in units(t)]
    assert pass_at_1(group, 0) == 1.0 and pass_at_1(group, 2) == 0.5
    assert fr(group, 2) == 0.5 and fr(group, 1) is None
    assert if_instruction(group, 2) == 0.75
    assert if_task(group, 2) == 0.5
    multi = units(MULTI[0])
    assert fr(multi, 2) == 1.0 and fr(multi, 1) == 0.0
    assert if_task(multi, 1) == 0.0 and if_task(multi, 2) == 1.0


def test_report_tables():
    paper, extra = report_tables(SINGLE + MULTI)
    functional, following = paper
    assert functional.header == [
        "model", "protocol", "pass@1 k=0", "pass@1 k=1", "pass@1 k=2", "FR_1", "FR_2",
    ]  # fmt: skip
    rows = {tuple(r[:2]): r for r in functional.rows}
    assert rows[("m", "single")][2:] == ["100.0%", "–", "50.0%", "–", "50.0%"]
    assert rows[("m", "multi")][2:] == ["100.0%", "100.0%", "0.0%", "0.0%", "100.0%"]
    follow = {tuple(r[:3]): r[3:] for r in following.rows}
    assert follow[("m", "single", "IF_task")] == ["–", "50.0%"]
    assert follow[("m", "single", "IF_instruction")] == ["–", "75.0%"]
    assert follow[("m", "multi", "IF_task")] == ["0.0%", "100.0%"]
    category, position, per_instruction = extra
    cats = {tuple(r[:2]): r for r in category.rows}
    header = category.header
    assert cats[("m", "single")][header.index("style")] == "100.0%"
    assert cats[("m", "single")][header.index("doc")] == "50.0%"
    assert cats[("m", "single")][header.index("logic")] == "–"
    pos = {tuple(r[:2]): r[2:] for r in position.rows}
    assert pos[("m", "single")] == ["100.0%", "50.0%"]
    assert any(r[2] == "doc_1" and r[-1] == "50.0%" for r in per_instruction.rows)


def test_model_scores_at_the_largest_k():
    scores = model_scores(SINGLE + MULTI, protocol="single", points="largest")
    assert scores == {"m": (0.5, 0.5)}
    found = model_scores(SINGLE, protocol="single", if_metric="instruction", points="largest")
    assert found == {"m": (0.75, 0.5)}
    # the multi-turn protocol's largest k is its last turn: IF_task 1/1, pass@1 0/1
    assert model_scores(MULTI, protocol="multi", points="largest") == {"m": (1.0, 0.0)}


# k = 1 single-turn: three trials, two follow their instruction; k = 0: 1 of 2 pass.
AT_ONE = [
    trial("p", "single", 0, [("tests", "pass")]),
    trial("p", "single", 0, [("tests", "fail")]),
    trial("p", "single", 1, [("tests", "fail"), ("style_1", "pass")]),
    trial("p", "single", 1, [("tests", "fail"), ("doc_1", "pass")]),
    trial("p", "single", 1, [("tests", "pass"), ("logic_1", "fail")]),
    trial("p", "single", 2, [("tests", "pass"), ("style_1", "fail"), ("doc_1", "fail")]),
    trial("p", "multi", 1, [("t0.tests", "pass"), ("t1.tests", "pass"), ("t1.doc_1", "pass")]),
]


def test_model_scores_at_the_papers_points():
    # IF from single-turn k = 1 (2/3), Func = pass@1 at k = 0 (1/2); multi and k = 2 unused
    assert model_scores(AT_ONE) == {"p": (2 / 3, 0.5)}
    assert model_scores(AT_ONE, if_metric="instruction") == {"p": (2 / 3, 0.5)}
    assert model_scores(AT_ONE, protocol="multi") == {"p": (2 / 3, 0.5)}  # always single
    # no k = 1 trials: the model cannot be placed
    assert model_scores(SINGLE) == {}
    with pytest.raises(ValueError, match="points"):
        model_scores(SINGLE, points="smallest")


def test_the_papers_error_exclusion_rule():
    failing = [ScoredTrial(keys=t.keys, status="error", verdicts=t.verdicts) for t in AT_ONE[:1]]
    # q: 1 errored trial of 10 (10%: kept); r: 2 of 10 (20%: left out)
    q = [ScoredTrial(keys={**t.keys, "model": "q"}, status=t.status, verdicts=t.verdicts)
         for t in failing + AT_ONE + AT_ONE[:2]]  # fmt: skip
    r = [ScoredTrial(keys={**t.keys, "model": "r"}, status=t.status, verdicts=t.verdicts)
         for t in failing * 2 + AT_ONE + AT_ONE[:1]]  # fmt: skip
    assert error_rates(q + r) == {"q": pytest.approx(0.1), "r": pytest.approx(0.2)}
    assert excluded_models(q + r, 0.1) == ["r"]
    assert excluded_models(q + r, None) == []
    assert set(model_scores(q + r, max_error_rate=0.1)) == {"q"}
    assert set(model_scores(q + r)) == {"q", "r"}


def test_correlations_by_hand():
    # IF ranks 1..4, Elo ranks 1,3,2,4: Σd² = 2 → ρ = 1 − 6·2/(4·15) = 0.8;
    # r = Σ dx·dy / √(Σdx² Σdy²) = 40 / √(0.05 · 50000) = 0.8;
    # τ: 6 pairs, only (b, c) discordant → (5 − 1)/6
    if_scores, elo = [0.1, 0.2, 0.3, 0.4], [1000, 1200, 1100, 1300]
    assert pearson(if_scores, elo) == pytest.approx(0.8)
    assert spearman(if_scores, elo) == pytest.approx(0.8)
    assert kendall(if_scores, elo) == pytest.approx(4 / 6)
    # ties: x = 1, 3, 3, 2 → average ranks 1, 3.5, 3.5, 2 against 1..4;
    # deviations (−1.5, 1, 1, −0.5)·(−1.5, −0.5, 0.5, 1.5): Σ = 1.5, Σdx² = 4.5, Σdy² = 5
    assert spearman([1, 3, 3, 2], [1, 2, 3, 4]) == pytest.approx(1.5 / (4.5 * 5) ** 0.5)
    # pairs (i<j): 12 C, 13 C, 14 C, 23 tie, 24 D, 34 D → (3 − 2)/√(5·6)
    assert kendall([1, 3, 3, 2], [1, 2, 3, 4]) == pytest.approx(1 / 30**0.5)
    assert pearson([1, 1, 1], [1, 2, 3]) is None
    assert kendall([1, 2, 3], [5, 5, 5]) is None
    with pytest.raises(ValueError, match="differ in length"):
        pearson([1, 2], [1, 2, 3])


def test_vibe_sweep_on_a_made_up_elo_table():
    elo = {"a": 1000, "b": 1200, "c": 1100, "d": 1300, "only-elo": 900}
    # Func = (Elo − 900)/1000 exactly: α = 0 correlates perfectly.
    scores = {"a": (0.1, 0.1), "b": (0.2, 0.3), "c": (0.3, 0.2), "d": (0.4, 0.4)}
    result = vibe_correlation(scores, elo, step=0.5)
    assert result.models == ("a", "b", "c", "d") and result.missing == ("only-elo",)
    by_alpha = {p.alpha: p for p in result.points}
    assert set(by_alpha) == {0.0, 0.5, 1.0}
    assert by_alpha[0.0].pearson == pytest.approx(1.0)
    assert by_alpha[1.0].pearson == pytest.approx(0.8)
    # α = 0.5: composite 0.1, 0.25, 0.25, 0.4 → r = 45/√2250, ρ = 4.5/√22.5 (tied ranks)
    assert by_alpha[0.5].pearson == pytest.approx(45 / 2250**0.5)
    assert by_alpha[0.5].spearman == pytest.approx(4.5 / 22.5**0.5)
    # τ-b at α = 0.5: pairs ab ac ad bd cd concordant, bc tied in x → 5/√(5·6)
    assert by_alpha[0.5].kendall == pytest.approx(5 / 30**0.5)
    assert by_alpha[1.0].kendall == pytest.approx(4 / 6)
    assert result.best_pearson.alpha == 0.0 and result.best_spearman.alpha == 0.0
    assert result.best_kendall.alpha == 0.0
    # IF and Func pulling opposite ways cancel at α = 0.5: undefined there
    flat = {"a": (0.1, 0.4), "b": (0.2, 0.3), "c": (0.3, 0.2), "d": (0.4, 0.1)}
    swept = vibe_correlation(flat, elo, step=0.5)
    assert {p.alpha: p.pearson for p in swept.points}[0.5] is None
    assert swept.best_pearson.alpha == 1.0
    assert vibe_correlation({"a": (1, 1)}, elo).best_pearson is None
    with pytest.raises(ValueError):
        vibe_correlation(scores, elo, step=0)


def test_ties_between_alphas_go_to_the_smallest():
    # IF == Func for every model: every α gives the same composite and correlations
    elo = {"a": 1000, "b": 1100, "c": 1300}
    same = {"a": (0.1, 0.1), "b": (0.3, 0.3), "c": (0.2, 0.2)}
    result = vibe_correlation(same, elo, step=0.25)
    assert len({round(p.kendall, 12) for p in result.points}) == 1
    assert result.best_pearson.alpha == result.best_kendall.alpha == 0.0
