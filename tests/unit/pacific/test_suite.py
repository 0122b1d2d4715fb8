import json
from pathlib import Path

import pytest

from adhere.core import ChatMessage, Trajectory
from adhere.errors import SpecError
from adhere.spec import BenchmarkSpec
from adhere.suites import get_suite
from adhere.suites.pacific import GeneratorParams, PacificSuite, generate, sample_to_instance


def trajectory(instance, replies: list[str]) -> Trajectory:
    messages = []
    for turn, reply in zip(instance.turns, replies, strict=False):
        messages += [
            ChatMessage(role="user", content=turn),
            ChatMessage(role="assistant", content=reply),
        ]
    return Trajectory(system=instance.system_prompt, messages=messages)


def instances(mode: str = "prompt", n: int = 5):
    params = GeneratorParams(instructions=(n,), lengths=(5,), per_language=3, seed=2, mode=mode)  # type: ignore[arg-type]
    return [sample_to_instance(s) for s in generate(params)]


@pytest.mark.parametrize("mode", ["prompt", "chat"])
def test_oracle_replies_pass_every_check(mode: str) -> None:
    suite = PacificSuite()
    for instance in instances(mode):
        replies = [
            suite.oracle_reply(instance, t, lambda _k: False) for t in range(len(instance.turns))
        ]
        verdicts = suite.score(instance, trajectory(instance, replies))
        assert [v.check_id for v in verdicts] == [c.id for c in instance.checks]
        assert all(v.result == "pass" for v in verdicts), verdicts
        assert all(v.details["category"] == "correct" for v in verdicts)


@pytest.mark.parametrize("mode", ["prompt", "chat"])
def test_wrong_items_fail_exactly(mode: str) -> None:
    suite = PacificSuite()
    for instance in instances(mode):
        wrong = {"step-2", "step-4"}
        replies = [
            suite.oracle_reply(instance, t, wrong.__contains__) for t in range(len(instance.turns))
        ]
        verdicts = suite.score(instance, trajectory(instance, replies))
        failed = {v.check_id for v in verdicts if v.result == "fail"}
        assert failed == wrong
        assert all(v.details["category"] == "wrong" for v in verdicts if v.check_id in wrong)


def test_chat_mode_reads_each_step_from_its_own_turn() -> None:
    suite = PacificSuite()
    instance = instances("chat", 3)[0]
    good = [suite.oracle_reply(instance, t, lambda _k: False) for t in range(3)]
    # All answers given at once in the first reply: only step 1 is where it should be.
    shifted = ["\n".join(good), "no idea", good[2]]
    verdicts = suite.score(instance, trajectory(instance, shifted))
    assert [v.details["category"] for v in verdicts] == ["correct", "missing", "correct"]
    assert verdicts[0].details["extra_tags"] == [2, 3]
    # A conversation that stopped early: later steps are missing, not dropped.
    verdicts = suite.score(instance, trajectory(instance, good[:1]))
    assert [v.result for v in verdicts] == ["pass", "fail", "fail"]
    assert verdicts[2].evidence is None


def test_garbage_reply_is_missing_everywhere() -> None:
    suite = PacificSuite()
    instance = instances("prompt", 3)[0]
    verdicts = suite.score(instance, trajectory(instance, ["I am not sure."]))
    assert [v.details["category"] for v in verdicts] == ["missing"] * 3


def test_registry_finds_pacific_and_rejects_unknown() -> None:
    assert isinstance(get_suite("pacific"), PacificSuite)
    with pytest.raises(SpecError, match="unknown suite 'pacifc'.*pacific"):
        get_suite("pacifc")
    with pytest.raises(SpecError, match=r"PACIFIC options \[.colour.\]; accepted: protocol"):
        get_suite("pacific", colour="red")


def test_load_from_generate_and_from_file(tmp_path: Path) -> None:
    suite = PacificSuite()
    spec = BenchmarkSpec.model_validate(
        {
            "suite": "pacific",
            "source": {"generate": {"instructions": 3, "length": 5, "perLanguage": 2}},
        }
    )
    generated = suite.load(spec, base_dir=tmp_path)
    assert len(generated) == 6
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(i.metadata["sample"]) + "\n" for i in generated))
    from_file = suite.load(
        BenchmarkSpec.model_validate({"suite": "pacific", "source": {"path": "s.jsonl"}}),
        base_dir=tmp_path,
    )
    assert from_file == generated


def test_bad_generator_parameter_names_the_field(tmp_path: Path) -> None:
    spec = BenchmarkSpec.model_validate({"suite": "pacific", "source": {"generate": {"steps": 3}}})
    with pytest.raises(SpecError) as info:
        PacificSuite().load(spec, base_dir=tmp_path, file="bench.yaml")
    assert info.value.field == "spec.source.generate.steps"
    assert "bench.yaml" in str(info.value)


def test_tampered_sample_file_is_rejected_with_line(tmp_path: Path) -> None:
    sample = next(iter(generate(GeneratorParams(per_language=1)))).model_dump(mode="json")
    bad = json.loads(json.dumps(sample))
    bad["id"] = "other"
    step = bad["steps"][1]
    step["expected"] = (
        step["expected"] + 1 if isinstance(step["expected"], int) else step["expected"] + "z"
    )
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(sample) + "\n" + json.dumps(bad) + "\n")
    spec = BenchmarkSpec.model_validate({"suite": "pacific", "source": {"path": str(path)}})
    with pytest.raises(SpecError) as info:
        PacificSuite().load(spec, base_dir=tmp_path)
    assert f"{path}:2" in str(info.value)
    assert "step 2" in str(info.value)


def test_the_sweep_example_is_the_paper_grid() -> None:
    import collections

    from adhere.spec import load_run_config
    from tests.helpers import ROOT

    config = load_run_config([ROOT / "examples" / "pacific-sweep" / "rollout.yaml"])
    loaded = PacificSuite().load(config.benchmark.spec, base_dir=config.base_dir)
    cells = collections.Counter((i.metadata["instructions"], i.metadata["length"]) for i in loaded)
    assert set(cells) == {(n, length) for n in (3, 5, 8, 10, 15) for length in (3, 5, 10)}
    assert set(cells.values()) == {99}
    per_language = collections.Counter(
        (i.metadata["difficulty"], i.metadata["language"]) for i in loaded
    )
    assert set(per_language.values()) == {33}
    assert {i.metadata["mode"] for i in loaded} == {"prompt"}
