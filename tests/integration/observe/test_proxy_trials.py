"""Many trials through one proxy at once: each trial's records hold only its own calls."""

import asyncio
import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx

from adhere.core._chat import ChatMessage
from adhere.models import open_client
from adhere.observe._proxy import serve_proxy
from adhere.observe._proxy_config import ProxyConfig, Upstream
from adhere.observe._proxy_sinks import JsonlDirSink
from adhere.testing import PolicyServerConfig, ScriptStep, ThreadedPolicyServer
from adhere.wire import ChatRequest

ROOT = Path(__file__).resolve().parents[3]
SCRIPTS = {"hello": [ScriptStep(text="Hello!")]}
TRIALS = 16
TURNS = 3


async def run_trial(proxy, make_endpoint, index):
    trial = f"trial-{index:02d}"
    api = "anthropic" if index % 2 else "openai"
    config = make_endpoint(
        proxy.trial_base_url(trial, "m"), api, "script:agent,delay=0.05", stream=True
    )
    client = open_client(config)
    messages = [ChatMessage(role="user", content=f"I am {trial}; fix src/app.py")]
    try:
        for _ in range(TURNS):
            response = await client.complete(ChatRequest(messages=tuple(messages)))
            messages.append(response.message)
            messages.extend(
                ChatMessage(role="tool", tool_call_id=call.id, content=f"{trial} ran {call.name}")
                for call in response.message.tool_calls
            )
    finally:
        await client.aclose()
    return trial


async def test_concurrent_trials_keep_their_records_apart(policy, start_proxy, make_endpoint):
    proxy = await start_proxy({"m": policy.url})
    trials = await asyncio.gather(
        *(run_trial(proxy, make_endpoint, index) for index in range(TRIALS))
    )
    assert policy.stats["max_in_flight"] >= TRIALS // 2  # the calls really overlapped
    sink = proxy.config.sink
    assert sink.trials() == sorted(trials)
    for trial in trials:
        records = sink.take(trial)
        assert [record["seq"] for record in records] == list(range(TURNS))
        assert {record["trial"] for record in records} == {trial}
        assert all(record["stream"] and record["status"] == 200 for record in records)
        for record in records:
            text = json.dumps(record["request"])
            assert f"I am {trial};" in text
            others = [other for other in trials if other != trial]
            assert not any(f"I am {other};" in text for other in others)
        assert f"{trial} ran read_file" in json.dumps(records[-1]["request"])


def test_serve_proxy_records_to_jsonl_files(tmp_path):
    ready = threading.Event()
    urls = []
    with ThreadedPolicyServer(PolicyServerConfig(scripts=SCRIPTS)) as server:
        upstreams = {"m": Upstream("m", server.url)}
        config = ProxyConfig(upstreams=upstreams, sink=JsonlDirSink(tmp_path))
        thread = threading.Thread(
            target=serve_proxy,
            args=(config,),
            kwargs={"on_ready": lambda url: (urls.append(url), ready.set()), "stop_after": 1.0},
        )
        thread.start()
        try:
            assert ready.wait(10)
            base = f"{urls[0]}/t/jsonl-1/m"
            body = {"model": "script:hello", "messages": [{"role": "user", "content": "hi"}]}
            for stream in (False, True):
                answer = httpx.post(f"{base}/v1/chat/completions", json={**body, "stream": stream})
                assert answer.status_code == 200
        finally:
            thread.join(10)
    assert not thread.is_alive()
    lines = (tmp_path / "jsonl-1" / "calls.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert [record["seq"] for record in records] == [0, 1]
    assert [record["stream"] for record in records] == [False, True]
    assert records == [record.to_json_dict() for record in config.sink.read("jsonl-1")]


def test_serve_proxy_stops_on_ctrl_c():
    script = (
        "from adhere.observe._proxy import serve_proxy\n"
        "from adhere.observe._proxy_config import ProxyConfig\n"
        "from adhere.observe._proxy_sinks import MemorySink\n"
        "serve_proxy(ProxyConfig(upstreams={}, sink=MemorySink()),"
        " on_ready=lambda url: print(url, flush=True))\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        url = process.stdout.readline().strip()
        assert httpx.get(f"{url}/healthz").json() == {"status": "ok"}
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
