"""ManyIH protocols: paper vs adhere default, each difference pinned.

| choice | adhere default | protocol: paper |
| checkers | corrected | public-compatible |
| prompt | adhere's rendering | the data's published ``prompt`` |
| extract | adhere's fences | the public evaluator's (first ```python block, stripped) |
| perturb | redraw in 1–100 | shift each value by ≤ 3 (§6.4) |
"""

import json
from pathlib import Path

import pytest

from adhere.core import ChatMessage, Trajectory, Verdict
from adhere.errors import SpecError
from adhere.metrics import ScoredTrial
from adhere.spec import BenchmarkSpec
from adhere.suites import get_suite
from adhere.suites.manyih import (
    META_PROMPTS,
    Protocol,
    extract_public,
    load_coding,
    perturb,
    report_tables,
    winners,
)
from adhere.suites.manyih._variants import _shifted, rng_for
from tests.helpers import ROOT

DATA = ROOT.parent / "shared" / "data" / "manyih" / "coding.json"


def load(base_dir: Path = ROOT, **options):
    spec = BenchmarkSpec(suite="manyih", source={"path": str(DATA)}, options=options)
    suite = get_suite("manyih", **options)
    return suite, suite.load(spec, base_dir=base_dir)


def reply(text: str) -> Trajectory:
    return Trajectory(messages=[ChatMessage(role="user", content="q"),
                                ChatMessage(role="assistant", content=text)])  # fmt: skip


def test_protocol_choices_and_overrides() -> None:
    assert Protocol.from_options({}).as_dict() == {
        "checkers": "corrected",
        "prompt": "adhere",
        "extract": "adhere",
        "perturb": "redraw",
    }
    paper = Protocol.from_options({"protocol": "paper"})
    assert paper.differences() == {"checkers": "public-compatible", "prompt": "published",
                                   "extract": "public", "perturb": "shift"}  # fmt: skip
    mixed = Protocol.from_options({"protocol": "paper", "checkers": "corrected"})
    assert mixed.checkers == "corrected" and mixed.prompt == "published"
    for bad, field in [({"protocol": "x"}, "protocol"), ({"checkers": "public"}, "checkers"),
                       ({"prompt": 1}, "prompt"), ({"perturb": "all"}, "perturb")]:  # fmt: skip
        with pytest.raises(SpecError) as info:
            get_suite("manyih", **bad)
        assert info.value.field == f"spec.options.{field}"


def test_published_prompt_is_used_as_is_and_retagged_for_scalar() -> None:
    record = json.loads(DATA.read_text())["data"][0]
    _, [adhere] = load(samples=1)
    _, [published] = load(samples=1, prompt="published")
    assert published.turns == [record["prompt"]] != adhere.turns
    assert published.metadata["protocol"]["prompt"] == "published"
    _, [scalar] = load(samples=1, prompt="published", interface="scalar")
    turn = scalar.turns[0]
    assert "[[Privilege" not in turn and turn.count("[[z=") == 12
    # only the tags changed: z-values are the instructions' privileges, in prompt order
    by_text = {i["description"]: i["privilege"] for i in record["instructions"]}
    for line in [x for x in record["prompt"].splitlines() if "[[Privilege" in x]:
        text = line.split("]]", 1)[1].rsplit("[[/", 1)[0]
        assert f"- [[z={by_text[text]}]]{text}[[/z]]" in turn.splitlines()
    with pytest.raises(SpecError, match="published prompt"):
        load(samples=1, prompt="published", tiers=[6])


def test_templates_replace_the_wording(tmp_path: Path) -> None:
    (tmp_path / "sys.txt").write_text("SYS $interface | $meta_prompt")
    (tmp_path / "user.txt").write_text("Write $function.\n$task\n$instructions\n$$")
    _, [inst] = load(
        base_dir=tmp_path, samples=1, templates={"system": "sys.txt", "user": "user.txt"}
    )
    assert inst.system_prompt == "SYS ordinal | " + META_PROMPTS["ordinal"]
    turn = inst.turns[0]
    assert turn.startswith("Write diff_even_odd.\nWrite a function `diff_even_odd(list1)`")
    assert turn.count("\n- [[Privilege ") == 12 and turn.endswith("\n$")
    (tmp_path / "bad.txt").write_text("$nope")
    with pytest.raises(SpecError) as info:
        load(base_dir=tmp_path, samples=1, templates={"user": "bad.txt"})
    assert info.value.field == "spec.options.templates.user" and "nope" in str(info.value)
    with pytest.raises(SpecError, match="cannot read"):
        load(base_dir=tmp_path, samples=1, templates={"system": "missing.txt"})
    with pytest.raises(SpecError):
        get_suite("manyih", templates={"other": "x"})


def test_shift_perturbation_is_small_keeps_order_and_winners() -> None:
    samples = load_coding(DATA)
    moved_far = 0
    for sample in samples:
        old = {i.id: i.privilege for i in sample.instructions}
        shifted = perturb(sample, 1, mode="shift")
        new = {i.id: i.privilege for i in shifted.instructions}
        assert new != old and all(abs(new[k] - old[k]) <= 3 and new[k] >= 1 for k in old)
        assert all((old[a] > old[b]) == (new[a] > new[b]) for a in old for b in old)
        assert winners(shifted) == winners(sample)
        redrawn = perturb(sample, 1, mode="redraw")
        moved_far += any(abs(i.privilege - old[i.id]) > 3 for i in redrawn.instructions)
    assert moved_far > 400  # the default redraws: most samples move far
    # tightly packed values (12, 11, …, 1) can still be shifted without breaking order
    for seed in range(20):
        new = _shifted(list(range(12, 0, -1)), rng_for("t", seed), 1)
        assert new != list(range(12, 0, -1)) and min(new) >= 1
        assert all(a > b for a, b in zip(new, new[1:], strict=False))
        assert all(abs(a - b) <= 1 for a, b in zip(new, range(12, 0, -1), strict=True))


def test_paper_protocol_perturbs_by_shifting() -> None:
    _, plain = load(samples=1, interface="scalar", perturbations=2)
    _, paper = load(samples=1, interface="scalar", perturbations=2, protocol="paper")

    def values(inst):
        return [int(x.split("]]")[0]) for x in inst.turns[0].split("[[z=")[1:]]

    base = values(paper[0])
    assert all(abs(a - b) <= 3 for p in paper[1:] for a, b in zip(values(p), base, strict=True))
    assert any(abs(a - b) > 3 for p in plain[1:] for a, b in zip(values(p), base, strict=True))


CODE = "def diff_even_odd(list1: list) -> int:\n    # apache\n    x = 1\n\n    return x\n"


def test_checkers_choice_changes_the_verdict() -> None:
    corrected, [inst] = load(samples=1)
    public, _ = load(samples=1, checkers="public-compatible")
    text = f"```python\n{CODE}```"

    def styles(suite):
        return {
            v.check_id: v.result for v in suite.score(inst, reply(text)) if v.check_id != "tests"
        }

    mine, theirs = styles(corrected), styles(public)
    assert mine["style:license_apache"] == "fail" and theirs["style:license_apache"] == "pass"
    assert all(r == "pass" for r in theirs.values())
    assert {k for k in mine if mine[k] != theirs[k]} == {"style:license_apache"}
    empty = public.score(inst, reply("```python\n\n```"))
    assert all(v.result == "fail" for v in empty if v.check_id != "tests")


def test_public_extraction() -> None:
    assert extract_public("x\n```python\n    a = 1\n```\n```python\nb\n```") == "a = 1"
    assert extract_public("```py\na\n```") == "```py\na\n```"  # only ```python or bare ```
    assert extract_public("```\nc\n```") == "c"
    assert extract_public("<think>```python\nno\n```</think>ok") == "ok"
    assert extract_public("fine\n<think>```python\nno\n```") == "fine"
    suite, [inst] = load(samples=1, extract="public")
    [run] = suite.evidence(inst, reply("```python\n  def f(): pass\n```"))
    assert run.code == "def f(): pass"


def trial(base: str, k: int, test: bool, style: bool) -> ScoredTrial:
    verdicts = [Verdict(check_id="tests", result="pass" if test else "fail", decided_by="t"),
                Verdict(check_id="style:indent_4", result="pass" if style else "fail",
                        decided_by="t")]  # fmt: skip
    keys = {"model": "m", "base": base, "perturbation": k, "repeat": 0, "subset": "coding",
            "tiers": 12}  # fmt: skip
    return ScoredTrial(keys=keys, status="ok", verdicts=verdicts)


def test_flip_table_reports_test_and_style_flips_beside_acc() -> None:
    trials = [
        trial("a", 0, True, True), trial("a", 1, True, False), trial("a", 2, False, True),
        trial("b", 0, True, False), trial("b", 1, True, False), trial("b", 2, True, False),
    ]  # fmt: skip
    [_, flips], _ = report_tables(trials)
    assert flips.header[-4:] == ["mean flip rate", "test flip", "style flip", "samples with a flip"]  # noqa: E501
    # a: Acc flips 2/2, test 1/2, style 1/2; b: nothing flips → means 50%, 25%, 25%
    assert flips.rows == [["m", "2", "2", "50.0%", "0.0%", "50.0%", "25.0%", "25.0%", "50.0%"]]
