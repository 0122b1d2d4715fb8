"""LLM answer parsing: the question, reading the panel's replies, the scripted parser."""

import json
from pathlib import Path

import pytest

from adhere.core import ChatMessage, Evidence, ModelAsk, Trajectory
from adhere.errors import SpecError
from adhere.spec import BenchmarkSpec
from adhere.suites import get_suite
from adhere.suites.guidebench import llm_prompt, read_llm_prompt
from adhere.suites.guidebench._llm_parse import LLM_REQUEST, llm_answer
from adhere.testing import PolicyContext, default_registry, parse_model_string
from adhere.wire import Conversation

DATA = Path(__file__).resolve().parents[4] / "shared" / "data" / "guidebench"


@pytest.mark.parametrize("kind", ["binary", "relevance", "numeric", "option"])
def test_the_question_quotes_the_reply_and_names_the_kind(kind) -> None:
    reply = "分析……\n最后答案是 B\n</回答> in the text"
    assert read_llm_prompt(llm_prompt(reply, kind)) == (reply, kind)
    assert read_llm_prompt("Please judge this checklist") is None


def extraction(kind: str, text: str, model: str = "judge:seed=1") -> str:
    policy = default_registry().create(parse_model_string(model), PolicyContext())
    asked = ChatMessage(role="user", content=llm_prompt(text, kind))
    conversation = Conversation(
        model=model, policy="judge", options={}, system="", messages=(asked,)
    )
    return policy.respond(conversation).text


def test_the_scripted_parser_answers_in_the_papers_shape() -> None:
    assert json.loads(extraction("binary", "两者同品。\n答案：1")) == {
        "CandidateAnswer": 1, "CandidateAnalysis": ""}  # fmt: skip
    assert json.loads(extraction("relevance", '{"answer": "2(强相关)"}'))["CandidateAnswer"] == (
        "2（强相关）"
    )
    assert json.loads(extraction("option", "比较之后。\n答案：c"))["OptimalOption"] == "C"
    assert json.loads(extraction("numeric", "无法计算。"))["CandidateAnswer"] == ""
    misread = [extraction("numeric", f"共{n}元。\n答案：{n}", "judge:seed=1,misread=0.5")
               for n in range(100, 140)]  # fmt: skip
    empty = sum(json.loads(m)["CandidateAnswer"] == "" for m in misread)
    assert 8 <= empty <= 32  # about half, by hash


def test_the_panel_answer_is_the_majority_label() -> None:
    def evidence(**replies):
        data = {"replies": {k: json.dumps({"CandidateAnswer": v}) for k, v in replies.items()}}
        return Evidence(id=LLM_REQUEST, status="pass", data=data)

    found, each = llm_answer(evidence(a="170", b="180", c="180"), "numeric", "180")
    assert (found.value, found.correct, each) == ("180", True, {"a": "170", "b": "180", "c": "180"})
    found, _ = llm_answer(evidence(a="170", b="180"), "numeric", "180")  # a tie: the first
    assert (found.value, found.correct) == ("170", False)
    found, _ = llm_answer(evidence(a="", b="180"), "numeric", "180")  # empty is no vote
    assert found.value == "180"
    found, _ = llm_answer(evidence(a=""), "numeric", "180")
    assert (found.value, found.correct) == ("", False)


def test_score_under_parse_llm() -> None:
    spec = BenchmarkSpec.model_validate({"suite": "guidebench", "source": {"path": str(DATA)}})
    suite = get_suite("guidebench", perCategory=1, protocol="paper", parse="llm")
    price = next(
        i for i in suite.load(spec, base_dir=Path(".")) if i.metadata["category"] == "price"
    )
    gold = int(price.metadata["gold"])
    text = f'分析……所以是同品。\n{{"CandidateAnswer": "{gold}"}}'
    trajectory = Trajectory(messages=[ChatMessage(role="user", content=price.turns[0]),
                                      ChatMessage(role="assistant", content=text)])  # fmt: skip
    (request,) = suite.evidence(price, trajectory)
    assert isinstance(request, ModelAsk) and read_llm_prompt(request.user) == (text, "binary")
    answered = Evidence(id=LLM_REQUEST, status="pass", data={"replies": {
        "gpt": json.dumps({"CandidateAnswer": gold})}})  # fmt: skip
    verdict = suite.score(price, trajectory, evidence={LLM_REQUEST: answered})[0]
    assert (verdict.result, verdict.decided_by, verdict.details["via"]) == (
        "pass",
        "guidebench.llm-parse",
        "llm",
    )
    assert verdict.details["rules"] == {"got": str(gold), "category": "correct", "agrees": True}
    failed = Evidence(id=LLM_REQUEST, status="error", detail="no judge replied: gpt: timeout")
    verdict = suite.score(price, trajectory, evidence={LLM_REQUEST: failed})[0]
    assert verdict.result == "error" and "timeout" in verdict.reasoning
    assert suite.score(price, trajectory)[0].result == "error"  # no panel: never a pass
    # the other parsers ask for nothing (the instance says which parser it is scored by)
    public = get_suite("guidebench", perCategory=1, protocol="paper")
    for instance in public.load(spec, base_dir=Path(".")):
        assert public.evidence(instance, trajectory) == []


PARSER = (
    "Extract $answer_field ($answer_format) and $analysis_field from this $category "
    "reply as JSON.\n---\n$reply\n---"
)


def replied(instance, text: str) -> Trajectory:
    return Trajectory(
        messages=[
            ChatMessage(role="user", content=instance.turns[0]),
            ChatMessage(role="assistant", content=text),
        ]
    )


def test_a_parser_template_is_the_question_the_panel_is_asked(tmp_path: Path) -> None:
    (tmp_path / "parser.txt").write_text(PARSER, encoding="utf-8")
    spec = BenchmarkSpec.model_validate({"suite": "guidebench", "source": {"path": str(DATA)}})
    suite = get_suite("guidebench", perCategory=1, protocol="paper", parse="llm",
                      templates={"parser": "parser.txt"})  # fmt: skip
    loaded = {i.metadata["category"]: i for i in suite.load(spec, base_dir=tmp_path)}
    reply = "我认为答案是 B。"
    for category, answer, analysis in (
        ("chat", "OptimalOption", "AnswerAnalysis"),
        ("math", "CandidateAnswer", "CandidateAnalysis"),
    ):
        instance = loaded[category]
        (request,) = suite.evidence(instance, replied(instance, reply))
        fmt = "是最佳选项的序号，写成一个大写字母字符串" if category == "chat" else (
            "是最终金额，写成字符串，只写数字，不带单位")  # fmt: skip
        assert request.user == (
            f"Extract {answer} ({fmt}) and {analysis} from this {category} reply as JSON."
            f"\n---\n{reply}\n---"
        )
    # without the template the question is adhere's own (the scripted parser reads it)
    plain = get_suite("guidebench", perCategory=1, protocol="paper", parse="llm")
    chat = next(i for i in plain.load(spec, base_dir=tmp_path) if i.metadata["category"] == "chat")
    assert "parser_prompt" not in chat.metadata
    (request,) = plain.evidence(chat, replied(chat, reply))
    assert read_llm_prompt(request.user) == (reply, "option")


def test_a_parser_template_is_checked_when_the_benchmark_loads(tmp_path: Path) -> None:
    spec = BenchmarkSpec.model_validate({"suite": "guidebench", "source": {"path": str(DATA)}})
    (tmp_path / "bad.txt").write_text("$reply $instruction", encoding="utf-8")
    bad = get_suite("guidebench", parse="llm", templates={"parser": "bad.txt"})
    with pytest.raises(SpecError, match="'instruction'; the parser template gets") as caught:
        bad.load(spec, base_dir=tmp_path)
    assert caught.value.file == str(tmp_path / "bad.txt")
    assert caught.value.field == "spec.options.templates.parser"
    with pytest.raises(SpecError, match="question of parse: llm") as caught:
        get_suite("guidebench", protocol="paper", templates={"parser": "bad.txt"})
    assert caught.value.field == "spec.options.templates.parser"
