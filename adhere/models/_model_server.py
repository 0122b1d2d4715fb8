"""A real model server on 127.0.0.1: llama.cpp's ``llama-server`` with SmolLM2-135M-Instruct.

``bash scripts/install-model-server.sh`` builds the server once and caches it outside
the repository, in ``$ADHERE_MODEL_SERVER_CACHE`` or ``~/.cache/adhere/model-server``:
``bin/llama-server`` (with its ``lib*.so`` beside it) and
``model/SmolLM2-135M-Instruct.Q4_1.gguf``. :class:`ModelServer` starts it on a free
port, waits for ``GET /health`` and stops it (terminate, then kill). The process dies
with the thread that started it (``PR_SET_DEATHSIG`` on Linux) and runs in a session
of its own, so neither a crash of adhere nor a Ctrl-C at the terminal leaves it
behind or kills it before adhere has stopped it.

A real, tiny, weak model: it exercises the pipeline with real unscripted output; its
scores mean nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import aiohttp

from adhere.errors import ModelServerError, SpecError

__all__ = [
    "INSTALL_HINT",
    "MODEL_FILE",
    "ModelServer",
    "ModelServerSettings",
    "default_model_server_cache",
]

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = "run `bash scripts/install-model-server.sh` (builds it once, ~5 min, cached)"
_PR_SET_DEATHSIG = 1
_STOP_GRACE = 5.0


def default_model_server_cache(env: Mapping[str, str] | None = None) -> Path:
    """``$ADHERE_MODEL_SERVER_CACHE``, or ``~/.cache/adhere/model-server``."""
    env = os.environ if env is None else env
    found = env.get("ADHERE_MODEL_SERVER_CACHE")
    return Path(found) if found else Path.home() / ".cache" / "adhere" / "model-server"


def _positive(env: Mapping[str, str], name: str, default: float, *, whole: bool) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(int(raw) if whole else float(raw))
    except ValueError:
        value = 0.0
    if not value > 0:
        kind = "whole number" if whole else "number"
        raise SpecError(f"expected a positive {kind}, got {raw!r}", field=name)
    return value


@dataclass(frozen=True)
class ModelServerSettings:
    """How the model server runs.

    Attributes:
        cache: Where the install script put ``bin/`` and ``model/``.
        slots: Requests served at once (``-np``); each gets ``ctx // slots`` tokens.
        ctx: Total context in tokens (``-c``), shared by the slots.
        ready_timeout: Seconds to wait for ``/health`` to answer ok.
        host: Interface to bind: loopback.
        port: Port to bind; 0 picks a free one.
    """

    cache: Path
    slots: int = 4
    ctx: int = 32768
    ready_timeout: float = 60.0
    host: str = "127.0.0.1"
    port: int = 0

    def __post_init__(self) -> None:
        if self.slots < 1:
            raise SpecError(f"expected at least 1 slot, got {self.slots}", field="slots")
        if self.ctx // self.slots < 512:
            raise SpecError(
                f"a context of {self.ctx} tokens gives each of the {self.slots} slots fewer "
                "than 512 tokens",
                field="ctx",
            )
        if not 0 <= self.port < 65536:
            raise SpecError(f"expected a port in 0..65535, got {self.port}", field="port")

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str] | None = None,
        *,
        slots: int | None = None,
        ctx: int | None = None,
        port: int = 0,
    ) -> ModelServerSettings:
        """Settings from the environment, overridden by the arguments that are given.

        ``ADHERE_MODEL_SERVER_CACHE``, ``ADHERE_MODEL_SERVER_SLOTS`` (default 4),
        ``ADHERE_MODEL_SERVER_CTX`` (default 32768) and
        ``ADHERE_MODEL_SERVER_READY_TIMEOUT`` (seconds, default 60).

        Raises:
            SpecError: A variable is not a positive number (names the variable).
        """
        env = os.environ if env is None else env
        return cls(
            cache=default_model_server_cache(env),
            slots=int(_positive(env, "ADHERE_MODEL_SERVER_SLOTS", 4, whole=True))
            if slots is None
            else slots,
            ctx=int(_positive(env, "ADHERE_MODEL_SERVER_CTX", 32768, whole=True))
            if ctx is None
            else ctx,
            ready_timeout=_positive(env, "ADHERE_MODEL_SERVER_READY_TIMEOUT", 60.0, whole=False),
            port=port,
        )

    def installed(self) -> tuple[Path, Path]:
        """The server binary and the model file.

        Raises:
            ModelServerError: Either is missing; the message says how to install them.
        """
        binary = self.cache / "bin" / "llama-server"
        model = self.cache / "model" / MODEL_FILE
        for path in (binary, model):
            if not path.is_file():
                raise ModelServerError(
                    f"the local model server is not installed ({path} is missing): {INSTALL_HINT}"
                )
        if not os.access(binary, os.X_OK):
            raise ModelServerError(f"{binary} is not executable: {INSTALL_HINT}")
        return binary, model


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def _in_use(host: str, port: int) -> bool:
    """Whether something listens on ``host:port`` (its ``/health`` would answer for ours)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return True
        return False


def _die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` making the child get SIGKILL when the starting thread ends (Linux)."""
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(_PR_SET_DEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os.kill(os.getpid(), signal.SIGKILL)

    return preexec


class ModelServer:
    """One ``llama-server`` process serving the cached model on 127.0.0.1.

    Args:
        settings: Install location, slots, context, timeout, port.

    Start it with :meth:`start` (from the thread that will outlive it: the process
    dies with that thread), stop it with :meth:`stop` or :meth:`aclose`.
    """

    def __init__(self, settings: ModelServerSettings) -> None:
        self.settings = settings
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._url: str | None = None

    @property
    def url(self) -> str:
        """Base URL of the running server (no ``/v1``), e.g. ``http://127.0.0.1:8123``."""
        if self._url is None:
            raise RuntimeError("the model server is not running")
        return self._url

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs."""
        return None if self._process is None else self._process.pid

    def command(self, port: int) -> list[str]:
        """The server's command line for ``port``."""
        binary, model = self.settings.installed()
        s = self.settings
        return [
            str(binary), "-m", str(model), "--host", s.host, "--port", str(port),
            "--jinja", "-c", str(s.ctx), "-np", str(s.slots),
        ]  # fmt: skip

    async def start(self) -> str:
        """Launch the server and wait until ``/health`` says ok; return its base URL.

        Raises:
            ModelServerError: Not installed, the port is in use, died at start, or not
                ready in time (with the tail of the server's log).
        """
        if self._process is not None:
            raise RuntimeError("the model server is already running")
        attempts = 1 if self.settings.port else 3
        for attempt in range(attempts):
            port = self.settings.port or _free_port(self.settings.host)
            try:
                return await self._start_on(port)
            except ModelServerError as exc:
                # A free port taken by someone else before the server bound it: try another.
                lost_race = "in use" in str(exc) or "bind" in self.log_tail().lower()
                self.stop()
                if not lost_race or attempt == attempts - 1:
                    raise
            except BaseException:  # cancelled while waiting: leave nothing running
                self.stop()
                raise
        raise AssertionError("unreachable")

    async def _start_on(self, port: int) -> str:
        command = self.command(port)
        if _in_use(self.settings.host, port):
            raise ModelServerError(
                f"port {port} on {self.settings.host} is in use; choose another (0: a free one)"
            )
        bin_dir = str(Path(command[0]).parent)
        env = dict(os.environ)
        env["LD_LIBRARY_PATH"] = os.pathsep.join(
            p for p in (bin_dir, env.get("LD_LIBRARY_PATH", "")) if p
        )
        self._log = tempfile.TemporaryFile(prefix="adhere-model-server-")
        try:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=self._log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
                preexec_fn=_die_with_parent(),
            )
        except OSError as exc:
            raise ModelServerError(f"could not start {command[0]}: {exc}; {INSTALL_HINT}") from None
        url = f"http://{self.settings.host}:{port}"
        await self._wait_ready(url)
        self._url = url
        return url

    async def _wait_ready(self, url: str) -> None:
        process = self._process
        assert process is not None
        deadline = time.monotonic() + self.settings.ready_timeout
        timeout = aiohttp.ClientTimeout(total=2)
        async with aiohttp.ClientSession(timeout=timeout) as http:
            while True:
                if process.poll() is not None:
                    raise ModelServerError(
                        f"the local model server exited with status {process.returncode} "
                        f"while starting; its log ends:\n{self.log_tail()}"
                    )
                with contextlib.suppress(aiohttp.ClientError, asyncio.TimeoutError, ValueError):
                    async with http.get(f"{url}/health") as reply:
                        body = await reply.json(content_type=None)
                        if reply.status == 200 and isinstance(body, dict):
                            if body.get("status") == "ok" and process.poll() is None:
                                return
                if time.monotonic() > deadline:
                    raise ModelServerError(
                        f"the local model server did not answer {url}/health within "
                        f"{self.settings.ready_timeout:g} s; its log ends:\n{self.log_tail()}"
                    )
                await asyncio.sleep(0.1)

    def log_tail(self, lines: int = 20) -> str:
        """The last ``lines`` lines of the server's output (stdout and stderr)."""
        if self._log is None or self._log.closed:
            return ""
        self._log.flush()
        size = self._log.seek(0, os.SEEK_END)
        self._log.seek(max(0, size - 8192))
        text = self._log.read().decode("utf-8", errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        """Terminate the server (kill it after a grace period); a no-op when not running."""
        process, self._process, self._url = self._process, None, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(_STOP_GRACE)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    async def aclose(self) -> None:
        """:meth:`stop` without blocking the event loop."""
        await asyncio.to_thread(self.stop)
