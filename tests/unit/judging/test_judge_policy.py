"""The scripted ``judge`` policy (a test double) answering the judge prompt directly."""

import json

import pytest

from adhere.core._chat import ChatMessage
from adhere.core._types import Trajectory
from adhere.errors import UnknownConversation
from adhere.judging._judge_reply import parse_reply
from adhere.judging._prompt import JUDGE_SYSTEM, PromptItem, render_user
from adhere.judging._prompt_transcript import render_transcript
from adhere.testing import ModelStringError, PolicyContext, default_registry, parse_model_string
from adhere.wire import Conversation

TRAJ = Trajectory(
    messages=[
        ChatMessage(role="user", content="Fix it."),
        ChatMessage(role="assistant", content="Done."),
        ChatMessage(role="assistant", content="Really done."),
    ]
)
ITEMS = [
    PromptItem(f"c{i}", "SP", "compliance", f"rule {i}", "if it edits" if i % 3 == 0 else None)
    for i in range(300)
]


def policy(model):
    return default_registry().create(parse_model_string(model), PolicyContext())


def ask(model, items=ITEMS, traj=TRAJ, note=None):
    user = render_user(render_transcript(traj), items, note=note)
    conv = Conversation(
        model=model,
        policy="judge",
        options={},
        system=JUDGE_SYSTEM,
        messages=(ChatMessage(role="user", content=user),),
    )
    return policy(model).respond(conv).text


def parsed(model, **kwargs):
    items = kwargs.get("items", ITEMS)
    return parse_reply(
        ask(model, **kwargs), {i.check_id: i.conditional for i in items}, assistant_turns=2
    )


def test_answers_are_valid_deterministic_and_follow_the_rules():
    reply = parsed("judge:seed=1")
    assert reply.problems == []
    assert len(reply.answers) == 300
    assert ask("judge:seed=1") == ask("judge:seed=1")
    na = {c for c, a in reply.answers.items() if a.result == "n/a"}
    assert na and all(int(c[1:]) % 3 == 0 for c in na)
    passes = sum(a.result == "pass" for a in reply.answers.values())
    assert 0.65 < passes / (300 - len(na)) < 0.95
    assert {a.evidence for a in reply.answers.values()} == {0, 1}


def test_an_item_gets_the_same_answer_in_any_batch():
    whole = parsed("judge:seed=4").answers
    part = parsed("judge:seed=4", items=ITEMS[10:20], note="- again").answers
    assert {c: whole[c] for c in part} == part


def test_seeds_differ_but_agree_mostly_and_bias_shifts_the_pass_rate():
    a, b = parsed("judge:seed=1").answers, parsed("judge:seed=2").answers
    same = sum(a[c].result == b[c].result for c in a) / len(a)
    assert 0.6 < same < 0.98
    lenient = parsed("judge:seed=1,pass_rate=0.5,bias=0.4").answers
    harsh = parsed("judge:seed=1,pass_rate=0.5,bias=-0.4").answers
    count = lambda answers: sum(x.result == "pass" for x in answers.values())  # noqa: E731
    assert count(lenient) > count(a) > count(harsh)
    other = parsed("judge:seed=1", traj=TRAJ.model_copy(update={"system": "x"})).answers
    assert other != a


def test_garble_and_drop():
    assert all(parsed(f"judge:seed={s},garble=1", items=ITEMS[:5]).answers == {} for s in range(6))
    kinds = {
        parsed(f"judge:seed={s},garble=1", items=ITEMS[:5]).problems[0].kind for s in range(12)
    }
    assert kinds == {"no_json", "truncated"}
    dropped = parsed("judge:seed=1,drop=0.3")
    missing = [p for p in dropped.problems if p.kind == "missing"]
    assert 50 < len(missing) < 130
    assert {p.kind for p in dropped.problems} == {"missing"}


def test_replies_come_bare_or_fenced():
    texts = [ask(f"judge:seed={s}", items=ITEMS[:2]) for s in range(10)]
    assert any(t.startswith("{") for t in texts)
    assert any("```json\n" in t for t in texts)


def test_non_judge_prompts_and_bad_options_are_refused():
    conv = Conversation(
        model="judge:seed=1",
        policy="judge",
        options={},
        system="",
        messages=(ChatMessage(role="user", content="Hello"),),
    )
    with pytest.raises(UnknownConversation, match="judge prompts only"):
        policy("judge:seed=1").respond(conv)
    with pytest.raises(ModelStringError, match="needs option 'seed'"):
        policy("judge")
    with pytest.raises(ModelStringError, match="bias"):
        policy("judge:seed=1,bias=2")
    with pytest.raises(ModelStringError, match="unknown option 'rate'"):
        policy("judge:seed=1,rate=0.1")
    assert json.loads(ask("judge:seed=3", items=ITEMS[:1]).split("```json\n")[-1].strip("`\n"))
