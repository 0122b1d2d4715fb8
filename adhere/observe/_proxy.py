"""Running the recording proxy: in the caller's event loop, or in the foreground until Ctrl-C."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable
from types import TracebackType

import aiohttp
from aiohttp import web

from adhere.observe._proxy_app import INFLIGHT_KEY, SESSION_KEY, create_proxy_app
from adhere.observe._proxy_config import ProxyConfig
from adhere.observe._proxy_inflight import DEFAULT_SETTLE_SECONDS, InFlight, Settled

__all__ = ["RecordingProxy", "serve_proxy"]


class RecordingProxy:
    """An HTTP proxy that forwards model API calls and records every one of them.

    Calls arrive at ``/t/<trial-id>/<upstream>/<api-path>`` and go to the named
    upstream (see ``docs/proxy.md``). Runs in the current event loop; one upstream
    connection pool is shared by all trials.

    Args:
        config: Upstreams, sink, secrets, address.
        shutdown_timeout: Seconds :meth:`stop` lets calls in progress finish; calls
            still running then are cut and recorded with an error.
    """

    def __init__(self, config: ProxyConfig, *, shutdown_timeout: float = 5.0) -> None:
        self.config = config
        self._shutdown_timeout = shutdown_timeout
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self._url: str | None = None
        self._inflight: InFlight | None = None

    @property
    def url(self) -> str:
        """Base URL of the running proxy, e.g. ``http://127.0.0.1:8123``."""
        if self._url is None:
            raise RuntimeError("the recording proxy is not running")
        return self._url

    def trial_base_url(self, trial_id: str, upstream: str) -> str:
        """Where a trial's client should send calls meant for ``upstream``.

        Append ``/v1`` for clients configured with an OpenAI-style root.
        """
        return f"{self.url}/t/{trial_id}/{upstream}"

    async def settle(self, trial_id: str, grace_seconds: float = DEFAULT_SETTLE_SECONDS) -> Settled:
        """Wait until the trial has no call in flight, then say how many calls it started.

        Calls still in flight after ``grace_seconds`` are ended (recorded without error
        when their reply was whole, else cut with an error); every call the trial
        started is then in the sink, and the trial's numbering restarts at 0. The same
        as ``POST /trials/<trial-id>/settle?grace=<seconds>``; see
        ``docs/proxy.md``.
        """
        if self._inflight is None:
            raise RuntimeError("the recording proxy is not running")
        return await self._inflight.settle(trial_id, grace_seconds)

    async def start(self) -> str:
        """Bind and serve; return the base URL."""
        if self._runner is not None:
            raise RuntimeError("the recording proxy is already running")
        connector = aiohttp.TCPConnector(limit=self.config.max_connections)
        session = aiohttp.ClientSession(connector=connector, auto_decompress=True)
        app = create_proxy_app(self.config)
        app[SESSION_KEY] = session
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=self._shutdown_timeout)
        try:
            await runner.setup()
            site = web.TCPSite(runner, self.config.host, self.config.port)
            await site.start()
        except BaseException:
            await runner.cleanup()
            await session.close()
            raise
        self._runner, self._session = runner, session
        self._inflight = app[INFLIGHT_KEY]
        host, port = runner.addresses[0][:2]
        self._url = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
        return self._url

    async def stop(self) -> None:
        """Stop serving and close upstream connections; a no-op when not running."""
        runner, session = self._runner, self._session
        self._runner = self._session = self._url = None
        self._inflight = None
        if runner is not None:
            await runner.cleanup()
        if session is not None:
            await session.close()

    async def __aenter__(self) -> RecordingProxy:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()


def serve_proxy(
    config: ProxyConfig,
    *,
    on_ready: Callable[[str], None] | None = None,
    stop_after: float | None = None,
) -> None:
    """Run the recording proxy in the foreground until Ctrl-C or SIGTERM.

    Args:
        config: Upstreams, sink, secrets, address.
        on_ready: Called with the base URL once the proxy listens (a CLI prints it).
        stop_after: Stop by itself after this many seconds (tests, smoke runs).
    """
    asyncio.run(_serve(config, on_ready, stop_after))


async def _serve(
    config: ProxyConfig, on_ready: Callable[[str], None] | None, stop_after: float | None
) -> None:
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, stopping.set)
    try:
        async with RecordingProxy(config) as proxy:
            if on_ready is not None:
                on_ready(proxy.url)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), stop_after)
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signum)
