"""The endpoint check's call in each API shape, and what reads as a reply to it."""

import json

import pytest

from adhere.wire import PROBE_TEXT, probe_call, probe_problem


@pytest.mark.parametrize(
    ("api", "path", "cap"),
    [
        ("openai-chat", "/v1/chat/completions", ("max_tokens", 1)),
        ("anthropic", "/v1/messages", ("max_tokens", 1)),
        ("openai-responses", "/v1/responses", ("max_output_tokens", 16)),
        ("gemini", "/v1beta/models/m%2Fx:generateContent", None),
    ],
)
def test_one_tiny_unstreamed_call_in_the_shape(api, path, cap) -> None:
    plan = probe_call(api, "m/x")
    assert plan.path == path and not plan.stream and PROBE_TEXT in json.dumps(plan.body)
    if cap is None:
        assert plan.body["generationConfig"] == {"maxOutputTokens": 1}
    else:
        assert plan.body[cap[0]] == cap[1] and plan.body["model"] == "m/x"
    assert "tools" not in plan.body


def test_a_reply_passes_and_anything_else_is_named() -> None:
    plan = probe_call("anthropic", "m")
    reply = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [{"type": "text", "text": "p"}],
        "stop_reason": "max_tokens",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    assert probe_problem(plan, 200, "application/json", json.dumps(reply).encode()) is None
    problem = probe_problem(plan, 200, "text/html", b"<html>login</html>")
    assert problem == "the answer does not read as a reply: not JSON: <html>login</html>"
