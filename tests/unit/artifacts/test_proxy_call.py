import json

import pytest

from adhere.artifacts import ProxyCall
from adhere.errors import SpecError

RECORD = {
    "seq": 3,
    "trial": "t-1",
    "upstream": "m",
    "api": "anthropic",
    "method": "POST",
    "path": "/v1/messages",
    "query": "beta=true",
    "stream": True,
    "request": {"model": "x", "messages": [{"role": "user", "content": "héllo"}]},
    "status": 200,
    "response": {"content": [{"type": "text", "text": "hi"}]},
    "sse_events": 7,
    "error": None,
    "started_at": "2025-01-01T00:00:00+00:00",
    "duration_seconds": 1.25,
    "ttfb_seconds": 0.5,
    "usage": {"input_tokens": 10, "output_tokens": 2},
    "outcome": "ok",
}


def test_a_record_round_trips_through_its_json_form_unchanged():
    call = ProxyCall.from_json_dict(RECORD)
    assert call.seq == 3 and call.usage == {"input_tokens": 10, "output_tokens": 2}
    assert call.to_json_dict() == RECORD
    assert list(call.to_json_dict()) == list(RECORD)
    line = call.to_json_line()
    assert line == json.dumps(RECORD, ensure_ascii=False) and "\n" not in line
    assert ProxyCall.from_json_line(line) == call


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"seq": "3"}, "seq"),
        ({"stream": 1}, "stream"),
        ({"usage": {"input_tokens": "many"}}, "usage.input_tokens"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_a_malformed_record_is_refused_naming_the_field(change, field):
    with pytest.raises(SpecError) as caught:
        ProxyCall.from_json_dict({**RECORD, **change}, where="calls.jsonl:4")
    assert caught.value.field == field
    assert str(caught.value).startswith(f"calls.jsonl:4: {field}: malformed call record")


def test_a_missing_field_or_a_line_that_is_not_json_is_refused():
    partial = {key: value for key, value in RECORD.items() if key != "status"}
    with pytest.raises(SpecError, match="status"):
        ProxyCall.from_json_dict(partial)
    with pytest.raises(SpecError, match="not valid JSON"):
        ProxyCall.from_json_line("{oops", where="calls.jsonl:1")
    with pytest.raises(SpecError, match="must be a JSON object"):
        ProxyCall.from_json_line("[1]")


def test_a_record_written_before_outcome_existed_still_reads():
    old = {key: value for key, value in RECORD.items() if key != "outcome"}
    call = ProxyCall.from_json_dict(old)
    assert call.outcome is None and call.seq == 3
