import random
import re

import pytest

from adhere.wire._sse import SseDecoder, SseEvent, encode_sse, iter_lines, iter_sse


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


async def lines_of(chunks):
    async def source():
        for chunk in chunks:
            yield chunk

    return [line async for line in iter_lines(source())]


@pytest.mark.parametrize(
    ("chunks", "lines"),
    [
        ([b"data: a\n\ndata: b\r\n\r\n"], ["data: a", "", "data: b", ""]),
        ([b"data: a\r", b"\n", b"\r"], ["data: a", ""]),  # CRLF cut between chunks
        ([b"one\rtwo\r", b"three"], ["one", "two", "three"]),  # bare CR, unterminated end
        (["é\u2028日\n".encode()[:1], "é\u2028日\n".encode()[1:]], ["é\u2028日"]),
        ([b"x" * 300_000 + b"\n"], ["x" * 300_000]),  # no limit on a line's length
        ([], []),
    ],
)
async def test_iter_lines_cuts_only_at_sse_line_ends(chunks, lines):
    assert await lines_of(chunks) == lines


async def test_iter_lines_does_not_care_where_chunks_are_cut():
    rng = random.Random(7)
    alphabet = ["a", "\r", "\n", "é", "\u2028", "日"]
    for _ in range(500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 25)))
        data = text.encode()
        cuts = sorted(rng.sample(range(len(data) + 1), min(len(data) + 1, rng.randint(0, 5))))
        chunks = [data[i:j] for i, j in zip([0, *cuts], [*cuts, len(data)], strict=True)]
        expected = re.split(r"\r\n|\r|\n", text)
        if expected[-1] == "":
            expected.pop()
        assert await lines_of(chunks) == expected, (text, chunks)
