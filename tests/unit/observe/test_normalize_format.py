"""A call log not in adhere's format is an error naming the format, never an empty trajectory."""

import json

import pytest

from adhere.artifacts import ProxyCall
from adhere.errors import SpecError
from adhere.observe import normalize

MINI_VELA_LINE = {
    "session_id": "inst-1",
    "biz_id": "",
    "request_time": 1768533217176,
    "request_body": {
        "model": "m",
        "system": [{"type": "text", "text": "You are an agent."}],
        "messages": [{"role": "user", "content": "Explain partition()."}],
        "tools": [],
        "max_tokens": 1024,
        "metadata": {},
    },
    "response_body": {"content": [{"type": "text", "text": "It splits a list."}]},
}


def record(**fields):
    base = {
        "seq": 0,
        "trial": "t",
        "upstream": "m",
        "api": "anthropic",
        "method": "POST",
        "path": "/v1/messages",
        "query": "",
        "stream": False,
        "request": None,
        "status": 200,
        "response": None,
        "sse_events": 0,
        "error": None,
        "started_at": "2025-01-01T00:00:00+00:00",
        "duration_seconds": 1.0,
        "ttfb_seconds": None,
        "usage": None,
    }
    return {**base, **fields}


def test_mini_vela_lines_name_the_format_and_the_importer():
    with pytest.raises(SpecError) as caught:
        normalize([MINI_VELA_LINE], source="logs/inst-1.jsonl")
    message = str(caught.value)
    assert message.startswith("logs/inst-1.jsonl: record 0: not a call record")
    assert "adhere's call record" in message and "seq, trial, upstream, api" in message
    assert "adhere import mini-vela" in message
    # the same from a calls.jsonl line
    with pytest.raises(SpecError, match=r"calls.jsonl:3: not a call record.*mini-vela"):
        ProxyCall.from_json_line(json.dumps(MINI_VELA_LINE), where="calls.jsonl:3")


def test_a_log_without_any_conversation_is_an_error():
    """mini-vela's lines wrapped as request bodies used to give an empty trajectory."""
    wrapped = [ProxyCall(**record(seq=i, request=MINI_VELA_LINE, response=None)) for i in range(2)]
    with pytest.raises(SpecError) as caught:
        normalize(wrapped, source="calls.jsonl")
    message = str(caught.value)
    assert "none of the 2 call records holds a conversation" in message
    assert "request.messages" in message and "session_id" in message
    assert caught.value.field == "request.messages"


def test_an_unknown_api_shape_is_an_error():
    with pytest.raises(SpecError, match="api 'mini-vela' is not an API shape") as caught:
        normalize([record(api="mini-vela", request={"messages": []})])
    assert caught.value.field == "api"


def test_records_as_json_objects_are_validated_and_normalized():
    good = record(request=MINI_VELA_LINE["request_body"], response=MINI_VELA_LINE["response_body"])
    trajectory = normalize([good])
    assert [(m.role, m.content) for m in trajectory.messages] == [
        ("user", "Explain partition()."),
        ("assistant", "It splits a list."),
    ]
    with pytest.raises(SpecError, match="seq") as caught:
        normalize([{**good, "seq": "zero"}])
    assert caught.value.field == "seq"


def test_logs_that_are_fine_stay_fine():
    assert normalize([]).messages == []
    # a call without a JSON body (a model list, say) is no conversation, and no error
    assert normalize([record(method="GET", path="/v1/models")]).messages == []
    # a failed call keeps its request: the trajectory has the user's message
    failed = record(status=503, error="upstream 503", request=MINI_VELA_LINE["request_body"])
    assert [m.role for m in normalize([failed]).messages] == ["user"]
    # a body the endpoint refused is the trial's failure, not another format
    refused = record(status=400, error="upstream 400", request={"model": "m"})
    assert normalize([refused]).messages == []
