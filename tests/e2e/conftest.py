"""Shared fixtures of the end-to-end tests (real agent CLIs, real local servers, a real model)."""

import asyncio
import shutil

import pytest

from adhere.errors import ModelServerError
from adhere.models import ModelServer, ModelServerSettings
from adhere.scaffolds import default_cache_dir, installable
from adhere.scaffolds.install import install_scaffolds


@pytest.fixture(scope="session")
def scaffold_cache():
    """The scaffold cache with every pinned agent CLI installed (from npm, once, cached).

    The cache is ``$ADHERE_SCAFFOLD_CACHE`` or ``~/.cache/adhere/scaffolds``, outside
    the repository, so a fresh machine installs once and later sessions reuse it.
    """
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("Node.js and npm are needed to install the agent CLIs (stock toolchain)")
    cache = default_cache_dir()
    results = asyncio.run(install_scaffolds(installable(), cache))
    failed = {name: error for name, error in results.items() if error != "ok"}
    if failed:
        pytest.fail(f"installing scaffold CLIs failed: {failed}")
    return cache


@pytest.fixture(scope="session")
def model_server():
    """A running real model server (llama.cpp's server, SmolLM2-135M-Instruct) on 127.0.0.1.

    One for the session, 4 slots; its base URL is ``model_server.url`` (no ``/v1``).
    Installed by ``bash scripts/install-model-server.sh`` (``scripts/test.sh`` runs
    it); without it the tests that use this fixture fail with that hint.
    """
    server = ModelServer(ModelServerSettings.from_env())
    try:
        asyncio.run(server.start())  # from this thread, which outlives the server
    except ModelServerError as exc:
        pytest.fail(str(exc))
    try:
        yield server
    finally:
        server.stop()
