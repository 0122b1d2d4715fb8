"""Watching relayed streams for their end: the API's final event, or the reply's end."""

import json

import pytest

from adhere.wire import StreamEnd


def sse(data, event=None):
    head = f"event: {event}\n" if event else ""
    text = data if isinstance(data, str) else json.dumps(data)
    return f"{head}data: {text}\n\n".encode()


def chat(delta, finish=None):
    return sse({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


FINAL = {
    "openai-chat": [chat({"content": "hi"}), chat({}, "stop"), sse("[DONE]")],
    "anthropic": [
        sse({"type": "message_start", "message": {}}, "message_start"),
        sse({"type": "message_stop"}, "message_stop"),
    ],
    "openai-responses": [
        sse({"type": "response.output_text.delta", "delta": "response.completed"}),
        sse({"type": "response.completed", "response": {}}, "response.completed"),
    ],
}


@pytest.mark.parametrize("api", sorted(FINAL))
def test_the_final_event_counts_once_its_blank_line_passed_however_the_bytes_are_cut(api):
    stream = b"".join(FINAL[api])
    for cut in range(1, len(stream)):
        end = StreamEnd(api)
        end.feed(stream[:cut])
        assert not end.final, cut
        end.feed(stream[cut:])
        assert end.final and end.ended
    whole_but_last_newline = StreamEnd(api)
    whole_but_last_newline.feed(stream[:-1])
    assert not whole_but_last_newline.final  # the client cannot have dispatched it yet


def test_text_that_only_mentions_an_end_is_not_one():
    end = StreamEnd("anthropic")
    delta = {"type": "content_block_delta", "delta": {"text": '"type": "message_stop"'}}
    end.feed(sse(delta) + sse({"type": "message_delta", "note": "message_stop"}))
    assert not end.final and not end.ended
    chat_end = StreamEnd("openai-chat")
    chat_end.feed(chat({"content": "data: [DONE]"}) + chat({"content": '"finish_reason": "x"'}))
    assert not chat_end.final and not chat_end.ended


def test_a_chat_finish_reason_ends_the_reply_but_is_not_final():
    end = StreamEnd("openai-chat")
    end.feed(chat({"content": "hi"}))
    assert not end.ended
    end.feed(chat({}, "length"))
    assert end.ended and not end.final  # a usage chunk and [DONE] may follow


def test_gemini_ends_with_a_finish_reason_and_has_no_final_event():
    end = StreamEnd("gemini")
    part = {"candidates": [{"content": {"parts": [{"text": "hi"}]}, "index": 0}]}
    end.feed(sse(part))
    assert not end.ended
    end.feed(sse({"candidates": [{"content": {"parts": []}, "finishReason": "STOP"}]}))
    assert end.ended and not end.final
