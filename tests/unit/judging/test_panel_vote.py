"""The panel's majority vote (ties, whose reasoning is kept) and scores across judges."""

import dataclasses

import pytest

from adhere.core import Verdict
from adhere.judging._panel import MAJORITY_JUDGE, PanelJudge, PanelResult, majority_vote
from adhere.judging._panel_scores import PanelScore, judge_trials, panel_scores, scores_by_judge


def vote(judge: str, result: str, reasoning: str = "", evidence: int | None = None) -> Verdict:
    return Verdict(
        check_id="c",
        result=result,  # type: ignore[arg-type]
        decided_by=f"judge:{judge}",
        reasoning=reasoning or f"by {judge}",
        evidence=evidence,
    )


def decide(*verdicts: Verdict) -> Verdict:
    (verdict,) = majority_vote({v.decided_by.removeprefix("judge:"): [v] for v in verdicts})
    return verdict


def test_a_tie_is_recorded_with_the_tied_results_in_tie_order() -> None:
    """fail beats pass beats n/a on a tie, and the tie is written down."""
    verdict = decide(vote("a", "pass"), vote("b", "n/a"), vote("c", "fail"))
    assert verdict.result == "fail" and verdict.details["tie"] == ["fail", "pass", "n/a"]
    verdict = decide(vote("a", "n/a"), vote("b", "pass"))
    assert verdict.result == "pass" and verdict.details["tie"] == ["pass", "n/a"]


def test_a_clear_majority_records_no_tie() -> None:
    verdict = decide(vote("a", "pass"), vote("b", "pass"), vote("c", "fail"))
    assert verdict.result == "pass" and "tie" not in verdict.details
    alone = decide(vote("a", "n/a"), vote("b", "error"))
    assert alone.result == "n/a" and "tie" not in alone.details


def test_the_winner_s_reasoning_and_evidence_come_from_a_judge_who_voted_for_it() -> None:
    """Not from the first judge if that judge voted the other way."""
    verdict = decide(
        vote("a", "fail", "looks wrong", evidence=0),
        vote("b", "pass", "the reply is fine", evidence=2),
        vote("c", "pass", "also fine", evidence=3),
    )
    assert verdict.result == "pass"
    assert (verdict.reasoning, verdict.evidence) == ("the reply is fine", 2)
    assert verdict.decided_by == f"panel:{MAJORITY_JUDGE}"


def test_a_panel_result_scores_per_judge_under_mean_and_once_under_majority() -> None:
    per_judge = {"a": [vote("a", "pass")], "b": [vote("b", "fail")]}
    mean = PanelResult("mean", per_judge, majority_vote(per_judge))
    assert mean.scoring_sets() == per_judge and mean.judges == ["a", "b"]
    majority = PanelResult("majority", per_judge, majority_vote(per_judge))
    assert majority.scoring_sets() == {MAJORITY_JUDGE: majority.majority}
    trials = judge_trials({"model": "m"}, "ok", majority)
    assert [t.keys["judge"] for t in trials] == [MAJORITY_JUDGE]
    with pytest.raises(dataclasses.FrozenInstanceError):
        mean.aggregation = "majority"  # type: ignore[misc]


def test_a_panel_judge_shares_a_prefix_cache_by_endpoint_else_by_model() -> None:
    async def ask(call):  # never called here
        raise AssertionError

    assert PanelJudge("a", "m1", ask, endpoint="openai http://h m1").prefix_group == (
        "openai http://h m1"
    )
    assert PanelJudge("a", "m1", ask).prefix_group == "model m1"
    with pytest.raises(dataclasses.FrozenInstanceError):
        PanelJudge("a", "m1", ask).name = "b"  # type: ignore[misc]


def judged(model: str, scaffold: str, results: dict[str, str]):
    per_judge = {
        j: [Verdict(check_id="c", result=r, decided_by=f"judge:{j}")] for j, r in results.items()
    }  # type: ignore[arg-type]
    return judge_trials({"model": model, "scaffold": scaffold}, "ok", per_judge)


def test_scores_grouped_by_two_keys_keep_the_judges_apart() -> None:
    trials = [
        *judged("m", "chat", {"A": "pass", "B": "fail"}),
        *judged("m", "kilo", {"A": "pass", "B": "pass"}),
    ]
    scores = panel_scores(trials, by=("model", "scaffold"))
    assert list(scores) == [("m", "chat"), ("m", "kilo")]
    chat = scores[("m", "chat")]
    assert list(chat.judges) == ["A", "B"]
    assert (chat.judges["A"].isr, chat.judges["B"].isr) == (1.0, 0.0)
    assert chat.isr_mean == 0.5 and chat.isr_std == pytest.approx(2**0.5 / 2)
    assert scores_by_judge(scores, "isr") == {
        "A": {"m/chat": 1.0, "m/kilo": 1.0},
        "B": {"m/chat": 0.0, "m/kilo": 1.0},
    }
    with pytest.raises(dataclasses.FrozenInstanceError):
        chat.isr_mean = 1.0  # type: ignore[misc]
    assert isinstance(chat, PanelScore)


def test_scores_by_judge_give_isr_or_csr_as_asked() -> None:
    """A judge that failed one of two checks: ISR 0, CSR 0.5."""
    per_judge = {
        "A": [
            Verdict(check_id="c1", result="pass", decided_by="judge:A"),
            Verdict(check_id="c2", result="fail", decided_by="judge:A"),
        ]
    }
    scores = panel_scores(judge_trials({"model": "m"}, "ok", per_judge))
    assert scores_by_judge(scores, "isr") == {"A": {"m": 0.0}}
    assert scores_by_judge(scores, "csr") == {"A": {"m": 0.5}}
