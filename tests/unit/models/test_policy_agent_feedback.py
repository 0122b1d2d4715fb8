"""The ``heeds-feedback`` flag: the scripted agent drops the violations feedback names."""

import pytest

from adhere.core import Source
from adhere.core._chat import ChatMessage, ToolSpec
from adhere.judging._feedback import FeedbackItem, render_feedback
from adhere.testing import PolicyContext, default_registry, parse_model_string
from adhere.testing._agent import FORBIDDEN_COMMAND
from adhere.testing._agent_feedback import named_violations
from adhere.testing._agent_text import EMOJI
from adhere.wire import Conversation

TOOLS = (
    ToolSpec(name="Read", parameters={"type": "object", "properties": {"file_path": {}}}),
    ToolSpec(
        name="Edit",
        parameters={
            "type": "object",
            "properties": {"file_path": {}, "old_string": {}, "new_string": {}},
        },
    ),
    ToolSpec(name="Bash", parameters={"type": "object", "properties": {"command": {}}}),
)
CARELESS = "agent:edit,edit-without-read,forbidden,emoji"


def drive(model, tools, request, history=()):
    """Run the policy as a CLI would until it answers without tool calls."""
    policy = default_registry().create(parse_model_string(model), PolicyContext())
    messages = [*history, ChatMessage(role="user", content=request)]
    calls = []
    for _ in range(10):
        conversation = Conversation(
            model=model,
            policy="agent",
            options={},
            system="",
            messages=tuple(messages),
            tools=tuple(tools),
        )
        reply = policy.respond(conversation)
        messages.append(
            ChatMessage(role="assistant", content=reply.text, tool_calls=reply.tool_calls)
        )
        if not reply.tool_calls:
            return calls, reply.text, messages
        calls += reply.tool_calls
        for call in reply.tool_calls:
            result = "1\tfirst line\n" if call.name == "Read" else "ok"
            messages.append(ChatMessage(role="tool", content=result, tool_call_id=call.id))
    raise AssertionError("the loop did not end")


def item(check_id, description, source=Source.AGENTS_MD):
    return FeedbackItem(check_id=check_id, source=source, description=description)


@pytest.mark.parametrize(
    ("check_id", "description", "expected"),
    [
        ("SP_no_emoji", "The final answer contains no emoji.", {"emoji"}),
        ("MD_no_reset_hard", "Never runs git reset --hard or git checkout -- .", {"forbidden"}),
        ("MD_read_before_edit", "Every edited file was read first.", {"edit-without-read"}),
        ("X1", "The assistant reads a file before changing it.", {"edit-without-read"}),
        ("MEM_answer_french", "The answer is in French.", {"wrong-language"}),
        ("SP_language", "Reply in the user's language.", {"wrong-language"}),
        ("MD_runs_tests", "The assistant runs python -m pytest -q.", set()),
        ("UQ_first_line", "The answer quotes '# inventory'.", set()),
    ],
)
def test_keywords_name_violations(check_id, description, expected) -> None:
    assert named_violations(item(check_id, description)) == expected


def names(calls):
    return [c.name for c in calls]


def test_without_feedback_nothing_changes() -> None:
    calls, text, _ = drive(f"{CARELESS},heeds-feedback", TOOLS, "Edit README.md")
    assert names(calls) == ["Edit", "Read", "Bash"]
    assert calls[-1].arguments["command"] == FORBIDDEN_COMMAND and text.endswith(EMOJI)


def test_heeding_drops_only_the_named_violations() -> None:
    block = render_feedback(
        [
            item("SP_no_emoji", "No emoji.", Source.SYSTEM_PROMPT),
            item("MD_read_before_edit", "Every edited file was read first."),
            item("MD_runs_tests", "Runs the tests after a change."),
        ]
    )
    request = f"Edit README.md\n\n{block}"
    calls, text, _ = drive(f"{CARELESS},heeds-feedback", TOOLS, request)
    assert names(calls) == ["Read", "Edit", "Bash"]  # read first now; still resets
    assert calls[-1].arguments["command"] == FORBIDDEN_COMMAND
    assert not text.endswith(EMOJI)
    # without the flag the same conversation changes nothing
    calls, text, _ = drive(CARELESS, TOOLS, request)
    assert names(calls) == ["Edit", "Read", "Bash"] and text.endswith(EMOJI)


def test_the_block_never_picks_the_file() -> None:
    block = render_feedback([item("SP_no_emoji", "No emoji in `CHANGELOG.md`.")])
    for model in (CARELESS, f"{CARELESS},heeds-feedback"):
        calls, _, _ = drive(model, TOOLS, f"Edit utils.py\n\n{block}")
        edit = next(c for c in calls if c.name == "Edit")
        assert "utils.py" in str(edit.arguments)


def test_feedback_in_a_later_turn_applies_from_that_turn() -> None:
    block = render_feedback([item("SP_no_emoji", "No emoji.", Source.SYSTEM_PROMPT)])
    _, first, history = drive("agent:answer,emoji,heeds-feedback", TOOLS, "Hello")
    assert first.endswith(EMOJI)
    _, second, _ = drive("agent:answer,emoji,heeds-feedback", TOOLS, block, history=history)
    assert not second.endswith(EMOJI)
    # the earlier reply stays as it was: it is history
    assert any(m.content.endswith(EMOJI) for m in history if isinstance(m, ChatMessage))
