import json

import pytest

from adhere.artifacts import ProxyCall
from adhere.observe._proxy_config import ProxyConfig, Upstream
from adhere.observe._proxy_record import CallLog
from adhere.observe._proxy_sinks import JsonlDirSink, MemorySink
from adhere.observe._redact import Redactor


def test_upstream_base_urls_drop_a_trailing_version():
    assert Upstream("a", "https://api.openai.com/v1/").base_url == "https://api.openai.com"
    assert Upstream("b", "http://h:1/v1beta").base_url == "http://h:1"
    assert Upstream("c", "https://api.anthropic.com").base_url == "https://api.anthropic.com"
    assert Upstream("d", "https://h/api/v1").base_url == "https://h/api"
    assert Upstream("e", "https://h/v10").base_url == "https://h/v10"


def test_keys_and_secrets_stay_out_of_repr():
    upstream = Upstream("m", "http://h", "sk-very-secret-value")
    config = ProxyConfig({"m": upstream}, MemorySink(), secrets=["other-secret-value"])
    assert "sk-very-secret-value" not in repr(upstream)
    assert "secret-value" not in repr(config)


@pytest.mark.parametrize(
    ("kwargs", "problem"),
    [
        ({"name": "a/b", "base_url": "http://h"}, "upstream name"),
        ({"name": ".x", "base_url": "http://h"}, "upstream name"),
        ({"name": "a", "base_url": "ftp://h"}, "http"),
        ({"name": "a", "base_url": "http://h", "timeout_seconds": 0}, "timeout"),
    ],
)
def test_bad_upstreams_are_refused(kwargs, problem):
    with pytest.raises(ValueError, match=problem):
        Upstream(**kwargs)


def test_config_keys_must_match_upstream_names():
    with pytest.raises(ValueError, match="registered as 'x'"):
        ProxyConfig({"x": Upstream("y", "http://h")}, MemorySink())


def finished(seq, **fields):
    """A finished call's record, with the fields a test cares about."""
    base = {
        "seq": seq,
        "trial": "t",
        "upstream": "m",
        "api": "openai-chat",
        "method": "POST",
        "path": "/v1/chat/completions",
        "query": "",
        "stream": False,
        "request": None,
        "status": 200,
        "response": None,
        "sse_events": 0,
        "error": None,
        "started_at": "2025-01-01T00:00:00+00:00",
        "duration_seconds": 0.5,
        "ttfb_seconds": 0.1,
        "usage": None,
    }
    return ProxyCall(**{**base, **fields})


def test_memory_sink_hands_records_over_once_in_seq_order():
    sink = MemorySink()
    for seq in (2, 0, 1):
        sink.record("t", finished(seq))
    sink.record("u", finished(0))
    assert sink.trials() == ["t", "u"]
    assert sink.take("t") == [finished(0), finished(1), finished(2)]
    assert sink.take("t") == [] and sink.trials() == ["u"]


def test_jsonl_sink_appends_one_line_per_record(tmp_path):
    sink = JsonlDirSink(tmp_path)
    sink.record("trial-1", finished(1, error="héllo\nworld"))
    sink.record("trial-1", finished(0))
    lines = (tmp_path / "trial-1" / "calls.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["seq"] for line in lines] == [1, 0]
    assert sink.read("trial-1") == [finished(0), finished(1, error="héllo\nworld")]
    assert sink.read("other") == []
    for bad in ("..", "a/b", "", ".hidden"):
        with pytest.raises(ValueError, match="safe directory name"):
            sink.record(bad, finished(0))


def log(**fields):
    base = {
        "seq": 0,
        "trial": "t",
        "upstream": "m",
        "api": "openai-chat",
        "method": "POST",
        "path": "/v1/chat/completions",
        "query": "",
    }
    return CallLog(**{**base, **fields})


def test_a_call_log_becomes_a_redacted_record():
    call = log(request={"messages": [{"content": "secret-abc-123"}]}, stream=True, query="key=k")
    call.status, call.content_type = 200, "text/event-stream"
    call.body.extend(b'data: {"choices":[{"index":0,"delta":{"content":"secret-abc-123"}}]}\n\n')
    call.first_bytes()
    record = call.record(Redactor(["secret-abc-123"])).to_json_dict()
    assert record["request"] == {"messages": [{"content": "[redacted]"}]}
    assert record["response"]["choices"][0]["message"]["content"] == "[redacted]"
    assert record["query"] == "key=[redacted]"
    assert record["error"] == "the stream ended before its final event"
    assert record["outcome"] == "cut"
    assert record["sse_events"] == 1 and record["usage"] is None
    assert 0 <= record["ttfb_seconds"] <= record["duration_seconds"]
    assert list(record) == [
        "seq",
        "trial",
        "upstream",
        "api",
        "method",
        "path",
        "query",
        "stream",
        "request",
        "status",
        "response",
        "sse_events",
        "error",
        "started_at",
        "duration_seconds",
        "ttfb_seconds",
        "usage",
        "outcome",
    ]


def test_failed_calls_get_an_error_and_keep_the_body():
    call = log(status=500, content_type="text/html")
    call.body.extend(b"<h1>oops</h1>")
    record = call.record(Redactor()).to_json_dict()
    assert record["response"] == {"_raw": "<h1>oops</h1>"}
    assert record["error"] == "HTTP 500: <h1>oops</h1>"
    unreachable = log(error="upstream unreachable: refused")
    record = unreachable.record(Redactor()).to_json_dict()
    assert (record["status"], record["response"], record["error"]) == (
        None,
        None,
        "upstream unreachable: refused",
    )
    sse_error = log(status=429, content_type="text/event-stream")
    sse_error.body.extend(b'data: {"error": {"message": "slow down"}}\n\n')
    assert sse_error.record(Redactor()).error == "HTTP 429: stream error: slow down"
