"""Joining Ray: the session this process already has, a local embedded Ray, or a cluster."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager

from adhere.errors import ClusterError

__all__ = ["LOCAL", "ray_session"]

LOCAL = "local"
"""``--ray`` without an address: start a local (embedded) Ray for this process."""

log = logging.getLogger(__name__)


@contextmanager
def ray_session(address: str | None = None) -> Iterator[None]:
    """Be connected to Ray inside the block.

    When this process is already connected (``ray.init`` was called, as in tests),
    that session is used and left running. Otherwise the block starts one and shuts
    it down at the end:

    * ``None`` or ``"local"``: a local Ray for this process (the embedded default),
      without the dashboard. Workers run this process's Python: Ray's ``uv run``
      hook, which would copy the working directory into a fresh environment for the
      workers, is switched off unless ``RAY_ENABLE_UV_RUN_RUNTIME_ENV`` is set.
    * ``"auto"``: the cluster this machine belongs to (``RAY_ADDRESS`` or a running
      ``ray start``).
    * ``"ray://HOST:PORT"``: a remote cluster through Ray Client. Its workers need
      ``adhere`` installed (the ray worker image) and the judges' API keys.

    Raises:
        ClusterError: Ray cannot be started or the cluster cannot be reached.
    """
    local = address in (None, LOCAL)
    if local:
        # Read by Ray when it is imported: set before the (lazy) import below.
        os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    import ray

    if ray.is_initialized():
        yield
        return
    try:
        if local:
            ray.init(include_dashboard=False, logging_level=logging.WARNING)
        else:
            ray.init(address=address, logging_level=logging.WARNING)
    except Exception as exc:  # noqa: BLE001 - Ray raises a bare Exception on startup timeouts
        ray.shutdown()  # stops whatever part of a local Ray did start
        where = "start a local Ray" if local else f"reach the Ray cluster at {address}"
        raise ClusterError(f"cannot {where}: {exc}") from exc
    log.info("connected to Ray (%s)", "local" if local else address)
    try:
        yield
    finally:
        ray.shutdown()
