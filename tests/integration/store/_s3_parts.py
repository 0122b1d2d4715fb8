"""Real parts for the store tests: moto's S3 server, a silent port, a cutting proxy."""

from __future__ import annotations

import socket
import threading
import time
import urllib.request
from collections.abc import Callable

from moto.server import ThreadedMotoServer

BUCKET = "adhere-test"
PLANTED_SECRET = "pLaNtEd/SeCrEt+kEy0123456789abcdefGHIJKL"
"""The AWS secret access key the tests set; it must appear nowhere the store writes."""

FAST = {"connect_timeout": 1.0, "read_timeout": 2.0, "max_attempts": 2}
"""Timeouts and attempts that keep failing tests short."""


class MotoS3:
    """moto's S3 server, restartable on the same port (moto keeps state in-process)."""

    def __init__(self) -> None:
        self.port = 0
        self.server: ThreadedMotoServer | None = None
        self.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self.server.start()
        self.port = self.server.get_host_and_port()[1]

    def stop(self) -> None:
        """An outage: the port refuses connections until :meth:`start`."""
        assert self.server is not None
        self.server.stop()
        self.server = None

    def reset(self) -> None:
        request = urllib.request.Request(f"{self.endpoint}/moto-api/reset", method="POST")
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200

    def uri(self, prefix: str = "runs", **settings: object) -> str:
        query = "&".join(f"{k}={v}" for k, v in {"endpoint_url": self.endpoint, **settings}.items())
        return f"s3://{BUCKET}/{prefix}?{query}"


class SilentServer:
    """A TCP port that accepts connections and never answers (a hung S3 endpoint)."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted: list[socket.socket] = []
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.sock.settimeout(0.1)
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            self.accepted.append(conn)  # held open, never read from or written to

    def close(self) -> None:
        self._stop.set()
        self.thread.join()
        for conn in self.accepted:
            conn.close()
        self.sock.close()


def wait_until(
    predicate: Callable[[], bool], timeout: float = 30.0, interval: float = 0.05
) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


class CuttingProxy:
    """A TCP forwarder to ``upstream_port`` that can drop every connection mid-request.

    After :meth:`cut_after` has let ``budget`` more bytes through towards the server,
    the proxy closes every open connection and closes new ones at once (a network
    outage in the middle of an upload) until :meth:`heal`.
    """

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self._lock = threading.Lock()
        self._budget: int | None = None
        self._down = False
        self._open: set[socket.socket] = set()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def cut_after(self, budget: int) -> None:
        with self._lock:
            self._budget = budget

    def heal(self) -> None:
        with self._lock:
            self._budget, self._down = None, False

    @property
    def down(self) -> bool:
        return self._down

    def _serve(self) -> None:
        self.sock.settimeout(0.1)
        while not self._stop.is_set():
            try:
                client, _ = self.sock.accept()
            except TimeoutError:
                continue
            if self._down:
                client.close()
                continue
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            with self._lock:
                self._open.update((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, counted: bool) -> None:
        try:
            while chunk := src.recv(65536):
                if counted:
                    with self._lock:
                        if self._budget is not None:
                            self._budget -= len(chunk)
                            if self._budget < 0:
                                self._down = True
                    if self._down:
                        self._drop_all()
                        return
                dst.sendall(chunk)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                _close(sock)

    def _drop_all(self) -> None:
        with self._lock:
            sockets, self._open = self._open, set()
        for sock in sockets:
            _close(sock)

    def close(self) -> None:
        self._stop.set()
        self.thread.join()
        self._drop_all()
        self.sock.close()


def _close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()
