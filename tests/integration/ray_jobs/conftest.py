"""One local Ray for every test of this directory (starting it takes ~15-20 s here)."""

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def local_ray() -> Iterator[None]:
    # Workers run this interpreter; Ray's `uv run` hook would build a fresh venv per
    # worker from a copy of the working directory (as adhere.ray_jobs.ray_session does).
    os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()
