import pytest

from adhere.core import Verdict
from adhere.metrics import ConflictRun, followed, side_checks
from adhere.report import conflict_tables

CONFLICT = {
    "scenario": "language",
    "type": "SP vs UserQuery",
    "sides": [{"source": "SP", "check": "sp"}, {"source": "UserQuery", "check": "uq"}],
}


def run(sp: str | None, uq: str | None, *, model="m", status="ok", conflict=CONFLICT):
    verdicts = [
        Verdict(check_id=cid, result=result, decided_by="verifier:x")
        for cid, result in (("sp", sp), ("uq", uq), ("other", "pass"))
        if result is not None
    ]
    return ConflictRun({"model": model}, status, conflict, verdicts)


@pytest.mark.parametrize(
    ("sp", "uq", "status", "outcome"),
    [
        ("pass", "fail", "ok", "first"),
        ("fail", "pass", "ok", "second"),
        ("pass", "pass", "ok", "both"),
        ("fail", "fail", "ok", "neither"),
        ("pass", "error", "ok", "undecided"),
        ("n/a", "pass", "ok", "undecided"),
        ("pass", None, "ok", "undecided"),
        ("pass", "fail", "error", "undecided"),
    ],
)
def test_followed(sp, uq, status, outcome):
    assert followed(run(sp, uq, status=status)) == outcome


def test_side_checks_only_for_conflict_instances():
    assert side_checks({"conflict": CONFLICT}) == {"sp", "uq"}
    assert side_checks({"category": "SP"}) == set()


def test_tables_count_shares_per_type_and_scenario():
    emoji = {**CONFLICT, "scenario": "emoji"}
    doc = {
        "scenario": "verbosity",
        "type": "UserQuery vs AgentsMd",
        "sides": [{"source": "UserQuery", "check": "uq"}, {"source": "AgentsMd", "check": "sp"}],
    }
    runs = [
        run("pass", "fail"),
        run("pass", "fail"),
        run("fail", "pass"),
        run("pass", "error", conflict=emoji),
        run("fail", "fail", conflict=doc),
        run("fail", "pass", model="n"),
    ]
    detailed, by_type = conflict_tables(runs, ["model"])
    rows = {tuple(r[:3]): r[3:] for r in detailed.rows}
    assert rows[("m", "SP vs UserQuery", "language")] == [
        "3",
        "SP: 66.7% (2)",
        "UserQuery: 33.3% (1)",
        "0.0% (0)",
        "0.0% (0)",
        "0.0% (0)",
    ]
    assert rows[("m", "SP vs UserQuery", "emoji")][-1] == "100.0% (1)"
    assert rows[("m", "UserQuery vs AgentsMd", "verbosity")][4] == "100.0% (1)"
    per_type = {tuple(r[:2]): r[2:] for r in by_type.rows}
    assert per_type[("m", "SP vs UserQuery")][:3] == ["4", "SP: 50.0% (2)", "UserQuery: 25.0% (1)"]
    assert per_type[("n", "SP vs UserQuery")][:3] == ["1", "SP: 0.0% (0)", "UserQuery: 100.0% (1)"]
    assert conflict_tables([], ["model"]) == []


def judged(sp, uq, answers, *, model="m", conflict=CONFLICT):
    base = run(sp, uq, model=model, conflict=conflict)
    attributions = {
        name: Verdict(
            check_id="conflict:followed",
            result="error" if answer is None else "n/a",
            decided_by=f"judge:{name}",
            details={} if answer is None else {"followed": answer},
        )
        for name, answer in answers.items()
    }
    return ConflictRun(base.keys, base.status, base.conflict, base.verdicts, attributions)


def test_table4_is_from_the_judges_with_mean_and_std_across_them():
    runs = [
        judged("pass", "fail", {"a": "A", "b": "A"}),
        judged("pass", "fail", {"a": "A", "b": "B"}),
        judged("fail", "pass", {"a": "B", "b": "B"}),
        judged("fail", "pass", {"a": "both", "b": None}),
        judged("fail", "pass", {"a": "B", "b": "B"}, model="n"),
    ]
    table4, per_judge, agreement, *side = conflict_tables(runs, ["model"])
    assert table4.title.startswith("Table 4")
    assert table4.header == [
        "model",
        "SP vs UserQuery: SP%",
        "SP vs UserQuery: UserQuery%",
        "SP vs UserQuery: undecided",
    ]
    rows = {r[0]: r[1:] for r in table4.rows}
    # judge a: SP 2 of 3 decided (66.7%); judge b: SP 1 of 3 (33.3%); mean 50.0, std 16.7
    a, b = 2 / 3, 1 / 3
    mean = (a + b) / 2
    # the report's one rule: the population std across judges (as the paper's tables)
    std = (((a - mean) ** 2 + (b - mean) ** 2) / 2) ** 0.5
    assert rows["m"][0] == f"{mean * 100:.1f}% ± {std * 100:.1f}"
    assert rows["m"][1] == f"{(1 - mean) * 100:.1f}% ± {std * 100:.1f}"
    assert rows["m"][2] == "2 of 8"  # a's "both" and b's error, never a side
    assert rows["n"] == ["0.0% ± 0.0", "100.0% ± 0.0", "0 of 2"]
    by_judge = {(r[0], r[2]): r[3:] for r in per_judge.rows}
    assert by_judge[("m", "a")] == ["4", "SP: 66.7% (2)", "UserQuery: 33.3% (1)", "1"]
    # agreement with the side checks, on runs both attribute to a side
    rows = {r[0]: r for r in agreement.rows}
    assert rows["a"][2:4] == ["4", "100.0% (4)"]
    assert rows["b"][2:4] == ["4", "75.0% (3)"]  # b said B where the side checks say SP
    # b vs checks: labels (first, second, second, second) vs (first, first, second, second)
    po, pe = 3 / 4, (1 / 4) * (2 / 4) + (3 / 4) * (2 / 4)
    assert rows["b"][4] == f"{(po - pe) / (1 - pe):.3f}"
    assert [t.title for t in side][0].startswith("OctoBench-Conflict cross-check")


def test_without_attributions_only_the_side_check_tables():
    tables = conflict_tables([run("pass", "fail")], ["model"])
    assert [t.title.split(":")[0] for t in tables] == ["OctoBench-Conflict cross-check"] * 2


def test_table4_under_the_majority_rule_is_the_vote_of_each_run():
    runs = [
        judged("pass", "fail", {"a": "A", "b": "A", "c": "B"}),  # A by 2 of 3
        judged("pass", "fail", {"a": "A", "b": "B", "c": None}),  # tie (c abstains)
        judged("fail", "pass", {"a": "B", "b": "unclear", "c": "B"}),  # B
        judged("fail", "pass", {"a": "both", "b": "neither", "c": "B"}),  # undecided 2 to 1
        judged("fail", "pass", {"a": None, "b": None, "c": None}),  # all abstain
    ]
    sides = []
    for r in runs:
        votes = [v.details["followed"] for v in r.attributions.values() if v.result != "error"]
        labels = ["A" if v == "A" else "B" if v == "B" else "?" for v in votes]
        top = max((labels.count(x) for x in "AB?"), default=0)
        winners = [x for x in "AB?" if labels.count(x) == top] if votes else ["?"]
        sides.append(winners[0] if len(winners) == 1 else "?")
    assert sides == ["A", "?", "B", "?", "?"]
    table4 = conflict_tables(runs, ["model"], "majority")[0]
    first, second = sides.count("A"), sides.count("B")
    assert table4.rows == [
        [
            "m",
            f"{first / (first + second) * 100:.1f}%",
            f"{second / (first + second) * 100:.1f}%",
            f"{sides.count('?')} of {len(runs)}",
        ]
    ]
    # the per-judge table is every judge's own, whatever the rule
    per_judge = conflict_tables(runs, ["model"], "majority")[1]
    assert sorted(r[2] for r in per_judge.rows) == ["a", "b", "c"]
