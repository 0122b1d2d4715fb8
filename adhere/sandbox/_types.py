"""The sandbox's vocabulary: limits, results, job specs and its one error."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from adhere.errors import AdhereError

__all__ = [
    "AssertsJob",
    "Isolation",
    "IsolationChoice",
    "Job",
    "Limits",
    "PythonJob",
    "RunResult",
    "SandboxError",
    "Status",
    "UnittestJob",
]

Status = Literal["pass", "fail", "timeout", "crash"]
"""How a run ended; see :class:`RunResult`."""

Isolation = Literal["netns", "guard", "none"]
"""How the network was cut for a run; see :class:`RunResult`."""

IsolationChoice = Literal["auto", "netns", "guard"]
"""How the network should be cut; see :attr:`Limits.isolation`."""


class SandboxError(AdhereError):
    """The sandbox cannot run anything as asked (no interpreter, no ``unshare`` …).

    Problems of one run (its code crashed, the harness could not read its job) are
    not errors: they come back as a :class:`RunResult` with status ``crash``.
    """


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed run.

    Attributes:
        timeout: Wall-clock seconds, from start to exit, interpreter start-up included;
            when they pass, the whole process group is killed (SIGKILL).
        cpu: CPU seconds (``RLIMIT_CPU`` soft limit, SIGXCPU; hard limit one second
            later, SIGKILL). ``None``: ``ceil(timeout)``.
        memory_mb: Address space in MiB (``RLIMIT_AS``); allocations beyond it fail
            (Python raises ``MemoryError``).
        max_output: Bytes of stdout and of stderr kept, each; the rest is read and
            dropped, and a marker line says how much.
        network: Allow network access (no isolation at all, ``isolation="none"``).
        processes: ``RLIMIT_NPROC``, applied when the code runs as a dedicated
            unprivileged uid (see ``unprivileged_uid``). It counts every process of
            that uid, so concurrent runs share it; for uid 0 the kernel ignores it.
        file_size_mb: Largest file the code may write, in MiB (``RLIMIT_FSIZE``;
            beyond it the write fails with SIGXFSZ, a crash).
        isolation: How to cut the network: ``auto`` (a network namespace when
            ``unshare --net`` works here, else the in-process guard; the environment
            variable ``ADHERE_SANDBOX_ISOLATION=guard|netns`` overrides ``auto``),
            ``netns`` (required: :class:`SandboxError` when unavailable) or
            ``guard`` (the in-process socket guard, even when namespaces work).
        unprivileged_uid: When the evaluator runs as root, run the code as this
            uid and gid instead, provided the interpreter works for it (probed once
            per interpreter). ``None`` keeps root.
    """

    timeout: float = 10.0
    cpu: float | None = None
    memory_mb: int = 1024
    max_output: int = 64_000
    network: bool = False
    processes: int = 64
    file_size_mb: int = 64
    isolation: IsolationChoice = "auto"
    unprivileged_uid: int | None = 65534

    def __post_init__(self) -> None:
        if not self.timeout > 0:
            raise ValueError(f"Limits.timeout must be > 0 seconds, got {self.timeout!r}")
        if self.cpu is not None and not self.cpu > 0:
            raise ValueError(f"Limits.cpu must be > 0 seconds or None, got {self.cpu!r}")
        if self.memory_mb < 32:
            raise ValueError(f"Limits.memory_mb must be >= 32, got {self.memory_mb!r}")
        if self.max_output < 0:
            raise ValueError(f"Limits.max_output must be >= 0, got {self.max_output!r}")
        if self.processes < 1:
            raise ValueError(f"Limits.processes must be >= 1, got {self.processes!r}")
        if self.file_size_mb < 1:
            raise ValueError(f"Limits.file_size_mb must be >= 1, got {self.file_size_mb!r}")
        if self.isolation not in ("auto", "netns", "guard"):
            raise ValueError(
                f"Limits.isolation must be auto, netns or guard, got {self.isolation!r}"
            )

    @property
    def cpu_seconds(self) -> int:
        """The CPU limit in whole seconds (``RLIMIT_CPU`` counts seconds)."""
        return max(1, math.ceil(self.timeout if self.cpu is None else self.cpu))


@dataclass(frozen=True)
class RunResult:
    """How one sandboxed run ended.

    Attributes:
        status: ``pass`` — it exited 0 (and, for tests, every test ran and passed);
            ``fail`` — a test or assertion failed (``AssertionError``, unittest
            failures, wrong stdout, ``sys.exit`` with a non-zero status);
            ``timeout`` — the wall-clock or CPU limit was exceeded and the process
            group killed; ``crash`` — anything else: an exception other than
            ``AssertionError`` (``SyntaxError``, ``ImportError``, ``MemoryError`` …),
            death by a signal, tests that ended early, a harness problem.
        returncode: The exit status (negative: killed by that signal); ``None`` after
            a timeout.
        stdout: Captured stdout (UTF-8, undecodable bytes replaced, capped).
        stderr: Captured stderr (tracebacks land here), capped likewise.
        seconds: Wall-clock seconds from start to exit.
        detail: One line: which assertion or test failed, the exception's type and
            message and where, the signal's name; empty for a plain pass.
        isolation: How the network was cut: ``netns`` (a fresh network namespace
            with only a loopback that is down), ``guard`` (sockets blocked inside the
            Python process), ``none`` (network allowed).
        uid: The uid the code ran as.
    """

    status: Status
    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    detail: str
    isolation: Isolation
    uid: int = -1

    @property
    def passed(self) -> bool:
        """Whether the status is ``pass``."""
        return self.status == "pass"


@dataclass(frozen=True)
class PythonJob:
    """A :func:`~adhere.sandbox.run_python` call as data (picklable, for queues and Ray)."""

    source: str
    files: Mapping[str, str] = field(default_factory=dict)
    stdin: str = ""
    limits: Limits = field(default_factory=Limits)
    python: str | None = None


@dataclass(frozen=True)
class AssertsJob:
    """A :func:`~adhere.sandbox.run_asserts` call as data."""

    code: str
    asserts: Sequence[str] | str
    setup: str = ""
    files: Mapping[str, str] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    python: str | None = None


@dataclass(frozen=True)
class UnittestJob:
    """A :func:`~adhere.sandbox.run_unittest` call as data."""

    code: str
    test_module: str
    files: Mapping[str, str] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    python: str | None = None


Job = PythonJob | AssertsJob | UnittestJob
"""Any job spec :func:`~adhere.sandbox.run_job` and :func:`~adhere.sandbox.run_many` take."""
