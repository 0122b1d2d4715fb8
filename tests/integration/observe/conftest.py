"""Fixtures: a scripted policy server and recording proxies, all on 127.0.0.1:0."""

import socket

import pytest
from aiohttp import web

from adhere.observe._proxy import RecordingProxy
from adhere.observe._proxy_config import ProxyConfig, Upstream
from adhere.observe._proxy_sinks import MemorySink
from adhere.spec._endpoint import Endpoint, Limits, SecretSource
from adhere.testing import PolicyServer, PolicyServerConfig, ScriptedCall, ScriptStep

SCRIPTS = {
    "hello": [ScriptStep(text="Hello there! How can I help you today?")],
    "agent": [
        ScriptStep(
            text="Reading the file.",
            reasoning="I need to see the file",
            tool_calls=(ScriptedCall("read_file", {"path": "src/app.py"}),),
        ),
        ScriptStep(
            tool_calls=(
                ScriptedCall("write_file", {"path": "src/app.py", "content": "print('ok')\n"}),
                ScriptedCall("run", {"cmd": ["pytest", "-q"]}),
            )
        ),
        ScriptStep(text="All done: the tests pass."),
    ],
}

FAST = Limits(
    concurrency=8,
    max_retries=2,
    timeout_seconds=10.0,
    backoff_base_seconds=0.01,
    backoff_max_seconds=0.05,
)


def _endpoint(base_url, api="openai", model="script:hello", *, key_env=None, **fields):
    """An endpoint at ``base_url`` (``/v1`` appended for OpenAI), with tiny back-off."""
    fields.setdefault("limits", FAST)
    return Endpoint(
        api=api,
        base_url=base_url + "/v1" if api == "openai" else base_url,
        model=model,
        api_key=SecretSource(env=key_env) if key_env else None,
        **fields,
    )


@pytest.fixture
def make_endpoint():
    """``make_endpoint(base_url, api, model, key_env=..., **fields)``: a client endpoint.

    OpenAI endpoints get ``/v1`` appended; limits default to tiny back-off.
    """
    return _endpoint


@pytest.fixture
def closed_port():
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
async def start_policy():
    """``await start_policy(**config)``: a scripted policy server; stopped after the test."""
    servers = []

    async def start(**fields):
        fields.setdefault("scripts", SCRIPTS)
        server = PolicyServer(PolicyServerConfig(**fields))
        await server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        await server.stop()


@pytest.fixture
async def policy(start_policy):
    """One scripted policy server that needs no key."""
    return await start_policy()


class JsonMemorySink(MemorySink):
    """A :class:`MemorySink` handing records over in their JSON form (as stored)."""

    def take(self, trial_id):
        return [record.to_json_dict() for record in super().take(trial_id)]


@pytest.fixture
async def start_proxy():
    """``await start_proxy(upstreams, secrets=())``: a proxy with a fresh JsonMemorySink.

    ``upstreams`` maps names to base URLs or to :class:`Upstream` objects.
    """
    proxies = []

    async def start(upstreams, *, secrets=(), sink=None):
        built = {
            name: value if isinstance(value, Upstream) else Upstream(name, value)
            for name, value in upstreams.items()
        }
        proxy = RecordingProxy(
            ProxyConfig(upstreams=built, sink=sink or JsonMemorySink(), secrets=secrets),
            shutdown_timeout=1.0,
        )
        await proxy.start()
        proxies.append(proxy)
        return proxy

    yield start
    for proxy in proxies:
        await proxy.stop()


@pytest.fixture
async def serve_app():
    """``await serve_app(app)``: serve an aiohttp app on 127.0.0.1:0 and return its URL."""
    runners = []

    async def serve(app):
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await runner.setup()
        runners.append(runner)
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        host, port = runner.addresses[0][:2]
        return f"http://{host}:{port}"

    yield serve
    for runner in runners:
        await runner.cleanup()
