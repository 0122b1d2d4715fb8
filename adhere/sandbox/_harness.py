"""The child side of the sandbox: runs inside the sandboxed interpreter only.

The evaluator never imports this module to run it: it starts
``python -s -c <bootstrap> <job fd> <result fd>`` in the run's temporary directory.
The job fd is an inherited descriptor of an already unlinked temporary file holding,
:mod:`marshal`-encoded, the harness's two parts — this module (confinement, init,
network guard, reporting, ``main``) and :mod:`adhere.sandbox._harness_modes` (the run
modes) — each as a code object compiled by the evaluator when the child runs the
evaluator's own interpreter, else as source (compiling 400 lines would cost a fifth
of a trivial run), and the job. The bootstrap executes both parts into one namespace,
so the names of each are globals of the other. Only the standard library is used, so
any Python 3.9+ interpreter can run it.

1. **Job.** The job (mode, code, tests, guard flag) is read and its descriptor
   closed before any untrusted code runs: the code and tests are never files in the
   sandbox.
   Sources are registered with :mod:`linecache` under names (``main.py``,
   ``solution.py``, ``tests.py``, ``test_solution.py``) so that tracebacks and
   ``inspect.getsource`` work — lazily, by an import hook, when something imports
   ``linecache``.
   The happy path imports nothing beyond what the interpreter has loaded at start-up
   (no ``json``, ``re``, ``ast``, ``traceback``, ``typing``): those would double the
   cost of a trivial run, and the harness must not load modules for the code.
2. **Confine.** Before anything else: the rlimits, then (as root, when asked) the
   unprivileged uid and gid, with no supplementary groups.
3. **Init.** Under a PID namespace this process is PID 1, whose signals the kernel
   treats specially (no default actions, so SIGXCPU would be ignored). It forks: the
   parent only reaps and, when the worker ends, reports its exit status or signal
   and its CPU time, then exits, which makes the kernel kill whatever is left in the
   namespace. The worker is an ordinary process.
4. **Guard.** Without a network namespace, the worker replaces ``socket.socket``
   (non-``AF_UNIX`` families), ``socket.create_connection`` and name resolution with
   functions that raise ``PermissionError`` — an in-process guard that child
   processes and ``ctypes`` bypass.
5. **Run** (:mod:`adhere.sandbox._harness_modes`). Modes: ``script`` (the source as
   ``__main__``), ``asserts`` (setup, code, then each top-level test statement in
   turn, in one namespace, module ``solution``), ``unittest`` (code then the test
   module in one namespace, module ``solution``; every ``TestCase`` in it runs). The
   outcome — ``pass``, ``fail`` (``AssertionError``, unittest failures, non-zero
   ``sys.exit`` in a script) or ``crash`` (any other exception) with a one-line
   detail — is written as a tab-separated line on the result descriptor. For the
   test modes, a ``pass`` line is written only after every test ran, so code that
   exits early (``sys.exit(0)``, ``os._exit(0)``) cannot pass.

Code that deliberately targets the harness (writing to the result descriptor,
walking the caller's frames to read the expected values) can fool it: this defends
against accidents and common shortcuts, not against an adversary.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NoReturn

    from adhere.sandbox._harness_modes import (
        _describe,
        _run_asserts,
        _run_script,
        _run_unittest,
    )

_LIMIT = 400
_HARNESS_FILE = "<string>"


def _one_line(text: str, limit: int = _LIMIT) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class _Reporter:
    """Writes tab-separated lines on the result descriptor (small: they sit in a pipe).

    ``status <pass|fail|crash> <detail>`` from the worker; ``exit <code> <cpu>`` or
    ``signal <number> <cpu>`` from the PID-1 init.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.done = False

    def write(self, *fields: object) -> None:
        line = "\t".join(" ".join(str(f).split()) for f in fields) + "\n"
        try:
            os.write(self.fd, line.encode("utf-8", "replace")[:8192])
        except OSError:
            pass

    def outcome(self, status: str, detail: str) -> None:
        if not self.done:
            self.done = True
            self.write("status", status, _one_line(detail))


def _init(worker: int, result_fd: int) -> NoReturn:
    """PID 1 of the namespace: reap everything, report the worker's end, exit."""
    reporter = _Reporter(result_fd)
    while True:
        try:
            pid, status, usage = os.wait4(-1, 0)
        except ChildProcessError:
            reporter.write("exit", 70, 0.0)
            os._exit(70)
        if pid == worker:
            break
    cpu = round(usage.ru_utime + usage.ru_stime, 3)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        reporter.write("signal", sig, cpu)
        os._exit(128 + sig)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70
    reporter.write("exit", code, cpu)
    os._exit(code)


def _install_guard() -> None:
    """Block network sockets and name resolution inside this interpreter."""
    import _socket
    import socket

    def refuse(*_args: object, **_kwargs: object) -> Any:
        raise PermissionError(13, "network access is disabled in this sandbox")

    base = socket.socket
    unix = getattr(socket, "AF_UNIX", None)

    class GuardedSocket(base):  # type: ignore[valid-type,misc]
        def __init__(
            self, family: int = -1, type: int = -1, proto: int = -1, fileno: int | None = None
        ) -> None:
            effective = socket.AF_INET if family == -1 else family
            if fileno is None and effective != unix:
                refuse()
            super().__init__(family, type, proto, fileno)

    for module in (socket, _socket):
        for name in ("socket", "SocketType"):
            setattr(module, name, GuardedSocket)
    for name in (
        "create_connection",
        "create_server",
        "getaddrinfo",
        "gethostbyname",
        "gethostbyname_ex",
        "gethostbyaddr",
    ):
        setattr(socket, name, refuse)
    for name in ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "gethostbyaddr"):
        setattr(_socket, name, refuse)


_SOURCES: dict[str, str] = {}


def _fill_linecache(module: Any) -> None:
    for filename, text in _SOURCES.items():
        module.cache[filename] = (len(text), None, text.splitlines(True), filename)


class _AfterImport:
    """A meta-path finder that runs a callback once a module has been imported.

    The sources reach ``linecache`` and the network guard is installed only if and
    when the code (or the harness's error path) imports ``linecache`` or ``socket``.
    """

    def __init__(self) -> None:
        self.callbacks: dict[str, Callable[[Any], None]] = {}

    def find_spec(self, name: str, path: object = None, target: object = None) -> Any:
        callback = self.callbacks.pop(name, None)
        if callback is None:
            return None
        if not self.callbacks:
            sys.meta_path.remove(self)
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find and finder is not self else None
            if spec is not None and spec.loader is not None:
                spec.loader = _ThenLoader(spec.loader, callback)
                return spec
        return None


class _ThenLoader:
    def __init__(self, real: Any, callback: Callable[[Any], None]) -> None:
        self.real = real
        self.callback = callback

    def create_module(self, spec: Any) -> Any:
        return self.real.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.real.exec_module(module)
        self.callback(module)


_HOOK = _AfterImport()


def _import_socket(_module: Any) -> None:
    import socket  # noqa: F401  (its own hook installs the guard)


def _guard_network() -> None:
    """Install the guard now if sockets are loaded, else when they first are."""
    if "socket" in sys.modules or "_socket" in sys.modules:
        _install_guard()
        return
    _HOOK.callbacks["socket"] = lambda _module: _install_guard()
    _HOOK.callbacks["_socket"] = _import_socket


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


def _finish(code: int) -> NoReturn:
    """End a test mode now: user threads and ``atexit`` hooks do not run."""
    _flush()
    os._exit(code)


def _confine(job: dict[str, Any]) -> None:
    """Set the rlimits (never above the current hard limits), then drop to the uid."""
    import resource

    for which, soft, hard in job.get("rlimits", ()):
        _, current = resource.getrlimit(which)
        if current != resource.RLIM_INFINITY:
            hard = min(hard, current)
        resource.setrlimit(which, (min(soft, hard), hard))
    uid = job.get("uid")
    if uid is not None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)


def main(job: dict[str, Any], result_fd: int) -> None:
    """Run ``job``, reporting on ``result_fd`` (called by the evaluator's bootstrap)."""
    try:
        _confine(job)
    except Exception as exc:
        _Reporter(result_fd).outcome("crash", "harness: cannot confine the run: " + repr(exc))
        _finish(1)
    os.environ.pop("PWD", None)  # set by bwrap; the environment is the evaluator's choice
    if os.getpid() == 1:
        worker = os.fork()
        if worker:
            _init(worker, result_fd)
    reporter = _Reporter(result_fd)
    _HOOK.callbacks["linecache"] = _fill_linecache
    sys.meta_path.insert(0, _HOOK)
    try:
        if job.get("guard"):
            _guard_network()
        sys.argv = [job.get("argv0", "main.py")]
        sys.dont_write_bytecode = True
        if sys.path[:1] != [""]:
            sys.path.insert(0, "")  # the working directory: ``files`` are importable
        run = {"script": _run_script, "asserts": _run_asserts, "unittest": _run_unittest}
        runner = run[job["mode"]]
    except Exception as exc:
        reporter.outcome("crash", "harness: bad job: " + _describe(exc))
        _finish(1)
    runner(job, reporter)
