"""Planted secrets never reach a record or a log line."""

import json
import logging

import httpx
from aiohttp import web

from adhere.core._chat import ChatMessage
from adhere.models import open_client
from adhere.observe._proxy_config import Upstream
from adhere.testing import ScriptStep
from adhere.wire import ChatRequest

UPSTREAM_KEY = "sk-ant-api03-Upstream0Key1For2The3Policy4Server"
GEMINI_KEY = "AIzaSyUpstreamGeminiKey0123456789abcdEF"
CONFIGURED = "corp-token-7f3a9b2c"
DUMMY = "dummy-client-key-1234"
QUERY_KEY = "AIzaSyClientQueryKey-0123456789abcdefgh"
SHAPED = "sk-proj-Body1Key2Leak3ABCDEFGHIJ"
SECRETS = [UPSTREAM_KEY, GEMINI_KEY, CONFIGURED, DUMMY, QUERY_KEY, SHAPED]


def gemini_echo_app():
    """A Gemini upstream that echoes the request and the key it was given (a leaky server)."""

    async def generate(request):
        body = await request.text()
        text = f"you said {body} with key {request.headers.get('x-goog-api-key')}"
        return web.json_response(
            {
                "candidates": [
                    {"content": {"role": "model", "parts": [{"text": text}]}, "index": 0}
                ],
                "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 4},
            }
        )

    app = web.Application()
    app.router.add_post("/v1beta/models/{model}:generateContent", generate)
    return app


async def test_planted_secrets_never_reach_records_or_logs(
    start_policy, start_proxy, serve_app, make_endpoint, caplog
):
    caplog.set_level(logging.DEBUG)
    scripts = {"echo": [ScriptStep(text=f"Your token is {CONFIGURED} and {SHAPED}.")]}
    policy = await start_policy(require_api_key=UPSTREAM_KEY, scripts=scripts)
    gemini = await serve_app(gemini_echo_app())
    proxy = await start_proxy(
        {
            "m": Upstream("m", policy.url, UPSTREAM_KEY),
            "g": Upstream("g", gemini, GEMINI_KEY),
        },
        secrets=[CONFIGURED],
    )
    text = f"my tokens: token={CONFIGURED}; {SHAPED}; {DUMMY}; also {UPSTREAM_KEY}"
    request = ChatRequest(messages=(ChatMessage(role="user", content=text),))
    for api in ("openai", "anthropic"):
        for stream in (False, True):
            config = make_endpoint(
                proxy.trial_base_url("t", "m"), api, "script:echo", key_env="K", stream=stream
            )
            client = open_client(config, env={"K": DUMMY})
            try:
                response = await client.complete(request)
            finally:
                await client.aclose()
            assert CONFIGURED in response.message.content  # the client sees what upstream said
    url = proxy.trial_base_url("t", "g") + "/v1beta/models/gemini-x:generateContent"
    async with httpx.AsyncClient() as http:
        answer = await http.post(
            f"{url}?key={QUERY_KEY}&alt=json",
            json={"contents": [{"role": "user", "parts": [{"text": text}]}]},
        )
    assert answer.status_code == 200
    assert GEMINI_KEY in answer.text  # the leaky upstream echoed it to the client

    records = proxy.config.sink.take("t")
    assert len(records) == 5
    dumped = json.dumps(records, ensure_ascii=False)
    assert [secret for secret in SECRETS if secret in dumped] == []
    # The proxy's and aiohttp's log lines (httpx, the test's own client, logs its URLs).
    logged = "\n".join(
        f"{record.getMessage()} {record.exc_text or ''}"
        for record in caplog.records
        if not record.name.startswith(("httpx", "httpcore"))
    )
    assert [secret for secret in SECRETS if secret in logged] == []
    assert records[-1]["query"] == "key=[redacted]&alt=json"
    assert "my tokens: token=[redacted]; [redacted]; [redacted]; also [redacted]" in dumped
    assert "Your token is [redacted] and [redacted]." in dumped
    assert "with key [redacted]" in dumped
    assert any("trial t call 4" in line for line in caplog.messages)
