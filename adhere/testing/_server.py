"""Running the scripted policy server: in the caller's event loop or in a thread of its own."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping
from types import TracebackType
from typing import Any

from aiohttp import web

from adhere.testing._app import STATS_KEY, PolicyServerConfig, create_app

__all__ = ["PolicyServer", "ThreadedPolicyServer"]

_START_TIMEOUT = 30.0


class PolicyServer:
    """The scripted policy server (a test double for model endpoints) in the running loop.

    Args:
        config: Policies, answer key, scripts and auth.
        host: Interface to bind; loopback by default.
        port: Port to bind; 0 picks a free one (read it from :meth:`start`'s URL).
        shutdown_timeout: Seconds :meth:`stop` waits for requests in progress.
    """

    def __init__(
        self,
        config: PolicyServerConfig,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        shutdown_timeout: float = 2.0,
    ) -> None:
        self.config = config
        self.host = host
        self.port = port
        self._app = create_app(config)
        self._shutdown_timeout = shutdown_timeout
        self._runner: web.AppRunner | None = None
        self._url: str | None = None

    @property
    def url(self) -> str:
        """Base URL of the running server, e.g. ``http://127.0.0.1:8123``."""
        if self._url is None:
            raise RuntimeError("the policy server is not running")
        return self._url

    @property
    def stats(self) -> Mapping[str, Any]:
        """A snapshot of the request counters (as served at ``/_adhere/stats``)."""
        return self._app[STATS_KEY].snapshot()

    async def start(self) -> str:
        """Bind and serve; return the base URL (without ``/v1``)."""
        if self._runner is not None:
            raise RuntimeError("the policy server is already running")
        runner = web.AppRunner(self._app, access_log=None, shutdown_timeout=self._shutdown_timeout)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.host, self.port)
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        host, port = runner.addresses[0][:2]
        self._url = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
        return self._url

    async def stop(self) -> None:
        """Stop serving; a no-op when not running."""
        runner, self._runner, self._url = self._runner, None, None
        if runner is not None:
            await runner.cleanup()

    async def __aenter__(self) -> PolicyServer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()


class ThreadedPolicyServer:
    """The scripted policy server in a background thread with its own event loop.

    For synchronous callers, benchmarks and the CLI. Arguments as for
    :class:`PolicyServer`.
    """

    def __init__(
        self,
        config: PolicyServerConfig,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        shutdown_timeout: float = 2.0,
    ) -> None:
        self._server = PolicyServer(config, host, port, shutdown_timeout=shutdown_timeout)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Base URL of the running server."""
        return self._server.url

    @property
    def stats(self) -> Mapping[str, Any]:
        """A snapshot of the request counters."""
        return self._server.stats

    def start(self) -> str:
        """Start the thread and the server; return the base URL."""
        if self._thread is not None:
            raise RuntimeError("the policy server is already running")
        loop = asyncio.new_event_loop()
        thread = threading.Thread(
            target=self._run, args=(loop,), name="adhere-policy-server", daemon=True
        )
        thread.start()
        self._loop, self._thread = loop, thread
        try:
            future = asyncio.run_coroutine_threadsafe(self._server.start(), loop)
            return future.result(timeout=_START_TIMEOUT)
        except BaseException:
            self._halt()
            raise

    def stop(self) -> None:
        """Stop the server and join the thread; a no-op when not running."""
        if self._loop is None:
            return
        try:
            future = asyncio.run_coroutine_threadsafe(self._server.stop(), self._loop)
            future.result(timeout=_START_TIMEOUT)
        finally:
            self._halt()

    def __enter__(self) -> ThreadedPolicyServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def _halt(self) -> None:
        loop, thread = self._loop, self._thread
        self._loop = self._thread = None
        if loop is not None:
            loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join()

    @staticmethod
    def _run(loop: asyncio.AbstractEventLoop) -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()
