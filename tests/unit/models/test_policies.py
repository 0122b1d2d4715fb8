import random

import pytest

from adhere.core._chat import ChatMessage, ToolCall
from adhere.errors import UnknownConversation
from adhere.testing import (
    DictReplaySource,
    PolicyContext,
    ScriptedCall,
    ScriptStep,
    default_registry,
    parse_model_string,
)
from adhere.testing._builtin import GARBLED_REPLIES
from adhere.testing._scripts import END_OF_SCRIPT
from adhere.wire import Conversation, Reply


class WrongSetKey:
    """Answers with the list of wrongly answered items of a 1000-item instance."""

    def __init__(self, items=1000):
        self.items = [f"item-{index}" for index in range(items)]

    def answer(self, conversation, wrong):
        instance = conversation.messages[0].content
        order = list(self.items)
        random.Random(conversation.options.get("shuffle", "0")).shuffle(order)
        return Reply(text=" ".join(sorted(key for key in order if wrong(instance, key))))


def conv(text="instance-1", model="noisy", options=None, messages=None):
    return Conversation(
        model=model,
        policy=model.split(":")[0],
        options=options or {},
        system="",
        messages=tuple(messages or [ChatMessage(role="user", content=text)]),
    )


def build(text, **context):
    return default_registry().create(parse_model_string(text), PolicyContext(**context))


def test_noisy_wrong_set_is_deterministic_and_order_independent():
    key = WrongSetKey()
    first = build("noisy:rate=0.3,seed=7", answer_key=key).respond(conv())
    again = build("noisy:rate=0.3,seed=7", answer_key=key)
    # A different evaluation order (the key shuffles by this option) gives the same set.
    shuffled = again.respond(conv(options={"shuffle": "99"}))
    assert first.text == shuffled.text
    other_seed = build("noisy:rate=0.3,seed=8", answer_key=key).respond(conv())
    assert other_seed.text != first.text


@pytest.mark.parametrize("rate", [0.0, 0.1, 0.5, 1.0])
def test_noisy_rate_is_roughly_respected(rate):
    reply = build(f"noisy:rate={rate},seed=3", answer_key=WrongSetKey()).respond(conv())
    wrong = len(reply.text.split())
    assert abs(wrong / 1000 - rate) < 0.05


def test_oracle_never_answers_wrongly():
    assert build("oracle", answer_key=WrongSetKey()).respond(conv()).text == ""


def test_garble_replaces_a_seeded_share_of_replies():
    policy = build("noisy:rate=0,seed=1,garble=0.5", answer_key=WrongSetKey(items=1))
    replies = [policy.respond(conv(f"instance-{index}")).text for index in range(400)]
    garbled = [text for text in replies if text]
    assert set(garbled) <= set(GARBLED_REPLIES)
    assert 0.4 < len(garbled) / 400 < 0.6
    assert replies == [policy.respond(conv(f"instance-{index}")).text for index in range(400)]


def test_replay_finds_by_digest_and_rejects_unknown():
    known = conv("recorded")
    policy = build("replay", replay=DictReplaySource({known.digest: Reply(text="from tape")}))
    assert policy.respond(known).text == "from tape"
    with pytest.raises(UnknownConversation, match="no recorded reply"):
        policy.respond(conv("never seen"))


def test_script_steps_by_assistant_turn_then_final_text():
    steps = [
        ScriptStep(tool_calls=(ScriptedCall("ls", {"path": "."}),)),
        ScriptStep(text="done", tool_calls=(ScriptedCall("rm", {}),)),
    ]
    policy = build("script:agent", scripts={"agent": steps})
    first = policy.respond(conv())
    assert first.text == "" and first.tool_calls[0].name == "ls"
    assert first.tool_calls[0].arguments == {"path": "."}
    assert first.tool_calls[0].id.startswith("call_")
    assert policy.respond(conv()).tool_calls[0].id == first.tool_calls[0].id
    history = [
        ChatMessage(role="user", content="go"),
        ChatMessage(role="assistant", tool_calls=(ToolCall(id="c1", name="ls"),)),
        ChatMessage(role="tool", tool_call_id="c1", content="a.txt"),
    ]
    second = policy.respond(conv(messages=history))
    assert (second.text, second.tool_calls[0].name) == ("done", "rm")
    history += [ChatMessage(role="assistant", content="x"), ChatMessage(role="user", content="y")]
    assert policy.respond(conv(messages=history)) == Reply(text="done")
    silent = build("script:calls", scripts={"calls": [steps[0]]})
    assert silent.respond(conv(messages=history)) == Reply(text=END_OF_SCRIPT)


def test_conversation_digest_ignores_the_api():
    base = conv()
    other = Conversation(
        model="x", policy="x", options={}, system="", messages=base.messages, api="anthropic"
    )
    assert base.digest == other.digest
    assert base.assistant_turns == 0
