"""Fixtures: a real scripted policy server on 127.0.0.1:0 in the test's event loop."""

import pytest

from adhere.errors import UnknownConversation
from adhere.spec._endpoint import Endpoint, Limits, SecretSource
from adhere.testing import PolicyServer, PolicyServerConfig, ScriptedCall, ScriptStep
from adhere.wire import Reply


class StubAnswerKey:
    """A tiny answer key: the first user message names the instance; items answer in tags."""

    def __init__(self, instances):
        self.instances = instances

    def answer(self, conversation, wrong):
        first = next(m.content for m in conversation.messages if m.role == "user")
        if first not in self.instances:
            raise UnknownConversation(f"no instance starts with {first!r}")
        instance_id, items = self.instances[first]
        parts = [
            f"<{key}>{'WRONG' if wrong(instance_id, key) else value}</{key}>"
            for key, value in items.items()
        ]
        return Reply(text=" ".join(parts))


ANSWER_KEY = StubAnswerKey(
    {
        "What is 2+2 and the capital of France?": ("inst-1", {"sum": "4", "capital": "Paris"}),
        "Name a prime.": ("inst-2", {"prime": "7"}),
    }
)

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
    max_retries=3,
    timeout_seconds=5.0,
    backoff_base_seconds=0.01,
    backoff_max_seconds=0.05,
)


def _make_endpoint(url, api="openai", model="script:hello", *, key_env=None, **fields):
    fields.setdefault("limits", FAST)
    return Endpoint(
        api=api,
        base_url=url + "/v1" if api == "openai" else url,
        model=model,
        api_key=SecretSource(env=key_env) if key_env else None,
        **fields,
    )


@pytest.fixture
async def start_server():
    """Start policy servers on free loopback ports; all stop when the test ends."""
    servers = []

    async def start(**config_fields):
        config_fields.setdefault("answer_key", ANSWER_KEY)
        config_fields.setdefault("scripts", SCRIPTS)
        server = PolicyServer(PolicyServerConfig(**config_fields))
        await server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        await server.stop()


@pytest.fixture
async def server(start_server):
    """One policy server with the stub answer key and the test scripts."""
    return await start_server()


@pytest.fixture
def make_endpoint():
    """``make_endpoint(url, api, model, key_env=..., **fields)``: an endpoint at the server.

    OpenAI endpoints get ``/v1`` appended; limits default to tiny back-off.
    """
    return _make_endpoint


@pytest.fixture
def answer_key():
    """The stub answer key the default server uses."""
    return ANSWER_KEY
