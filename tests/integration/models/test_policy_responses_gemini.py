"""The OpenAI Responses and Gemini generateContent shapes of the policy server, over real HTTP."""

import json
from urllib.parse import quote

import httpx
import pytest

from adhere.core._chat import ChatMessage, ToolCall
from adhere.testing import DictReplaySource
from adhere.wire import Conversation, Reply

CUSTOM_TOOL = {"type": "custom", "name": "apply_patch", "format": {"type": "grammar"}}


def events(text):
    """``(event, data)`` pairs of an SSE body (``event`` is ``None`` when unnamed)."""
    pairs = []
    for block in text.strip().split("\n\n"):
        name, data = None, []
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
        pairs.append((name, json.loads("\n".join(data))))
    return pairs


def responses_body(model, *, stream=False, **extra):
    return {
        "model": model,
        "instructions": "Be brief.",
        "input": [{"role": "user", "content": [{"type": "input_text", "text": "x"}]}],
        "stream": stream,
        **extra,
    }


def gemini_body(**extra):
    return {"contents": [{"role": "user", "parts": [{"text": "x"}]}], **extra}


async def test_responses_text_reply(server):
    async with httpx.AsyncClient(base_url=server.url) as http:
        reply = await http.post("/v1/responses", json=responses_body("script:hello"))
    document = reply.json()
    assert reply.status_code == 200
    assert document["object"] == "response" and document["status"] == "completed"
    assert document["id"].startswith("resp_")
    [message] = document["output"]
    assert message["type"] == "message" and message["role"] == "assistant"
    assert message["content"] == [
        {"type": "output_text", "text": "Hello there! How can I help you today?", "annotations": []}
    ]
    usage = document["usage"]
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"] > 0


async def test_responses_stream_with_reasoning_text_and_function_calls(server):
    body = responses_body("script:agent", stream=True)
    async with httpx.AsyncClient(base_url=server.url) as http:
        reply = await http.post("/t/trial-9/v1/responses", json=body)
    assert reply.headers["content-type"].startswith("text/event-stream")
    pairs = events(reply.text)
    assert all(name == data["type"] for name, data in pairs)
    kinds = [name for name, _ in pairs]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed"
    assert [data["sequence_number"] for _, data in pairs] == list(range(len(pairs)))
    assert "response.reasoning_summary_text.delta" in kinds
    message = kinds.index("response.content_part.added")
    assert kinds[message - 1] == "response.output_item.added"
    assert kinds[message + 1] == "response.output_text.delta"
    for kind in ("output_text.done", "content_part.done", "function_call_arguments.done"):
        assert f"response.{kind}" in kinds
    deltas = [data["delta"] for name, data in pairs if name.endswith("arguments.delta")]
    assert len(deltas) > 1 and json.loads("".join(deltas)) == {"path": "src/app.py"}
    done = [data["item"] for name, data in pairs if name == "response.output_item.done"]
    assert [item["type"] for item in done] == ["reasoning", "message", "function_call"]
    assert done[2]["name"] == "read_file" and done[2]["call_id"].startswith("call_")
    final = pairs[-1][1]["response"]
    assert final["output"] == done and final["usage"]["output_tokens"] > 0
    assert server.stats["by_api"] == {"responses": 1}
    assert server.stats["by_trial"] == {"trial-9": 1}


async def test_responses_function_calls_and_free_form_tools(start_server):
    recorded = Conversation(
        model="replay",
        policy="replay",
        options={},
        system="Be brief.",
        messages=(ChatMessage(role="user", content="x"),),
    )
    calls = (
        ToolCall(id="call_a", name="apply_patch", arguments={"input": "*** Begin Patch\n"}),
        ToolCall(id="call_b", name="shell", arguments={"cmd": "ls"}),
    )
    server = await start_server(replay=DictReplaySource({recorded.digest: Reply(tool_calls=calls)}))
    tools = [CUSTOM_TOOL, {"type": "function", "name": "shell", "parameters": {}}]
    async with httpx.AsyncClient(base_url=server.url) as http:
        plain = await http.post("/v1/responses", json=responses_body("replay", tools=tools))
        streamed = await http.post(
            "/v1/responses", json=responses_body("replay", tools=tools, stream=True)
        )
    items = plain.json()["output"]
    assert [item["type"] for item in items] == ["custom_tool_call", "function_call"]
    assert items[0]["input"] == "*** Begin Patch\n" and items[0]["call_id"] == "call_a"
    assert items[1]["arguments"] == '{"cmd": "ls"}'
    kinds = [name for name, _ in events(streamed.text)]
    assert "response.custom_tool_call_input.delta" in kinds
    assert "response.custom_tool_call_input.done" in kinds


async def test_one_conversation_has_one_digest_through_every_api(start_server):
    """Responses, Chat Completions and Gemini map the same history to the same digest."""
    history = (
        ChatMessage(role="user", content="Read a.md"),
        ChatMessage(
            role="assistant",
            content="Reading.",
            tool_calls=(ToolCall(id="call_1", name="read", arguments={"path": "a.md"}),),
        ),
        ChatMessage(role="tool", content="# A", tool_call_id="call_1"),
    )
    recorded = Conversation(
        model="replay", policy="replay", options={}, system="Sys.\n\nDev.", messages=history
    )
    server = await start_server(replay=DictReplaySource({recorded.digest: Reply(text="same")}))
    responses = {
        "model": "replay",
        "instructions": "Sys.",
        "input": [
            {"type": "message", "role": "developer", "content": "Dev."},
            {"type": "message", "role": "user", "content": "Read a.md"},
            {"type": "reasoning", "summary": [{"type": "summary_text", "text": "hmm"}]},
            {"type": "message", "role": "assistant", "content": "Reading."},
            {
                "type": "function_call",
                "call_id": "call_1",
                "name": "read",
                "arguments": '{"path": "a.md"}',
            },
            {"type": "function_call_output", "call_id": "call_1", "output": "# A"},
        ],
    }
    chat = {
        "model": "replay",
        "messages": [
            {"role": "system", "content": "Sys."},
            {"role": "developer", "content": "Dev."},
            {"role": "user", "content": "Read a.md"},
            {
                "role": "assistant",
                "content": "Reading.",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "read", "arguments": '{"path": "a.md"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "# A"},
        ],
    }
    gemini = {
        "systemInstruction": {"parts": [{"text": "Sys."}, {"text": "Dev."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "Read a.md"}]},
            {
                "role": "model",
                "parts": [
                    {"text": "Reading."},
                    {"functionCall": {"id": "call_1", "name": "read", "args": {"path": "a.md"}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "xyz",
                            "name": "read",
                            "response": {"output": "# A"},
                        }
                    }
                ],
            },
        ],
    }
    async with httpx.AsyncClient(base_url=server.url) as http:
        one = await http.post("/v1/responses", json=responses)
        two = await http.post("/v1/chat/completions", json=chat)
        three = await http.post("/v1beta/models/replay:generateContent", json=gemini)
    assert one.json()["output"][0]["content"][0]["text"] == "same"
    assert two.json()["choices"][0]["message"]["content"] == "same"
    assert three.json()["candidates"][0]["content"]["parts"] == [{"text": "same"}]


async def test_gemini_reply_and_sse_stream(server):
    url = "/v1beta/models/script:agent:streamGenerateContent?alt=sse"
    async with httpx.AsyncClient(base_url=server.url) as http:
        plain = await http.post("/v1beta/models/script:hello:generateContent", json=gemini_body())
        streamed = await http.post(url, json=gemini_body())
        array = await http.post(url.split("?")[0], json=gemini_body())
    document = plain.json()
    candidate = document["candidates"][0]
    assert candidate["content"] == {
        "role": "model",
        "parts": [{"text": "Hello there! How can I help you today?"}],
    }
    assert candidate["finishReason"] == "STOP"
    usage = document["usageMetadata"]
    assert usage["totalTokenCount"] == usage["promptTokenCount"] + usage["candidatesTokenCount"]
    assert document["modelVersion"] == "script:hello"
    chunks = [data for _, data in events(streamed.text)]
    parts = [part for chunk in chunks for part in chunk["candidates"][0]["content"]["parts"]]
    assert parts[0]["thought"] is True
    assert "".join(p["text"] for p in parts if p.get("thought")) == "I need to see the file"
    assert "".join(p["text"] for p in parts if "text" in p and not p.get("thought")) == (
        "Reading the file."
    )
    assert parts[-1]["functionCall"]["name"] == "read_file"
    assert parts[-1]["functionCall"]["args"] == {"path": "src/app.py"}
    assert [("finishReason" in c["candidates"][0]) for c in chunks] == [False] * (
        len(chunks) - 1
    ) + [True]
    assert "usageMetadata" in chunks[-1]
    assert array.headers["content-type"].startswith("application/json")
    assert array.json() == chunks


async def test_gemini_model_comes_from_the_encoded_path(server):
    model = quote("agent:read,file=docs/a b.md", safe="")
    body = gemini_body(
        tools=[
            {
                "functionDeclarations": [
                    {
                        "name": "read_file",
                        "parameters": {
                            "type": "OBJECT",
                            "properties": {"file_path": {"type": "STRING"}},
                        },
                    }
                ]
            },
            {"googleSearch": {}},
        ]
    )
    async with httpx.AsyncClient(base_url=server.url) as http:
        reply = await http.post(f"/t/t%201/v1beta/models/{model}:generateContent", json=body)
    part = reply.json()["candidates"][0]["content"]["parts"][-1]
    assert part["functionCall"]["name"] == "read_file"
    assert part["functionCall"]["args"] == {"file_path": "docs/a b.md"}
    assert server.stats["by_model"] == {"agent:read,file=docs/a b.md": 1}
    assert server.stats["by_trial"] == {"t 1": 1}


@pytest.mark.parametrize(
    ("body", "status", "field", "fragment"),
    [
        ({"contents": []}, 400, "contents", "at least one content"),
        ({"contents": [{"role": "robot", "parts": []}]}, 400, "contents[0].role", "robot"),
        (
            {"contents": [{"parts": [{"inlineData": {"data": "x"}}]}]},
            400,
            "contents[0].parts[0]",
            "unsupported part",
        ),
    ],
)
async def test_gemini_errors_use_googles_shape(server, body, status, field, fragment):
    async with httpx.AsyncClient(base_url=server.url) as http:
        reply = await http.post("/v1beta/models/oracle:generateContent", json=body)
    error = reply.json()["error"]
    assert reply.status_code == status == error["code"]
    assert error["status"] == "INVALID_ARGUMENT" and fragment in error["message"]
    assert error["details"][0]["fieldViolations"][0]["field"] == field


async def test_gemini_and_responses_not_found_and_unknown_conversation(server):
    async with httpx.AsyncClient(base_url=server.url) as http:
        gemini = await http.post(
            "/v1beta/models/gemini-2.5-pro:generateContent", json=gemini_body()
        )
        unplaced = await http.post("/v1beta/models/oracle:generateContent", json=gemini_body())
        responses = await http.post("/v1/responses", json=responses_body("gpt-5"))
        stateful = await http.post(
            "/v1/responses", json=responses_body("oracle", previous_response_id="resp_1")
        )
        wrong_method = await http.get("/v1beta/models/oracle:generateContent")
        nowhere = await http.post("/v1beta/models/oracle:countTokens", json={})
    assert gemini.status_code == 404 and gemini.json()["error"]["status"] == "NOT_FOUND"
    assert unplaced.status_code == 422
    assert unplaced.json()["error"]["status"] == "FAILED_PRECONDITION"
    assert responses.status_code == 404
    assert responses.json()["error"]["code"] == "model_not_found"
    assert stateful.status_code == 400
    assert stateful.json()["error"]["param"] == "previous_response_id"
    assert wrong_method.status_code == 405 and wrong_method.json()["error"]["code"] == 405
    assert nowhere.status_code == 404 and nowhere.json()["error"]["status"] == "NOT_FOUND"


async def test_fault_options_in_the_new_shapes(server):
    model = "script:hello,fail_first=1,fail_status=429,retry_after=3"
    gemini_url = f"/v1beta/models/{quote(model, safe='')}:generateContent"
    async with httpx.AsyncClient(base_url=server.url) as http:
        first = await http.post("/v1/responses", json=responses_body(model))
        second = await http.post("/v1/responses", json=responses_body(model))
        gemini_first = await http.post(gemini_url, json=gemini_body())
        gemini_second = await http.post(gemini_url, json=gemini_body())
    assert first.status_code == 429 and first.headers["retry-after"] == "3"
    assert first.json()["error"]["code"] == "rate_limit_exceeded"
    assert second.status_code == 200
    assert gemini_first.status_code == 429 and gemini_first.headers["retry-after"] == "3"
    assert gemini_first.json()["error"]["status"] == "RESOURCE_EXHAUSTED"
    assert gemini_second.status_code == 200


async def test_api_keys_for_the_new_shapes(start_server):
    server = await start_server(require_api_key="sk-secret")
    url = "/v1beta/models/script:hello:generateContent"
    async with httpx.AsyncClient(base_url=server.url) as http:
        missing = await http.post(url, json=gemini_body())
        wrong = await http.post(url, json=gemini_body(), headers={"x-goog-api-key": "nope"})
        header = await http.post(url, json=gemini_body(), headers={"x-goog-api-key": "sk-secret"})
        query = await http.post(url + "?key=sk-secret", json=gemini_body())
        responses_missing = await http.post("/v1/responses", json=responses_body("script:hello"))
        responses_ok = await http.post(
            "/v1/responses",
            json=responses_body("script:hello"),
            headers={"Authorization": "Bearer sk-secret"},
        )
    assert missing.status_code == 401 and missing.json()["error"]["status"] == "UNAUTHENTICATED"
    assert "x-goog-api-key" in missing.json()["error"]["message"]
    assert wrong.status_code == 401 and "sk-secret" not in wrong.text
    assert header.status_code == 200 and query.status_code == 200
    assert responses_missing.status_code == 401
    assert responses_missing.json()["error"]["code"] == "invalid_api_key"
    assert responses_ok.status_code == 200
