"""A pre-warmed pytest that forks once per mutant.

Starting Python and pytest and importing the libraries and ``adhere`` costs more than
most mutants' tests take. The server imports pytest and the third-party libraries
once; for a module under mutation the driver then has it preload the ``adhere``
modules its tests use, except the mutated module and every module that imports it
(directly or not), which each child must read afresh (:meth:`WorkerClient.preload`
refuses when preloading pulled one of them in anyway). For each run the server forks
a child that runs ``pytest -x`` over the requested test files in the repository copy
and reports its exit code. A child still running at the request's deadline is killed
with its process group and reported as timed out. Tests are never preloaded.

Run as ``python -m scripts.mutation._worker SOCKET REPO``; talk to it through
:func:`start_worker`.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import json
import os
import re
import resource
import select
import signal
import socket
import subprocess
import sys
import time
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Imported by the server before it forks; everything under ``adhere`` and ``tests`` is
# imported by each child, from the (possibly mutated) copy. Not pytest's plugins: pytest
# warns when a plugin was imported before it could rewrite its asserts.
PRELOAD = (
    "pytest",
    "_pytest.python",
    "_pytest.assertion.rewrite",
    "pydantic",
    "yaml",
    "jsonschema",
    "click",
    "rich.console",
)
TIMED_OUT = -1
CHILD_MEMORY = 4 * 1024**3
"""Address space a child may use (bytes); a mutant that needs more fails its tests."""
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_READY = "mutation worker ready"
_FAILED_LINE = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.MULTILINE)


@dataclass(frozen=True)
class PytestRun:
    """One pytest run in a child.

    Attributes:
        code: pytest's exit code (0 passed, 1 a test failed, 2 interrupted — e.g. a
            module that no longer imports), or ``TIMED_OUT``.
        seconds: Wall time of the run.
        output: The tail of pytest's output.
        module_file: Where the probed module was imported from (``None`` when it was
            not imported or no probe was asked for).
        imported: With a probe, the modules of the probed module's top package the
            child had imported.
        coverage: With a trace, who ran which line (:class:`LineRecorder` JSON).
    """

    code: int
    seconds: float
    output: str
    module_file: str | None = None
    imported: tuple[str, ...] = ()
    coverage: dict[str, Any] | None = None

    @property
    def timed_out(self) -> bool:
        """Whether the run was killed at its deadline."""
        return self.code == TIMED_OUT

    @property
    def first_failure(self) -> str | None:
        """The first failing test's id from pytest's short summary, if any."""
        found = _FAILED_LINE.search(self.output)
        return found.group(1) if found else None


def _pytest_args(tests: Sequence[str]) -> list[str]:
    return [
        "-x",
        "-q",
        "--no-header",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-o",
        "addopts=",
        *tests,
    ]


def _child(repo: str, request: dict[str, object], out_path: str, probe_path: str) -> None:
    code = 3
    try:
        # The tests get Python's usual dispositions, not the server's.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_DFL)
        os.setpgid(0, 0)
        # A mutant that allocates without end (a loop that no longer advances) fails
        # with MemoryError instead of taking the shared machine's memory until its
        # deadline.
        resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))
        fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        sys.dont_write_bytecode = not request.get("write_bytecode", False)
        os.chdir(repo)
        sys.path.insert(0, repo)
        import pytest

        tests = [str(t) for t in request["tests"]]  # type: ignore[attr-defined]
        trace = request.get("trace")
        plugins: list[object] = []
        if isinstance(trace, str):
            from scripts.mutation._coverage import LineRecorder

            plugins.append(LineRecorder(trace))
            plugins[0].start()  # type: ignore[attr-defined]
        code = int(pytest.main(_pytest_args(tests), plugins=plugins))
        for plugin in plugins:
            plugin.stop()  # type: ignore[attr-defined]
        probe = request.get("probe")
        if isinstance(probe, str):
            module = sys.modules.get(probe)
            root = probe.partition(".")[0]
            imported = sorted(n for n in sys.modules if n == root or n.startswith(root + "."))
            found = {
                "module_file": getattr(module, "__file__", None),
                "imported": imported,
                "coverage": plugins[0].as_json() if plugins else None,  # type: ignore[attr-defined]
            }
            Path(probe_path).write_text(json.dumps(found))
    except BaseException:  # noqa: BLE001 - the child reports every failure as output
        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _run(repo: str, workdir: Path, request: dict[str, object]) -> dict[str, object]:
    out_path = str(workdir / "child.out")
    probe_path = str(workdir / "child.probe")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(probe_path)
    timeout = float(request["timeout"])  # type: ignore[arg-type]
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        _child(repo, request, out_path, probe_path)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)
    _CURRENT[0] = pid
    pidfd = os.pidfd_open(pid)
    ready, _, _ = select.select([pidfd], [], [], timeout)
    if not ready:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    _CURRENT[0] = None
    os.close(pidfd)
    seconds = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status) if ready else TIMED_OUT
    # Whatever the tests started in the child's group goes with it.
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)
    output = Path(out_path).read_text(errors="replace") if os.path.exists(out_path) else ""
    probe = json.loads(Path(probe_path).read_text()) if os.path.exists(probe_path) else {}
    return {"code": code, "seconds": seconds, "output": output[-4000:], **probe}


def _preload(modules: list[str], forbid: list[str]) -> str:
    """Import ``modules`` into the server; why that is unsafe for the mutants, or ``""``."""
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - reported, then the driver goes without
            return f"importing {name} failed: {exc!r}"
    loaded = sorted(set(forbid) & set(sys.modules))
    if loaded:
        return f"preloading imported {', '.join(loaded)}, which must be read afresh per mutant"
    return ""


_CURRENT: list[int | None] = [None]
"""The child running now (its process group is its pid)."""


def _terminate(_signum: int, _frame: object) -> None:
    """On SIGTERM, SIGINT or SIGHUP: kill the running child's process group, then exit.

    The child runs in its own process group, so a Ctrl-C at the terminal reaches the
    driver and this server but not the child: the server ends it.
    """
    if _CURRENT[0] is not None:
        with contextlib.suppress(OSError):
            os.killpg(_CURRENT[0], signal.SIGKILL)
    os._exit(143)


def _read_line(conn: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def serve(sock_path: str, repo: str) -> None:
    """Preload, listen on ``sock_path`` and run one request at a time until told to stop."""
    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    # cosmic-ray's ExceptionReplacer writes ``except CosmicRayTestingException``.
    from cosmic_ray.exceptions import CosmicRayTestingException

    builtins.CosmicRayTestingException = CosmicRayTestingException  # type: ignore[attr-defined]
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, _terminate)
    workdir = Path(sock_path).parent
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(sock_path)  # left by a worker stopped before this one
    server.bind(sock_path)
    server.listen(1)
    print(_READY, flush=True)  # noqa: T201 - the parent waits for this line
    while True:
        conn, _ = server.accept()
        with conn:
            request = json.loads(_read_line(conn) or b"{}")
            if request.get("op") == "run":
                reply = _run(repo, workdir, request)
            elif request.get("op") == "preload":
                reply = {"problem": _preload(request["modules"], request["forbid"])}
            else:
                conn.sendall(b"{}\n")
                break
            conn.sendall(json.dumps(reply).encode() + b"\n")
    server.close()


class WorkerClient:
    """The driver's handle on a running worker."""

    def __init__(self, sock_path: Path, proc: subprocess.Popen[str]) -> None:
        self._sock_path = sock_path
        self._proc = proc

    def _ask(self, request: dict[str, object], timeout: float | None = None) -> dict[str, object]:
        if self._proc.poll() is not None:
            raise RuntimeError(f"the mutation worker exited with code {self._proc.returncode}")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(str(self._sock_path))
            conn.sendall(json.dumps(request).encode() + b"\n")
            line = _read_line(conn)
        if not line:
            raise RuntimeError("the mutation worker closed the connection without a reply")
        reply: dict[str, object] = json.loads(line)
        return reply

    def run(
        self,
        tests: Sequence[str],
        timeout: float,
        *,
        write_bytecode: bool = False,
        probe: str | None = None,
        trace: str | None = None,
    ) -> PytestRun:
        """Run ``pytest -x`` over ``tests`` in a fresh child; kill it after ``timeout`` s.

        ``probe`` (a dotted module name) reports where it was imported from and what
        its package had imported; ``trace`` (a path ending) records who ran which
        line of that file (:mod:`scripts.mutation._coverage`).
        """
        reply = self._ask(
            {
                "op": "run",
                "tests": list(tests),
                "timeout": timeout,
                "write_bytecode": write_bytecode,
                "probe": probe,
                "trace": trace,
            }
        )
        module_file = reply.get("module_file")
        return PytestRun(
            code=int(reply["code"]),  # type: ignore[call-overload]
            seconds=float(reply["seconds"]),  # type: ignore[arg-type]
            output=str(reply["output"]),
            module_file=str(module_file) if module_file else None,
            imported=tuple(reply.get("imported", ())),  # type: ignore[arg-type]
            coverage=reply.get("coverage"),  # type: ignore[arg-type]
        )

    def preload(self, modules: Sequence[str], forbid: Sequence[str]) -> str:
        """Import ``modules`` once for every later child; a problem (then restart), or ``""``.

        ``forbid`` are the modules each child must import itself: the mutated module
        and every module that imports it. Preloading is unsafe when it pulled one in.
        """
        reply = self._ask({"op": "preload", "modules": list(modules), "forbid": list(forbid)})
        return str(reply.get("problem", ""))

    def stop(self) -> None:
        """Ask the worker to exit; if it is busy, terminate it (it kills its child first)."""
        with contextlib.suppress(OSError, RuntimeError):
            self._ask({"op": "stop"}, timeout=5.0)
        for ending in (self._proc.terminate, self._proc.kill):
            try:
                self._proc.wait(timeout=10)
                return
            except subprocess.TimeoutExpired:
                ending()
        self._proc.wait()


@contextlib.contextmanager
def start_worker(
    repo: Path, workdir: Path, *, ready_within: float = 120.0
) -> Iterator[WorkerClient]:
    """Start a worker serving ``repo`` (a copy of the repository) and stop it afterwards."""
    sock_path = workdir / "worker.sock"
    env = dict(os.environ, PYTHONPATH=str(repo), PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "scripts.mutation._worker", str(sock_path), str(repo)],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    client = WorkerClient(sock_path, proc)
    try:
        deadline = time.monotonic() + ready_within
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], ready_within)
        line = proc.stdout.readline() if ready else ""
        if line.strip() != _READY or time.monotonic() > deadline:
            raise RuntimeError(
                f"the mutation worker did not say it was ready within {ready_within:.0f} s"
            )
        yield client
    finally:
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
        try:
            client.stop()  # a second Ctrl-C cannot leave the worker running
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2])
