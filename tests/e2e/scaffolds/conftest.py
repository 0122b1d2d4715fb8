"""Fixtures: a scripted policy server that also keeps every conversation it answered."""

import pytest

from adhere.testing import PolicyServer, PolicyServerConfig
from tests.e2e.scaffolds.scaffold_support import Harness, Recorder, recording_registry


@pytest.fixture
async def start_server():
    """Start a policy server with the given scripts (stopped after the test)."""
    started: list[PolicyServer] = []

    async def start(scripts=None) -> Harness:
        recorder = Recorder()
        config = PolicyServerConfig(scripts=scripts or {}, registry=recording_registry(recorder))
        server = PolicyServer(config)
        await server.start()
        started.append(server)
        return Harness(server, recorder)

    try:
        yield start
    finally:
        for server in started:
            await server.stop()
