from adhere.models._sse import SseDecoder, SseEvent, encode_sse, iter_sse


def decode(text):
    decoder = SseDecoder()
    events = []
    for line in text.split("\n"):
        event = decoder.feed(line)
        if event is not None:
            events.append(event)
    return events


def test_decoder_follows_the_rules():
    text = ": comment\nevent: ping\ndata: {}\n\ndata: a\ndata: b\nid: 7\n\n\nevent: lonely\n\n"
    assert decode(text) == [SseEvent("ping", "{}"), SseEvent("message", "a\nb")]


def test_encode_round_trips():
    raw = encode_sse('{"x": 1}', "message_start") + encode_sse("two\nlines")
    assert decode(raw.decode()) == [
        SseEvent("message_start", '{"x": 1}'),
        SseEvent("message", "two\nlines"),
    ]


async def test_iter_sse_drops_an_unterminated_event():
    async def lines():
        for line in ["data: whole", "", "data: cut"]:
            yield line

    assert [event async for event in iter_sse(lines())] == [SseEvent("message", "whole")]
