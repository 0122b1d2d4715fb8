"""The real model server: ``adhere serve-model`` and adhere's clients against it.

Real, unscripted output from SmolLM2-135M-Instruct: the tests check that a reply
came and how it was shaped, never what it says. Replies are capped at a few tokens.
"""

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from adhere.core import ChatMessage
from adhere.models import open_client
from adhere.spec import Endpoint
from adhere.wire import ChatRequest
from tests.helpers import ROOT

ASK = ChatRequest(
    messages=(ChatMessage(role="user", content="Say hello in three words."),),
    system="You are a friendly assistant.",
    max_tokens=16,
)


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


def test_serve_model_answers_health_and_a_real_chat_completion() -> None:
    # --stop-after is the safety net; the test ends it with SIGTERM once answered
    # (tests/integration/models/test_local_model_process.py sees it stop by itself).
    proc = subprocess.Popen(
        [sys.executable, "-m", "adhere.cli", "serve-model", "--port", "0", "--stop-after", "240"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "300"},
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), proc.communicate(timeout=30)
        assert httpx.get(f"{url}/health").json() == {"status": "ok"}
        body = {
            "model": "smollm2",
            "messages": [{"role": "user", "content": "Say hello in three words."}],
            "max_tokens": 16,
        }
        reply = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=120).json()
        assert reply["object"] == "chat.completion"
        assert reply["choices"][0]["message"]["content"].strip()
        assert "SmolLM2-135M-Instruct" in reply["model"]
        assert 0 < reply["usage"]["completion_tokens"] <= 16
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, stderr
    assert "stops after 240 s" in stderr and "local model server stopped" in stderr
    pid = int(stderr.split("pid ", 1)[1].split(",", 1)[0])
    assert gone(pid)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_the_clients_get_real_replies(model_server, api: str, stream: bool) -> None:
    base = model_server.url + ("/v1" if api == "openai" else "")
    endpoint = Endpoint(api=api, base_url=base, model="smollm2", stream=stream, max_tokens=16)
    async with open_client(endpoint) as client:
        reply = await client.complete(ASK)
    assert reply.message.role == "assistant" and reply.message.content.strip()
    assert reply.attempts == 1
    assert reply.usage.input_tokens > 0 and 0 < reply.usage.output_tokens <= 16
    assert reply.stop_reason in {"stop", "length", "end_turn", "max_tokens"}
    assert "SmolLM2-135M-Instruct" in reply.model
