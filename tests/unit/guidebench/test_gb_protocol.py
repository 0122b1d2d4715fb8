"""GuideBench's paper protocol vs adhere's default: each row of docs/guidebench.md's table."""

import json
from pathlib import Path

import pytest

from adhere.core import ChatMessage, Trajectory
from adhere.errors import SpecError
from adhere.spec import BenchmarkSpec
from adhere.suites import get_suite
from adhere.suites.guidebench import label_text, parse_public

DATA = Path(__file__).resolve().parents[4] / "shared" / "data" / "guidebench"


def load(**options):
    spec = BenchmarkSpec.model_validate({"suite": "guidebench", "source": {"path": str(DATA)}})
    suite = get_suite("guidebench", perCategory=2, **options)
    return suite, {i.metadata["category"]: i for i in suite.load(spec, base_dir=Path("."))}


def answer(suite, instance, text):
    trajectory = Trajectory(
        messages=[
            ChatMessage(role="user", content=instance.turns[0]),
            ChatMessage(role="assistant", content=text),
        ]
    )
    return suite.score(instance, trajectory)[0]


@pytest.fixture(scope="module")
def both():
    return load(), load(protocol="paper")


def test_system_prompt_and_frame(both) -> None:
    (_, mine), (_, paper) = both
    assert mine["price"].system_prompt and "【任务】" in mine["price"].turns[0]
    assert paper["price"].system_prompt == ""  # the public code sends an empty system text
    user = paper["price"].turns[0]
    for tag in ("<Instruction>", "</Instruction>", "<Guidelines>", "<Context>"):
        assert tag in user
    assert "CandidateAnswer" in user and "CandidateAnalysis" in user and "【" not in user
    assert "OptimalOption" in paper["chat"].turns[0] and "AnswerAnalysis" in paper["chat"].turns[0]
    assert paper["price"].metadata["protocol"] == {
        "name": "paper",
        "prompt": "paper",
        "parse": "public",
    }


def test_guidelines_and_options_as_the_public_code_shows_them(both) -> None:
    (_, mine), (_, paper) = both
    index = paper["chat"].metadata["index"]
    raw = json.loads((DATA / "chat_tasks.json").read_text(encoding="utf-8"))[index]
    shown = str(raw["Guidelines"])  # str.format of the list: Python's text of it
    assert f"<Guidelines>{shown}</Guidelines>" in paper["chat"].turns[0]
    assert f"<Options>{raw['MultipleOptions']}</Options>" in paper["chat"].turns[0]
    assert shown not in mine["chat"].turns[0]
    assert (
        f"1. （{raw['Guidelines'][0]['type']}）{raw['Guidelines'][0]['rule_text']}"
        in (mine["chat"].turns[0])
    )


@pytest.mark.parametrize(
    ("category", "text", "adhere", "paper"),
    [
        ("price", '{"CandidateAnswer": GOLD, "CandidateAnalysis": "x"}', "pass", "pass"),
        ("price", '```json\n{"CandidateAnswer": GOLD}\n```', "pass", "pass"),  # fence stripped
        ("price", '{"CandidateAnswer": "GOLD"}', "pass", "fail"),  # "1" is not 1 there
        ("price", 'Because …\n{"CandidateAnswer": GOLD}', "pass", "fail"),  # prose: no JSON
        ("relevance", '{"CandidateAnswer": "GRADE(NAME)"}', "pass", "fail"),  # half-width
        ("math", '{"CandidateAnswer": "GOLD.0"}', "pass", "fail"),
        ("chat", '{"OptimalOption": "gold"}', "pass", "fail"),  # case
    ],
)
def test_parsing(both, category, text, adhere, paper) -> None:
    (s1, mine), (s2, theirs) = both
    gold = mine[category].metadata["gold"]
    names = {"2": "强相关", "1": "弱相关", "0": "不相关"}
    text = text.replace("GRADE", gold).replace("NAME", names.get(gold, ""))
    text = text.replace("GOLD", gold).replace("gold", gold.lower())
    assert answer(s1, mine[category], text).result == adhere
    verdict = answer(s2, theirs[category], text)
    assert verdict.result == paper
    assert verdict.details["rules"]["category"] == ("correct" if adhere == "pass" else "wrong")


def test_missing_answers_get_the_public_placeholder_labels() -> None:
    assert parse_public("no json", "numeric", "170").label == label_text("0")
    assert parse_public("no json", "relevance", "2（强相关）").label == label_text("-1(No Result)")
    assert parse_public('{"CandidateAnswer": ""}', "binary", 1).label == label_text(-1)
    assert parse_public('{"OptimalOption": 2}', "option", "A").label == label_text("E")
    # adhere's default: an invalid answer predicts no label
    suite, mine = load()
    verdict = answer(suite, mine["math"], "no json")
    assert verdict.details["got"] is None and "label" not in verdict.details
    suite, paper = load(protocol="paper")
    verdict = answer(suite, paper["math"], "no json")
    assert (verdict.result, verdict.details["category"], verdict.details["label"]) == (
        "fail",
        "invalid",
        '"0"',
    )


def test_each_choice_overrides_the_protocol() -> None:
    _, mixed = load(protocol="paper", parse="adhere")
    assert mixed["price"].metadata["protocol"] == {
        "name": "paper",
        "prompt": "paper",
        "parse": "adhere",
    }
    assert mixed["price"].system_prompt == ""
    with pytest.raises(SpecError, match="spec.options.parse"):
        get_suite("guidebench", parse="gpt4")
    with pytest.raises(SpecError, match="spec.options.protocol"):
        get_suite("guidebench", protocol="published")


def test_oracle_passes_under_both_protocols(both) -> None:
    for suite, instances in both:
        for instance in instances.values():
            text = suite.oracle_reply(instance, 0, lambda item: False)
            assert answer(suite, instance, text).result == "pass", instance.id


def test_templates_replace_the_wording(tmp_path: Path) -> None:
    (tmp_path / "qa.txt").write_text(
        "Q[$category] $instruction | $guidelines | $context -> $answer_field", encoding="utf-8"
    )
    (tmp_path / "sys.txt").write_text("SYS $category", encoding="utf-8")
    spec = BenchmarkSpec.model_validate({"suite": "guidebench", "source": {"path": str(DATA)}})
    suite = get_suite(
        "guidebench", perCategory=1, templates={"binary": "qa.txt", "system": "sys.txt"}
    )
    found = {i.metadata["category"]: i for i in suite.load(spec, base_dir=tmp_path)}
    raw = json.loads((DATA / "price_tasks.json").read_text(encoding="utf-8"))[0]
    assert found["price"].turns[0] == (
        f"Q[price] {raw['Instruction']} | {raw['Guidelines']} | {raw['Context']} -> CandidateAnswer"
    )
    assert found["price"].system_prompt == "SYS price"
    assert "【任务】" in found["chat"].turns[0]  # no option template: adhere's frame
    (tmp_path / "bad.txt").write_text("$instruction $nope", encoding="utf-8")
    bad = get_suite("guidebench", templates={"user": "bad.txt"})
    with pytest.raises(SpecError, match="nope") as caught:
        bad.load(spec, base_dir=tmp_path)
    assert caught.value.file == str(tmp_path / "bad.txt")
    assert caught.value.field == "spec.options.templates.user"
    with pytest.raises(SpecError, match="templates"):
        get_suite("guidebench", templates={"assistant": "x.txt"})


def test_the_default_adds_nothing_to_instances(both) -> None:
    # default instances are as before protocols existed, so earlier runs' fingerprints hold
    (_, mine), (_, paper) = both
    assert set(mine["price"].metadata) == {
        "category", "rule_update", "source", "guidelines", "reasoning", "index", "gold",
        "answer_key",
    }  # fmt: skip
    assert set(mine["price"].metadata["answer_key"]) == {"kind", "gold", "options", "analysis"}
    assert paper["price"].metadata["answer_key"]["reference"] == int(
        paper["price"].metadata["gold"]
    )


def test_shots_need_a_place_in_a_template(tmp_path: Path) -> None:
    (tmp_path / "u.txt").write_text("$instruction $context", encoding="utf-8")
    spec = BenchmarkSpec.model_validate({"suite": "guidebench", "source": {"path": str(DATA)}})
    suite = get_suite("guidebench", perCategory=1, shots=2, templates={"user": "u.txt"})
    with pytest.raises(SpecError, match=r"\$shots") as caught:
        suite.load(spec, base_dir=tmp_path)
    assert caught.value.file == str(tmp_path / "u.txt")
    (tmp_path / "u.txt").write_text("$shots$instruction $context", encoding="utf-8")
    loaded = suite.load(spec, base_dir=tmp_path)
    assert all(i.turns[0].count("的回答】") == 2 for i in loaded)


def test_the_papers_ablation_and_direct_frames() -> None:
    _, bare = load(protocol="paper", guidelines=False, reasoning=False)
    user = bare["price"].turns[0]
    assert "<Guidelines>" not in user and "规则" not in user.split("\n")[0]
    assert "CandidateAnalysis" not in user and "不要输出分析过程" in user  # B.11: answer only
    oracle = get_suite("guidebench", protocol="paper", guidelines=False, reasoning=False)
    reply = oracle.oracle_reply(bare["price"], 0, lambda item: False)
    assert json.loads(reply) == {"CandidateAnswer": int(bare["price"].metadata["gold"])}
