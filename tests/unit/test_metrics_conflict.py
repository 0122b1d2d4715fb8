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
