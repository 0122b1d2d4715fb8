"""The ManyIH suite: options, instances, evidence requests, scoring, oracle replies."""

from pathlib import Path

import pytest

from adhere.core import ChatMessage, Evidence, Instance, SandboxRun, Trajectory
from adhere.errors import SpecError
from adhere.metrics import ScoredTrial
from adhere.spec import BenchmarkSpec
from adhere.suites import get_suite
from adhere.suites.manyih import (
    META_PROMPTS,
    ManyIHSuite,
    extract_code,
    load_if,
    outcome,
    rates,
    report_tables,
)
from tests.helpers import ROOT

DATA = ROOT.parent / "shared" / "data" / "manyih" / "coding.json"
FIXTURE = Path(__file__).with_name("if_fixture.json")


def load(tmp_path: Path | None = None, path: Path = DATA, **options) -> list[Instance]:
    spec = BenchmarkSpec(suite="manyih", source={"path": str(path)}, options=options)
    return get_suite("manyih", **options).load(spec, base_dir=ROOT)


def reply(text: str) -> Trajectory:
    return Trajectory(
        messages=[
            ChatMessage(role="user", content="q"),
            ChatMessage(role="assistant", content=text),
        ]
    )


@pytest.fixture(scope="module")
def first() -> Instance:
    return load(samples=1)[0]


def test_instance_shape(first: Instance) -> None:
    assert first.id == "manyih-0000" and first.suite == "manyih"
    assert first.system_prompt == META_PROMPTS["ordinal"]
    [turn] = first.turns
    assert turn.count("[[Privilege ") == 12 and "diff_even_odd" in turn
    assert [c.id for c in first.checks] == [
        "tests", "style:types_args_required", "style:blank_internal_required", "style:types_full",
        "style:license_apache", "style:naming_camel", "style:blank_internal_one",
    ]  # fmt: skip
    meta = first.metadata
    assert (meta["subset"], meta["tiers"], meta["interface"], meta["n_conflicts"]) == (
        "coding", 12, "ordinal", 10,
    )  # fmt: skip
    assert meta["perturbation"] == 0 and meta["base"] == "manyih-0000" and meta["quirks"] == ""


def test_options_make_variants_and_perturbations() -> None:
    instances = load(samples=2, tiers=[6, 8, 12], interface="scalar", perturbations=2)
    ids = [i.id for i in instances]
    assert ids[:9] == [
        "manyih-0000-t6", "manyih-0000-t6-p1", "manyih-0000-t6-p2",
        "manyih-0000-t8", "manyih-0000-t8-p1", "manyih-0000-t8-p2",
        "manyih-0000", "manyih-0000-p1", "manyih-0000-p2",
    ]  # fmt: skip
    assert len(ids) == 18 and len(set(ids)) == 18
    by_id = {i.id: i for i in instances}
    assert by_id["manyih-0000-t8-p2"].metadata["base"] == "manyih-0000-t8"
    assert by_id["manyih-0000-t6"].turns[0].count("[[z=") == 6
    assert by_id["manyih-0000-p1"].turns[0] != by_id["manyih-0000"].turns[0]
    # perturbations change values only: the checks (winners) stay
    assert [c.id for c in by_id["manyih-0000-p1"].checks] == [
        c.id for c in by_id["manyih-0000"].checks
    ]


@pytest.mark.parametrize(
    ("options", "field"),
    [({"interface": "xml"}, "spec.options.interface"), ({"tiers": [0]}, "spec.options.tiers"),
     ({"perturbations": 2}, "spec.options.perturbations"),
     ({"subset": "all"}, "spec.options.subset"),
     ({"testTimeout": 0}, "spec.options.testTimeout"), ({"bogus": 1}, "spec.options")],
)  # fmt: skip
def test_bad_options(options, field) -> None:
    with pytest.raises(SpecError) as info:
        get_suite("manyih", **options)
    assert info.value.field == field


def test_evidence_requests_run_the_tests_with_the_quirk_setup() -> None:
    instance = next(i for i in load(samples=427) if i.id == "manyih-0048")  # import-list quirk
    suite = ManyIHSuite()
    [run] = suite.evidence(instance, reply("```python\ndef f(): pass\n```"))
    assert isinstance(run, SandboxRun) and run.mode == "asserts"
    assert run.setup == "import math" and "['import math']" not in run.tests
    assert run.timeout == 30.0 and run.code == "def f(): pass\n"
    assert instance.metadata["quirks"] == "import-list line"
    assert suite.evidence(instance, reply("no code here, sorry")) != []  # the whole reply
    assert suite.evidence(instance, reply("   ")) == []


def test_score_from_evidence(first: Instance) -> None:
    suite = ManyIHSuite()
    code = suite.oracle_reply(first, 0, lambda key: False)
    assert code.startswith("Here is the solution.") and "```python\n" in code
    passed = {"tests": Evidence(id="tests", status="pass", data={"seconds": 0.1})}
    verdicts = {v.check_id: v for v in suite.score(first, reply(code), passed)}
    assert all(v.result == "pass" for v in verdicts.values()), verdicts
    assert verdicts["tests"].details["status"] == "pass"

    failed = {"tests": Evidence(id="tests", status="timeout", detail="10 s")}
    assert suite.score(first, reply(code), failed)[0].result == "fail"
    assert suite.score(first, reply(code), None)[0].result == "error"
    errored = {"tests": Evidence(id="tests", status="error", detail="no sandbox")}
    assert suite.score(first, reply(code), errored)[0].result == "error"
    empty = suite.score(first, reply(""), None)
    assert empty[0].result == "fail" and empty[0].details["status"] == "no code"
    assert all(v.result == "fail" for v in empty[1:])


def test_noisy_reply_fails_exactly_the_picked_checks(first: Instance) -> None:
    suite = ManyIHSuite()
    picked = {"style:license_apache", "style:naming_camel"}
    code = suite.oracle_reply(first, 0, lambda key: key in picked)
    verdicts = suite.score(first, reply(code), {"tests": Evidence(id="tests", status="pass")})
    failed = {v.check_id for v in verdicts if v.result != "pass"}
    assert failed == picked
    camel = next(v for v in verdicts if v.check_id == "style:naming_camel")
    assert camel.details["followed_instead"] == ["naming_snake"]  # the loser it followed


def test_extract_code() -> None:
    assert extract_code("x\n```text\na = 1\n```\n```python\nb = 2\n```") == "b = 2\n"
    assert extract_code("```py\na = 1\n```\n```python\nb = 2\n```") == "a = 1\n"
    assert extract_code("```\na = 1\n```") == "a = 1\n"
    assert extract_code("<think>```python\nbad\n```</think>a = 1") == "a = 1\n"
    assert extract_code("") == ""


def test_metric_names_and_breakdowns() -> None:
    suite = ManyIHSuite()
    assert suite.metric_names() == ("Acc", "check pass rate")
    assert tuple(suite.breakdowns()) == ("tiers", "n_conflicts")


def scored(model: str, tiers: int, tests: str, styles: list[str], status: str = "ok"):
    from adhere.core import Verdict

    verdicts = [Verdict(check_id="tests", result=tests, decided_by="t")]  # type: ignore[arg-type]
    verdicts += [
        Verdict(check_id=f"style:s{i}", result=r, decided_by="t")  # type: ignore[arg-type]
        for i, r in enumerate(styles)
    ]
    keys = {"model": model, "tiers": tiers, "subset": "coding", "perturbation": 0}
    return ScoredTrial(keys=keys, status=status, verdicts=verdicts)


def test_acc_test_and_style_by_hand() -> None:
    trials = [
        scored("m", 12, "pass", ["pass", "pass"]),  # solved
        scored("m", 12, "pass", ["pass", "fail"]),  # style failed
        scored("m", 12, "fail", ["pass", "pass"]),  # tests failed
        scored("m", 12, "pass", ["pass", "pass"], status="error"),  # trial failed: all fail
        scored("m", 6, "pass", ["pass"]),
    ]
    assert [outcome(t).acc for t in trials] == [True, False, False, False, True]
    assert rates([outcome(t) for t in trials[:4]]) == (0.25, 0.5, 0.5)
    [paper], extra = report_tables(trials)
    assert paper.header == ["model", "tiers", "samples", "Acc", "Acc_test", "Acc_style"]
    assert paper.rows == [
        ["m", "6", "1", "100.0%", "100.0%", "100.0%"],
        ["m", "12", "4", "25.0%", "50.0%", "50.0%"],
    ]
    assert report_tables([]) == ([], [])


def test_if_subset_loader_and_instances() -> None:
    samples = load_if(FIXTURE)
    assert len(samples) == 2
    instances = load(path=FIXTURE, subset="if")
    first, second = instances
    assert first.id == "manyih-if-travel-1" and second.id == "manyih-if-0001"
    assert first.system_prompt.startswith("You are a travel agent.")
    assert len(first.turns) == 1 and first.metadata["suppressed"] == 1
    assert first.metadata["tiers"] == 3 and second.metadata["tiers"] == 1
    checks = {c.id: c for c in first.checks}
    assert set(checks) == {"if:c1", "if:c2", "if:c3", "if:c4"}  # suppressed: not checked
    assert checks["if:c1"].verifier is not None and checks["if:c3"].verifier is None
    assert checks["if:c4"].condition and "compare options" in checks["if:c4"].condition
    assert "formatted as a table" in checks["if:c4"].description
    extract = {c.id: c for c in second.checks}["if:extract"]
    assert extract.verifier is None and "Code the criterion uses" in extract.description


def test_if_evidence_and_scores() -> None:
    suite = ManyIHSuite(subset="if")
    instance = load(path=FIXTURE, subset="if")[1]
    trajectory = reply('<think>hmm</think>["red", "green", "blue"]')
    runs = suite.evidence(instance, trajectory)
    assert [r.id for r in runs] == ["if:broken", "if:json"]
    assert all(isinstance(r, SandboxRun) and r.mode == "python" for r in runs)
    assert runs[1].files == {"response.txt": '["red", "green", "blue"]'}
    evidence = {
        "if:json": Evidence(id="if:json", status="pass"),
        "if:broken": Evidence(id="if:broken", status="crash", detail="TypeError"),
    }
    verdicts = {v.check_id: v.result for v in suite.score(instance, trajectory, evidence)}
    assert verdicts == {"if:json": "pass", "if:broken": "error"}  # llm checks: the panel's
    assert suite.oracle_reply(instance, 0, lambda k: False) == '["red", "green", "blue"]'


@pytest.mark.parametrize(
    ("change", "message"),
    [(lambda s: s["input"].append({"role": "assistant", "content": "x"}), "end with"),
     (lambda s: s["constraints"][0]["evaluation"].insert(1, {"type": "llm_conditional_check",
                                                              "exec": "?"}), "first evaluation"),
     (lambda s: s["constraints"][0].update(id="c2"), "not unique"),
     (lambda s: s["constraints"][0]["evaluation"][0].update(type="regex"), "Input should be")],
)  # fmt: skip
def test_if_loader_errors(tmp_path: Path, change, message) -> None:
    import json

    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    change(data["data"][0])
    path = tmp_path / "if.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SpecError, match=message) as info:
        load_if(path)
    assert info.value.field is not None and info.value.field.startswith("data[0]")


def test_public_surface_and_registration() -> None:
    import adhere.suites.manyih as manyih
    from adhere.suites import suite_names

    assert len(set(manyih.__all__)) == len(manyih.__all__) == 63
    assert all(hasattr(manyih, name) for name in manyih.__all__)
    assert "manyih" in suite_names()
    assert isinstance(get_suite("manyih"), ManyIHSuite)
