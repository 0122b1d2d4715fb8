import json

import pytest

from adhere.core._types import Check, Source, Trajectory, Verdict, VerifierRef
from adhere.judging._judge_call import JudgeCall
from adhere.judging._panel import (
    MAJORITY_JUDGE,
    PanelJudge,
    majority_vote,
    panel_judges,
    run_panel,
)
from adhere.judging._panel_scores import (
    category_trials,
    judge_trials,
    panel_scores,
    scores_by_judge,
)
from adhere.judging._prompt import read_checklist
from adhere.metrics._rates import ScoredTrial
from adhere.spec._resources import JudgePanelSpec


def v(check_id, result, judge="j", reasoning="", evidence=None):
    return Verdict(
        check_id=check_id,
        result=result,
        decided_by=f"judge:{judge}",
        reasoning=reasoning,
        evidence=evidence,
    )


def votes(*results):
    """One check, one verdict per judge: j1, j2, …"""
    return {f"j{n}": [v("c", r, f"j{n}", reasoning=f"by j{n}")] for n, r in enumerate(results, 1)}


@pytest.mark.parametrize(
    ("results", "outcome"),
    [
        (("pass", "pass", "fail"), "pass"),
        (("fail", "fail", "pass"), "fail"),
        (("n/a", "n/a", "pass"), "n/a"),
        (("pass", "fail"), "fail"),
        (("pass", "fail", "error"), "fail"),
        (("pass", "n/a"), "pass"),
        (("n/a", "fail"), "fail"),
        (("pass", "fail", "n/a"), "fail"),
        (("pass", "error", "error"), "pass"),
        (("error", "error"), "error"),
    ],
)
def test_majority_rules(results, outcome):
    (verdict,) = majority_vote(votes(*results))
    assert verdict.result == outcome
    assert verdict.decided_by == f"panel:{MAJORITY_JUDGE}"
    assert verdict.details["votes"] == {f"j{n}": r for n, r in enumerate(results, 1)}
    assert verdict.details["abstained"] == [
        f"j{n}" for n, r in enumerate(results, 1) if r == "error"
    ]
    if outcome != "error":
        first = results.index(outcome) + 1
        assert verdict.reasoning == f"by j{first}"


def test_majority_keeps_check_order_and_rejects_mismatched_judges():
    per_judge = {"a": [v("x", "pass"), v("y", "fail")], "b": [v("y", "fail"), v("x", "pass")]}
    assert [m.check_id for m in majority_vote(per_judge)] == ["x", "y"]
    with pytest.raises(ValueError, match="judge 'b' judged different checks"):
        majority_vote({"a": [v("x", "pass")], "b": [v("z", "pass")]})
    assert majority_vote({}) == []


def fixed_judge(result_for):
    """An ask answering each item with result_for(check_id)."""

    async def ask(call: JudgeCall) -> str:
        entries = [
            {
                "check_id": i.check_id,
                "result": result_for(i.check_id),
                "reasoning": "",
                "evidence": None,
            }
            for i in read_checklist(call.user)
        ]
        return json.dumps({"verdicts": entries})

    return ask


async def test_run_panel_judges_only_checks_without_verifier():
    checks = [
        Check(id="a", source=Source.SYSTEM_PROMPT, description="x"),
        Check(id="b", source=Source.USER_QUERY, description="y"),
        Check(
            id="det", source=Source.STYLE, description="z", verifier=VerifierRef(name="no_emoji")
        ),
    ]
    judges = [
        PanelJudge("lenient", "m1", fixed_judge(lambda c: "pass")),
        PanelJudge("strict", "m2", fixed_judge(lambda c: "fail")),
        PanelJudge("split", "m3", fixed_judge(lambda c: "pass" if c == "a" else "fail")),
    ]
    result = await run_panel(judges, checks, Trajectory(), aggregation="majority")
    assert result.judges == ["lenient", "strict", "split"]
    assert [x.check_id for x in result.per_judge["strict"]] == ["a", "b"]
    assert [m.result for m in result.majority] == ["pass", "fail"]
    assert result.scoring_sets() == {MAJORITY_JUDGE: result.majority}
    mean = await run_panel(judges, checks, Trajectory())
    assert list(mean.scoring_sets()) == ["lenient", "strict", "split"]
    with pytest.raises(ValueError, match="at least one judge"):
        await run_panel([], checks, Trajectory())
    with pytest.raises(ValueError, match="duplicate judge names"):
        await run_panel([judges[0], judges[0]], checks, Trajectory())


async def test_a_judge_capped_by_its_endpoint_gets_smaller_batches_within_the_cap():
    checks = [Check(id=f"c{i}", source=Source.USER_QUERY, description="x") for i in range(12)]
    sent: dict[str, list[tuple[int, int]]] = {"big": [], "capped": []}

    def recording(name):
        answer = fixed_judge(lambda c: "pass")

        async def ask(call: JudgeCall) -> str:
            sent[name].append((call.max_tokens, len(read_checklist(call.user))))
            return await answer(call)

        return ask

    judges = [
        PanelJudge("big", "m1", recording("big")),  # no endpoint cap: the panel's 4,096
        PanelJudge("capped", "m2", recording("capped"), max_tokens=400),
    ]
    result = await run_panel(judges, checks, Trajectory())
    assert sent["big"] == [(4096, 12)]  # one call holds all twelve
    assert {cap for cap, _ in sent["capped"]} == {400}
    # 400 tokens: half of it less a 16-token envelope (184) holds two entries of 85
    # (24 of JSON, 1 of id, 60 of reasoning; docs/judging.md "Batches") a call
    assert sorted(n for _, n in sent["capped"]) == [2] * 6
    assert [v.result for v in result.per_judge["capped"]] == ["pass"] * 12
    assert PanelJudge("x", "m", recording("big"), max_tokens=8192).output_cap(4096) == 4096


def test_panel_judges_from_spec():
    spec = JudgePanelSpec.model_validate(
        {
            "judges": [
                {"name": "a", "endpoint": {"baseUrl": "http://x/v1", "model": "judge:seed=1"}},
                {"name": "b", "endpoint": {"baseUrl": "http://x/v1", "model": "judge:seed=2"}},
            ]
        }
    )
    asks = {}

    def ask_for(judge):
        asks[judge.name] = fixed_judge(lambda c: "pass")
        return asks[judge.name]

    built = panel_judges(spec, ask_for)
    assert [(j.name, j.model, j.ask) for j in built] == [
        ("a", "judge:seed=1", asks["a"]),
        ("b", "judge:seed=2", asks["b"]),
    ]
    assert [j.max_tokens for j in built] == [4096, 4096]  # the endpoints' default maxTokens


def scored(model, judge_results, fixed=()):
    """One trial of ``model``: per judge, the results of checks c0, c1, …"""
    per_judge = {
        judge: [v(f"c{i}", r, judge) for i, r in enumerate(results)]
        for judge, results in judge_results.items()
    }
    return judge_trials({"model": model, "scaffold": "s"}, "ok", per_judge, fixed)


def test_scores_per_judge_then_mean_and_std():
    trials = [
        *scored("m", {"A": ["pass", "pass"], "B": ["pass", "fail"]}),
        *scored("m", {"A": ["pass", "n/a"], "B": ["fail", "fail"]}),
        *scored("n", {"A": ["error", "pass"], "B": ["pass", "pass"]}),
    ]
    scores = panel_scores(trials)
    m = scores[("m",)]
    # Judge A: trial 1 all pass (1.0), trial 2 pass with n/a excluded (1.0) → ISR 1, CSR 1.
    # Judge B: trial 1 half (0.5), trial 2 none (0.0) → ISR 0, CSR 0.25.
    assert (m.judges["A"].isr, m.judges["A"].csr) == (1.0, 1.0)
    assert (m.judges["B"].isr, m.judges["B"].csr) == (0.0, 0.25)
    assert m.isr_mean == pytest.approx(0.5)
    assert m.isr_std == pytest.approx(0.7071067811865476)
    assert m.csr_mean == pytest.approx(0.625)
    assert m.csr_std == pytest.approx(0.5303300858899106)
    n = scores[("n",)]
    # Judge A errored on one check of n's trial: incomplete, no score (not a fail)
    assert n.judges["A"].csr is None and n.judges["A"].isr is None
    assert n.judges["A"].incomplete == 1 and n.judges["A"].errored_by == {"judge:A": 1}
    assert n.csr_mean == 1.0 and n.csr_std is None  # only B could score it
    assert scores_by_judge(scores, "csr") == {"A": {"m": 1.0}, "B": {"m": 0.25, "n": 1.0}}
    with pytest.raises(ValueError):
        panel_scores(trials, by=("judge",))
    with pytest.raises(ValueError):
        scores_by_judge(scores, "f1")


def test_single_judge_has_no_spread_and_fixed_verdicts_count_for_every_judge():
    fixed = [v("det", "fail", "verifier")]
    trials = scored("m", {"A": ["pass"], "B": ["pass"]}, fixed)
    assert all(len(t.verdicts) == 2 for t in trials)
    scores = panel_scores(trials)[("m",)]
    assert scores.isr_mean == 0.0 and scores.csr_mean == 0.5 and scores.csr_std == 0.0
    alone = panel_scores(scored("m", {"A": ["pass"]}))[("m",)]
    assert alone.isr_mean == 1.0 and alone.isr_std is None


def test_per_scaffold_and_per_category_scores():
    trial = ScoredTrial(
        keys={"model": "m", "scaffold": "kilo", "judge": "A"},
        status="ok",
        verdicts=[v("sp1", "pass"), v("sp2", "fail"), v("md1", "pass"), v("x", "pass")],
    )
    split = category_trials(trial, {"sp1": "SP", "sp2": "SP", "md1": "AgentsMd"})
    assert sorted(t.keys["category"] for t in split) == ["AgentsMd", "SP", "other"]
    scores = panel_scores(split, by=("model", "category"))
    assert scores[("m", "SP")].csr_mean == 0.5
    assert scores[("m", "AgentsMd")].isr_mean == 1.0
    assert list(panel_scores([trial], by=("model", "scaffold"))) == [("m", "kilo")]
