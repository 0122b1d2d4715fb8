"""Responses API and Gemini through the proxy, against a canned upstream in those shapes."""

import asyncio
import copy
import json

import httpx
import pytest
from aiohttp import web

from adhere.observe._proxy_config import Upstream

RESPONSE = {
    "id": "resp_0001",
    "object": "response",
    "created_at": 1760000000,
    "status": "completed",
    "model": "gpt-canned",
    "error": None,
    "incomplete_details": None,
    "output": [
        {
            "id": "rs_1",
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "Look at the file before editing."}],
        },
        {
            "id": "msg_1",
            "type": "message",
            "status": "completed",
            "role": "assistant",
            "content": [
                {"type": "output_text", "text": "Let me read it first.", "annotations": []}
            ],
        },
        {
            "id": "fc_1",
            "type": "function_call",
            "status": "completed",
            "call_id": "call_1",
            "name": "read_file",
            "arguments": '{"path": "src/app.py"}',
        },
        {
            "id": "ctc_1",
            "type": "custom_tool_call",
            "status": "completed",
            "call_id": "call_2",
            "name": "apply_patch",
            "input": "*** Begin Patch\n*** Update File: src/app.py\n*** End Patch\n",
        },
    ],
    "usage": {
        "input_tokens": 120,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 31,
        "output_tokens_details": {"reasoning_tokens": 8},
        "total_tokens": 151,
    },
}

GEMINI = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "The file needs a look.", "thought": True},
                    {"text": "Let me read the file first."},
                    {
                        "functionCall": {"name": "read_file", "args": {"path": "src/app.py"}},
                        "thoughtSignature": "c2lnbmF0dXJl",
                    },
                ],
            },
            "finishReason": "STOP",
            "index": 0,
        }
    ],
    "usageMetadata": {
        "promptTokenCount": 50,
        "candidatesTokenCount": 12,
        "thoughtsTokenCount": 5,
        "totalTokenCount": 67,
    },
    "modelVersion": "gemini-canned",
    "responseId": "gem-0001",
}


def pieces(text, size=7):
    return [text[start : start + size] for start in range(0, len(text), size)]


def responses_events():
    """The event sequence a Responses API server sends for RESPONSE."""
    events = []

    def emit(kind, **fields):
        events.append((kind, {"type": kind, "sequence_number": len(events), **fields}))

    opening = {**copy.deepcopy(RESPONSE), "status": "in_progress", "output": [], "usage": None}
    emit("response.created", response=opening)
    emit("response.in_progress", response=opening)
    for index, item in enumerate(RESPONSE["output"]):
        ident = item["id"]
        common = {"item_id": ident, "output_index": index}
        if item["type"] == "reasoning":
            emit("response.output_item.added", output_index=index, item={**item, "summary": []})
            text = item["summary"][0]["text"]
            part = {"type": "summary_text", "text": ""}
            emit("response.reasoning_summary_part.added", **common, summary_index=0, part=part)
            for piece in pieces(text):
                emit(
                    "response.reasoning_summary_text.delta", **common, summary_index=0, delta=piece
                )
            emit("response.reasoning_summary_text.done", **common, summary_index=0, text=text)
        elif item["type"] == "message":
            added = {**item, "status": "in_progress", "content": []}
            emit("response.output_item.added", output_index=index, item=added)
            text = item["content"][0]["text"]
            part = {"type": "output_text", "text": "", "annotations": []}
            emit("response.content_part.added", **common, content_index=0, part=part)
            for piece in pieces(text):
                emit("response.output_text.delta", **common, content_index=0, delta=piece)
            emit("response.output_text.done", **common, content_index=0, text=text)
            emit("response.content_part.done", **common, content_index=0, part=item["content"][0])
        elif item["type"] == "function_call":
            added = {**item, "status": "in_progress", "arguments": ""}
            emit("response.output_item.added", output_index=index, item=added)
            for piece in pieces(item["arguments"]):
                emit("response.function_call_arguments.delta", **common, delta=piece)
            emit("response.function_call_arguments.done", **common, arguments=item["arguments"])
        else:
            added = {**item, "status": "in_progress", "input": ""}
            emit("response.output_item.added", output_index=index, item=added)
            for piece in pieces(item["input"]):
                emit("response.custom_tool_call_input.delta", **common, delta=piece)
            emit("response.custom_tool_call_input.done", **common, input=item["input"])
        emit("response.output_item.done", output_index=index, item=item)
    emit("response.completed", response=RESPONSE)
    return events


def gemini_chunks():
    """The chunks a Gemini server streams for GEMINI (usage grows; finish comes last)."""
    head = {"modelVersion": "gemini-canned", "responseId": "gem-0001"}
    early_usage = {"promptTokenCount": 50, "totalTokenCount": 50}
    parts = [
        {"text": "The file ", "thought": True},
        {"text": "needs a look.", "thought": True},
        {"text": "Let me read "},
        {"text": "the file first."},
        GEMINI["candidates"][0]["content"]["parts"][2],
    ]
    chunks = [
        {
            "candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}],
            "usageMetadata": early_usage,
            **head,
        }
        for part in parts
    ]
    chunks.append(
        {
            "candidates": [
                {"content": {"role": "model", "parts": []}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": GEMINI["usageMetadata"],
            **head,
        }
    )
    return chunks


def canned_app(seen):
    """An upstream speaking the Responses API and the Gemini API with canned replies.

    Each request's headers and query are appended to ``seen``.
    """
    app = web.Application()

    async def sse(request, events):
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            await response.write(f"{head}data: {json.dumps(data)}\n\n".encode())
            await asyncio.sleep(0)
        await response.write_eof()
        return response

    async def responses(request):
        body = await request.json()
        seen.append({"headers": dict(request.headers), "query": request.query_string})
        if not body.get("stream"):
            return web.json_response(RESPONSE, headers={"x-request-id": "req-canned"})
        return await sse(request, responses_events())

    async def gemini(request):
        await request.read()
        seen.append({"headers": dict(request.headers), "query": request.query_string})
        action = request.match_info["action"]
        if action == "generateContent":
            return web.json_response(GEMINI)
        if request.query.get("alt") == "sse":
            return await sse(request, [(None, chunk) for chunk in gemini_chunks()])
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        chunks = gemini_chunks()
        for index, chunk in enumerate(chunks):
            await response.write((("[" if index == 0 else ",\n") + json.dumps(chunk)).encode())
        await response.write(b"]")
        await response.write_eof()
        return response

    app.router.add_post("/v1/responses", responses)
    app.router.add_post("/v1beta/models/{model}:{action}", gemini)
    return app


class Canned:
    def __init__(self, url, seen):
        self.url = url
        self.seen = seen


@pytest.fixture
async def canned(serve_app):
    seen = []
    return Canned(await serve_app(canned_app(seen)), seen)


@pytest.fixture
async def proxy(canned, start_proxy):
    return await start_proxy(
        {
            "o": Upstream("o", canned.url + "/v1", "sk-proj-RealOpenAIKey0123456789abcdef"),
            "g": Upstream("g", canned.url, "AIzaRealGeminiKey-0123456789abcdefghijk"),
        }
    )


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_responses_api_is_recorded_in_the_plain_shape(canned, proxy, stream):
    base = proxy.trial_base_url("codex-1", "o")
    body = {"model": "gpt-canned", "input": [{"role": "user", "content": "fix it"}]}
    headers = {"Authorization": "Bearer sk-dummy-codex"}
    async with httpx.AsyncClient() as http:
        answer = await http.post(
            f"{base}/v1/responses", json={**body, "stream": stream}, headers=headers
        )
    assert answer.status_code == 200
    if stream:
        assert answer.headers["content-type"].startswith("text/event-stream")
        assert answer.text.count("\n\n") == len(responses_events())
    else:
        assert answer.json() == RESPONSE
        assert answer.headers["x-request-id"] == "req-canned"
    [upstream_saw] = canned.seen
    assert upstream_saw["headers"]["Authorization"] == (
        "Bearer sk-proj-RealOpenAIKey0123456789abcdef"
    )
    [record] = proxy.config.sink.take("codex-1")
    assert record["api"] == "openai-responses" and record["path"] == "/v1/responses"
    assert record["stream"] is stream and record["status"] == 200 and record["error"] is None
    assert record["response"] == RESPONSE
    assert record["sse_events"] == (len(responses_events()) if stream else 0)
    assert record["usage"] == {"input_tokens": 120, "output_tokens": 31, "reasoning_tokens": 8}
    assert record["request"]["input"] == body["input"]


@pytest.mark.parametrize("mode", ["plain", "sse", "json-array"])
async def test_gemini_is_recorded_in_the_plain_shape(canned, proxy, mode):
    base = proxy.trial_base_url("gem-1", "g") + "/v1beta/models/gemini-canned"
    url, query = {
        "plain": (f"{base}:generateContent", ""),
        "sse": (f"{base}:streamGenerateContent?alt=sse", "alt=sse"),
        "json-array": (f"{base}:streamGenerateContent", ""),
    }[mode]
    body = {"contents": [{"role": "user", "parts": [{"text": "fix it"}]}]}
    async with httpx.AsyncClient() as http:
        answer = await http.post(url, json=body, headers={"x-goog-api-key": "dummy-gemini"})
    assert answer.status_code == 200
    if mode == "plain":
        assert answer.json() == GEMINI
    elif mode == "sse":
        assert answer.text.count("data: ") == len(gemini_chunks())
    else:
        assert answer.json() == gemini_chunks()
    [upstream_saw] = canned.seen
    assert upstream_saw["headers"]["x-goog-api-key"] == "AIzaRealGeminiKey-0123456789abcdefghijk"
    assert upstream_saw["query"] == query
    [record] = proxy.config.sink.take("gem-1")
    assert record["api"] == "gemini" and record["stream"] is (mode != "plain")
    assert record["query"] == query and record["status"] == 200 and record["error"] is None
    assert record["response"] == GEMINI
    assert record["usage"] == {"input_tokens": 50, "output_tokens": 17, "reasoning_tokens": 5}
    assert record["sse_events"] == (len(gemini_chunks()) if mode == "sse" else 0)
