"""Translation between API shapes, pure: what is carried, and the documented fallbacks."""

import json

import pytest

from adhere.wire import LocalAnswer, WireFormatError, plan_call, translate_answer
from adhere.wire._sse import encode_sse

SYSTEM = [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]


def anthropic_body(**extra):
    return {
        "model": "claude-x",
        "max_tokens": 100,
        "system": SYSTEM,
        "messages": [{"role": "user", "content": "hi"}],
        **extra,
    }


def test_cache_control_and_server_tools_are_dropped_function_tools_kept():
    tools = [
        {"name": "Read", "description": "read", "input_schema": {"type": "object"}},
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
    ]
    plan = plan_call("anthropic", "/v1/messages", "", anthropic_body(tools=tools), "openai-chat")
    assert plan.body["messages"][0] == {"role": "system", "content": "Be brief."}
    assert "cache_control" not in json.dumps(plan.body)
    names = [t["function"]["name"] for t in plan.body["tools"]]
    assert names == ["Read"]


def test_thinking_comes_back_with_a_placeholder_signature_and_is_not_sent_upstream():
    history = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "secret plan", "signature": "sig-from-elsewhere"},
                {"type": "text", "text": "hello"},
            ],
        },
        {"role": "user", "content": "again"},
    ]
    plan = plan_call(
        "anthropic", "/v1/messages", "", anthropic_body(messages=history), "openai-chat"
    )
    assert "secret plan" not in json.dumps(plan.body)  # reasoning is not sent back
    reply = {
        "choices": [
            {
                "message": {"role": "assistant", "content": "ok", "reasoning_content": "why"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2},
    }
    answer = translate_answer(
        plan, 200, "application/json", json.dumps(reply).encode(), ident="i", created=0
    )
    document = json.loads(answer.payload)
    assert document["content"][0] == {
        "type": "thinking",
        "thinking": "why",
        "signature": "adhere-unsigned",
    }
    assert document["stop_reason"] == "end_turn"
    assert document["usage"] == {"input_tokens": 5, "output_tokens": 2}


@pytest.mark.parametrize(
    ("client", "path", "body", "problem"),
    [
        (
            "openai-responses",
            "/v1/responses",
            {"model": "m", "input": "hi", "previous_response_id": "resp_1"},
            "previous_response_id",
        ),
        (
            "anthropic",
            "/v1/messages",
            anthropic_body(messages=[{"role": "user", "content": [{"type": "document"}]}]),
            "messages[0].content[0].type",
        ),
        ("anthropic", "/v1/files", {}, "only chat calls are translated"),
        ("gemini", "/v1beta/models/g:embedContent", {}, "'embedContent' is not translated"),
    ],
)
def test_what_cannot_be_carried_is_refused_naming_it(client, path, body, problem):
    with pytest.raises(WireFormatError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        plan_call(client, path, "", body, "openai-chat")


def test_token_counting_is_answered_without_the_upstream():
    counted = plan_call(
        "gemini", "/v1beta/models/g:countTokens", "", {"contents": ["x" * 80]}, "anthropic"
    )
    assert isinstance(counted, LocalAnswer) and counted.body["totalTokens"] >= 20


def test_an_upstream_stream_that_broke_off_gives_no_payload_and_says_why():
    plan = plan_call(
        "openai-chat",
        "/v1/chat/completions",
        "",
        {
            "model": "m",
            "messages": [{"role": "user", "content": "hi"}],
            "stream": True,
        },
        "anthropic",
    )
    start = {
        "type": "message_start",
        "message": {"id": "m", "role": "assistant", "content": [], "usage": {"input_tokens": 1}},
    }
    body = encode_sse(json.dumps(start), "message_start")  # and nothing more
    answer = translate_answer(plan, 200, "text/event-stream", body, ident="i", created=0)
    assert answer.payload is None and answer.error == "the stream ended before its final event"


def test_an_upstream_error_keeps_its_status_in_the_clients_shape():
    plan = plan_call("anthropic", "/v1/messages", "", anthropic_body(), "gemini")
    assert plan.path == "/v1beta/models/claude-x:generateContent"
    error = {"error": {"code": 429, "message": "quota exhausted", "status": "RESOURCE_EXHAUSTED"}}
    answer = translate_answer(
        plan, 429, "application/json", json.dumps(error).encode(), ident="i", created=0
    )
    assert answer.status == 429
    document = json.loads(answer.payload)
    assert document["type"] == "error" and document["error"]["type"] == "rate_limit_error"
    assert document["error"]["message"] == "upstream (gemini): quota exhausted"
