"""Serving ``/metrics``: for the operator, and for ``adhere exporter``."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from wsgiref.simple_server import WSGIServer

from prometheus_client import start_http_server
from prometheus_client.registry import CollectorRegistry

from adhere.exporter._settings import ExporterSettings

__all__ = ["DEFAULT_PORT", "MetricsServer", "serve_store", "start_metrics_server"]

DEFAULT_PORT = 9477
"""Port of ``adhere exporter`` unless told otherwise."""


@dataclass
class MetricsServer:
    """A running ``/metrics`` server (a daemon thread)."""

    server: WSGIServer
    thread: threading.Thread

    @property
    def port(self) -> int:
        """The bound port (useful after asking for port 0)."""
        return int(self.server.server_port)

    @property
    def url(self) -> str:
        """``http://ADDR:PORT/metrics``."""
        host = str(self.server.server_address[0])
        return f"http://{host}:{self.port}/metrics"

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def start_metrics_server(
    registry: CollectorRegistry, port: int = DEFAULT_PORT, addr: str = "127.0.0.1"
) -> MetricsServer:
    """Serve ``registry`` at ``http://addr:port/metrics`` from a daemon thread.

    Args:
        registry: The registry to expose (e.g. one holding a
            :class:`~adhere.exporter.StoreCollector`).
        port: TCP port; 0 picks a free one (read it back from ``.port``).
        addr: Address to bind: loopback by default; ``0.0.0.0`` in a pod.
    """
    server, thread = start_http_server(port, addr=addr, registry=registry)
    return MetricsServer(server=server, thread=thread)


def serve_store(
    store: str,
    settings: ExporterSettings,
    *,
    port: int = DEFAULT_PORT,
    addr: str = "127.0.0.1",
    stop_after: float | None = None,
    on_start: Callable[[MetricsServer], None] | None = None,
) -> None:
    """Serve the metrics of a store's rollouts until interrupted (or ``stop_after`` s).

    Args:
        store: Store URI (``file://``, a path, ``s3://`` where supported).
        settings: Exporter settings.
        port: TCP port (0: any free port).
        addr: Address to bind.
        stop_after: Stop by itself after this many seconds (tests, smoke runs).
        on_start: Called with the running server (e.g. to print its URL).
    """
    from adhere.exporter._collector import StoreCollector

    registry = CollectorRegistry()
    collector = StoreCollector(store, settings, registry=registry)
    collector.refresh()  # fail early on an unreadable store; warm the cache
    server = start_metrics_server(registry, port, addr)
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        if on_start is not None:
            on_start(server)
        stop.wait(stop_after)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.stop()
