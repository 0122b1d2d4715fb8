from adhere.wire import parse_body


def test_bodies_parse_as_json_raw_text_or_nothing():
    assert parse_body(b'{"a": 1}') == {"a": 1}
    assert parse_body(b"[1]") == [1]
    assert parse_body(b"  ") is None
    assert parse_body(b"not json \xff") == {"_raw": "not json \ufffd"}
