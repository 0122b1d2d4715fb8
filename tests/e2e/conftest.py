"""Shared fixtures of the end-to-end tests (real agent CLIs, real local servers)."""

import asyncio
import shutil

import pytest

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
