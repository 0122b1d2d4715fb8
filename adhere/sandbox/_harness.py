"""The child side of the sandbox: runs inside the sandboxed interpreter only.

The evaluator never imports this module to run it: it starts
``python -s -c <bootstrap> <job fd> <result fd>`` in the run's temporary directory.
The job fd is an inherited descriptor of an already unlinked temporary file holding,
:mod:`marshal`-encoded, this module (as a code object compiled by the evaluator when
the child runs the evaluator's own interpreter, else as source: compiling 400 lines
would cost a fifth of a trivial run) and the job. Only the standard library is
used, so any Python 3.9+ interpreter can run it.

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
5. **Run.** Modes: ``script`` (the source as ``__main__``), ``asserts`` (setup, code,
   then each top-level test statement in turn, in one namespace, module
   ``solution``), ``unittest`` (code then the test module in one namespace, module
   ``solution``; every ``TestCase`` in it runs). The outcome — ``pass``, ``fail``
   (``AssertionError``, unittest failures, non-zero ``sys.exit`` in a script) or
   ``crash`` (any other exception) with a one-line detail — is written as a
   tab-separated line on the result descriptor. For the test modes, a ``pass`` line
   is written only after every test ran, so code that exits early (``sys.exit(0)``,
   ``os._exit(0)``) cannot pass.

Code that deliberately targets the harness (writing to the result descriptor,
walking the caller's frames to read the expected values) can fool it: this defends
against accidents and common shortcuts, not against an adversary.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import ModuleType, TracebackType
    from typing import Any, NoReturn

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


def _register(source: str, filename: str) -> None:
    _SOURCES[filename] = source
    loaded = sys.modules.get("linecache")
    if loaded is not None:
        _fill_linecache(loaded)


def _module(name: str, filename: str) -> ModuleType:
    module = type(sys)(name)
    module.__file__ = filename
    sys.modules[name] = module
    return module


def _exec(source: str, filename: str, namespace: dict[str, Any]) -> None:
    _register(source, filename)
    exec(compile(source, filename, "exec", dont_inherit=True), namespace)


def _user_traceback(exc: BaseException) -> TracebackType | None:
    """The traceback without the harness's own leading frames."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == _HARNESS_FILE:
        tb = tb.tb_next
    return tb


def _print_exception(exc: BaseException) -> None:
    try:
        import traceback

        lines = traceback.format_exception(type(exc), exc, _user_traceback(exc))
        sys.stderr.write("".join(lines))
        sys.stderr.flush()
    except Exception:  # a broken stderr must not change the outcome
        pass


def _where(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"{exc.filename}, line {exc.lineno}"
    tb = _user_traceback(exc)
    if tb is None:
        return ""
    while tb.tb_next is not None:
        tb = tb.tb_next
    return f"{tb.tb_frame.f_code.co_filename}, line {tb.tb_lineno}"


def _describe(exc: BaseException) -> str:
    """``Type: message (file, line N)``."""
    if isinstance(exc, SyntaxError):
        message = exc.msg
    else:
        try:
            message = str(exc)
        except Exception:
            message = "<unprintable>"
    where = _where(exc)
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return f"{text} ({where})" if where else text


def _exit_status(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    return 1


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


def _run_script(job: dict[str, Any], reporter: _Reporter) -> None:
    module = _module("__main__", "main.py")
    try:
        _exec(job["code"], "main.py", module.__dict__)
    except SystemExit as exc:
        status = _exit_status(exc)
        reporter.outcome(
            "pass" if status == 0 else "fail", "" if status == 0 else f"exit status {status}"
        )
        raise
    except BaseException as exc:
        _print_exception(exc)
        reporter.outcome("fail" if isinstance(exc, AssertionError) else "crash", _describe(exc))
        _finish(1)
    reporter.outcome("pass", "")
    _flush()  # then the interpreter shuts down as usual: threads joined, atexit run


_ONLY_AST = 0x400  # ast.PyCF_ONLY_AST, without importing ast


def _test_statements(job: dict[str, Any]) -> tuple[str, type, list[Any]]:
    """The tests' text, the AST ``Module`` type and the top-level statements."""
    tests = job["tests"]
    text = tests if isinstance(tests, str) else "\n".join(tests)
    _register(text, "tests.py")
    tree = compile(text, "tests.py", "exec", _ONLY_AST, dont_inherit=True)
    return text, type(tree), list(tree.body)


def _segment(text: str, node: Any) -> str:
    """The source of ``node`` (what ``ast.get_source_segment`` gives; offsets in UTF-8)."""
    lines = text.splitlines(True)[node.lineno - 1 : node.end_lineno]
    if not lines:
        return ""
    encoded = [line.encode("utf-8") for line in lines]
    encoded[-1] = encoded[-1][: node.end_col_offset]
    encoded[0] = encoded[0][node.col_offset :]
    return b"".join(encoded).decode("utf-8", "replace")


def _run_asserts(job: dict[str, Any], reporter: _Reporter) -> None:
    module = _module("solution", "solution.py")
    namespace = module.__dict__
    try:
        text, module_type, statements = _test_statements(job)
    except SyntaxError as exc:
        reporter.outcome("crash", "harness: the tests do not parse: " + _describe(exc))
        _finish(1)
    phase = "setup"
    statement: Any = None
    try:
        if job["setup"]:
            _exec(job["setup"], "setup.py", namespace)
        phase = "code"
        _exec(job["code"], "solution.py", namespace)
        phase = "tests"
        for statement in statements:
            unit = module_type(body=[statement], type_ignores=[])
            exec(compile(unit, "tests.py", "exec", dont_inherit=True), namespace)
    except SystemExit as exc:
        reporter.outcome("crash", f"SystemExit({exc.code!r}) in the {phase} before the tests ended")
        _finish(1)
    except BaseException as exc:
        _print_exception(exc)
        during = ""
        if phase == "tests" and statement is not None:
            segment = _segment(text, statement)
            during = f"{_one_line(segment, 200)} (tests.py, line {statement.lineno})"
        if isinstance(exc, AssertionError) and phase == "tests":
            message = str(exc)
            inner = _where(exc)
            detail = f"failed: {during}"
            if message:
                detail += f": {message}"
            if inner and not inner.startswith("tests.py"):
                detail += f" [AssertionError at {inner}]"
        elif isinstance(exc, AssertionError):
            detail = f"{_describe(exc)} in the {phase}"
        else:
            detail = _describe(exc) + (f" during {during}" if during else f" in the {phase}")
        reporter.outcome("fail" if isinstance(exc, AssertionError) else "crash", detail)
        _finish(1)
    count = len(statements)
    reporter.outcome("pass", f"{count} test statement{'s' if count != 1 else ''} passed")
    _finish(0)


def _test_name(test: object) -> str:
    name = str(getattr(test, "id", lambda: repr(test))())
    return name.removeprefix("solution.")


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def _summary(kind: str, problems: Sequence[tuple[object, str]], run: int) -> str:
    shown = "; ".join(
        f"{_test_name(t)}: {_one_line(_last_line(tb), 160)}" for t, tb in problems[:3]
    )
    more = f"; and {len(problems) - 3} more" if len(problems) > 3 else ""
    return f"{len(problems)} of {run} tests {kind}: {shown}{more}"


def _run_unittest(job: dict[str, Any], reporter: _Reporter) -> None:
    import unittest

    module = _module("solution", "solution.py")
    phase = "code"
    try:
        _exec(job["code"], "solution.py", module.__dict__)
        phase = "test module"
        _exec(job["tests"], "test_solution.py", module.__dict__)
        phase = "tests"
        suite = unittest.TestLoader().loadTestsFromModule(module)
        result = unittest.TestResult()
        suite.run(result)
    except SystemExit as exc:
        reporter.outcome("crash", f"SystemExit({exc.code!r}) in the {phase} before the tests ended")
        _finish(1)
    except BaseException as exc:
        _print_exception(exc)
        status = "fail" if isinstance(exc, AssertionError) else "crash"
        reporter.outcome(status, f"{_describe(exc)} in the {phase}")
        _finish(1)
    failures = list(result.failures)
    failures += [(t, "unexpected success") for t in result.unexpectedSuccesses]
    for test, text in [*failures, *result.errors]:
        sys.stderr.write(f"== {_test_name(test)}\n{text}\n")
    if result.testsRun == 0:
        reporter.outcome("crash", "harness: no tests found in the test module")
        _finish(1)
    if failures:
        reporter.outcome("fail", _summary("failed", failures, result.testsRun))
        _finish(1)
    if result.errors:
        reporter.outcome("crash", _summary("raised", list(result.errors), result.testsRun))
        _finish(1)
    run = result.testsRun
    reporter.outcome("pass", f"{run} test{'s' if run != 1 else ''} passed")
    _finish(0)


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
