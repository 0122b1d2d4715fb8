"""GuideBench as a suite: options, prompts, oracle replies and scoring."""

from collections import Counter
from pathlib import Path

import pytest

import adhere.suites.guidebench as guidebench
from adhere.core import ChatMessage, Trajectory
from adhere.errors import SpecError
from adhere.spec import BenchmarkSpec
from adhere.suites import get_suite, suite_names
from adhere.suites.guidebench import GuideBenchSuite

DATA = Path(__file__).resolve().parents[4] / "shared" / "data" / "guidebench"


def spec(**source) -> BenchmarkSpec:
    return BenchmarkSpec.model_validate({"suite": "guidebench", "source": source})


def reply(instance, text: str) -> Trajectory:
    return Trajectory(
        system=instance.system_prompt,
        messages=[
            ChatMessage(role="user", content=instance.turns[0]),
            ChatMessage(role="assistant", content=text),
        ],
    )


@pytest.fixture(scope="module")
def instances():
    suite = get_suite("guidebench", perCategory=4)
    return suite.load(spec(path=str(DATA)), base_dir=Path("."))


def test_registered_and_exports_sorted() -> None:
    assert "guidebench" in suite_names()
    assert isinstance(get_suite("guidebench"), GuideBenchSuite)
    assert guidebench.__all__ == sorted(guidebench.__all__, key=lambda n: (not n.isupper(), n))


def test_subset_spreads_over_each_file(instances) -> None:
    assert Counter(i.metadata["category"] for i in instances) == {
        key: 4 for key in ("price", "relevance", "math", "chat", "summary", "hallucination")
    }
    assert [i.id for i in instances if i.metadata["category"] == "math"] == [
        "math-000", "math-013", "math-026", "math-039",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"guidelines": "no"}, "true or false"),
        ({"perCategory": 0}, "positive integer"),
        ({"shot": 2}, "unknown GuideBench options"),
        ({"shots": 3}, "expected 0 or 2"),
    ],
)
def test_bad_options(options, message) -> None:
    with pytest.raises(SpecError, match=message):
        get_suite("guidebench", **options)


def test_prompt_variants(instances) -> None:
    task = next(i for i in instances if i.metadata["category"] == "chat")
    suite = GuideBenchSuite(guidelines=False, reasoning=False)
    bare = next(
        i for i in suite.load(spec(path=str(DATA / "chat_tasks.json")), base_dir=Path("."))
        if i.id == task.id
    )  # fmt: skip
    assert "【业务规则】" in task.turns[0] and "【业务规则】" not in bare.turns[0]
    assert "【选项】" in task.turns[0] and "A. " in task.turns[0]
    assert "推理过程" in task.turns[0] and "不要写推理过程" in bare.turns[0]
    assert '{"answer": "<选项字母>"}' in task.turns[0]
    assert task.system_prompt != bare.system_prompt
    assert (bare.metadata["guidelines"], bare.metadata["reasoning"]) == (False, "direct")
    gold = task.metadata["gold"]
    assert suite.oracle_reply(bare, 0, lambda _k: False) == f'{{"answer": "{gold}"}}'


def test_oracle_passes_wrong_fails_and_variants_parse(instances) -> None:
    suite = GuideBenchSuite()
    for instance in instances:
        right = suite.score(
            instance, reply(instance, suite.oracle_reply(instance, 0, lambda k: False))
        )
        assert [v.result for v in right] == ["pass"] and right[0].details["normalized"] == []
        varied = suite.oracle_reply(instance, 0, lambda k: k == "format")
        verdict = suite.score(instance, reply(instance, varied))[0]
        assert verdict.result == "pass", (instance.id, varied[-60:])
        wrong = suite.score(
            instance, reply(instance, suite.oracle_reply(instance, 0, lambda k: True))
        )
        assert wrong[0].result == "fail" and wrong[0].details["category"] == "wrong"


def test_an_unusable_reply_is_an_invalid_failure(instances) -> None:
    suite = GuideBenchSuite()
    instance = instances[0]
    for text in ("I am not sure.", ""):
        verdict = suite.score(instance, reply(instance, text))[0]
        assert verdict.result == "fail" and verdict.details["category"] == "invalid"
        assert verdict.reasoning
    verdict = suite.score(instance, Trajectory())[0]
    assert verdict.details["category"] == "invalid" and verdict.evidence is None


def test_generated_source(tmp_path: Path) -> None:
    suite = GuideBenchSuite()
    made = suite.load(spec(generate={"n": 3, "seed": 2}), base_dir=tmp_path)
    assert [i.id for i in made] == ["coupon-s2-0000", "coupon-s2-0001", "coupon-s2-0002"]
    assert {i.metadata["source"] for i in made} == {"generated"}
    with pytest.raises(SpecError, match="unknown generator parameter") as err:
        suite.load(spec(generate={"count": 3}), base_dir=tmp_path, file="b.yaml")
    assert err.value.field == "spec.source.generate.count"
    with pytest.raises(SpecError, match="does not exist"):
        suite.load(spec(path="nowhere"), base_dir=tmp_path)
