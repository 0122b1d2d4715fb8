"""Translation between API shapes, pure: what is carried, and the documented fallbacks."""

import json

import pytest

from adhere.wire import LocalAnswer, WireFormatError, plan_call, read_answer, translate_answer
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


def _anthropic_stream(text, pieces):
    """An upstream Messages stream carrying ``text`` in ``pieces`` deltas and one tool call."""
    step = max(1, len(text) // pieces)
    events = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {"id": "m", "role": "assistant", "content": [], "usage": {}},
            },
        ),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
        ),
    ]
    for start in range(0, len(text), step):
        delta = {"type": "text_delta", "text": text[start : start + step]}
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
        )
    tool = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}
    arguments = json.dumps({"path": "a/very/long/path/to/some/file.py", "limit": 200})
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 1, "content_block": tool},
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": arguments},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 1}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use"},
                "usage": {"input_tokens": 3, "output_tokens": 40},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return b"".join(encode_sse(json.dumps(data), name) for name, data in events)


CLIENT_CALLS = {
    "openai-chat": ("/v1/chat/completions", ""),
    "openai-responses": ("/v1/responses", ""),
    "gemini": ("/v1beta/models/m:streamGenerateContent", "alt=sse"),
}


@pytest.mark.parametrize("client", sorted(CLIENT_CALLS))
def test_a_translated_stream_carries_each_text_and_arguments_in_one_delta(client):
    """A stream translated whole is sent at once: its texts are not cut into pieces again,
    so the client's event count does not grow with the reply's length, and the reply
    the client reassembles is the upstream's, word for word."""
    path, query = CLIENT_CALLS[client]
    request = {
        "openai-chat": {"model": "m", "messages": [{"role": "user", "content": "hi"}]},
        "openai-responses": {"model": "m", "input": "hi"},
        "gemini": {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]},
    }[client]
    if client != "gemini":
        request["stream"] = True
    plan = plan_call(client, path, query, request, "anthropic")
    counts, replies = [], []
    for words in (5, 400):
        text = " ".join(f"word{n}" for n in range(words))
        upstream = _anthropic_stream(text, pieces=words)
        answer = translate_answer(plan, 200, "text/event-stream", upstream, ident="i", created=0)
        assert answer.payload is not None and answer.client is not None
        counts.append(answer.client.sse_events)
        got = read_answer(client, 200, answer.content_type, answer.payload)
        assert got.error is None
        replies.append((text, json.dumps(got.response)))
    assert counts[0] == counts[1]  # 5 words or 400: the same events
    for text, document in replies:
        assert text in document  # the whole text, in one piece
        assert "a/very/long/path/to/some/file.py" in document
