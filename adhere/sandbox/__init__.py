"""Sandboxed execution of untrusted code: one limited, network-less process per run.

Model-written code and benchmark tests (MBPP asserts, BigCodeBench unittest modules,
LiveCodeBench stdin/stdout cases, ManyIH code checks) never run in the evaluator's
process: each run is a separate Python process, and the evaluator only starts it
and reads back its output and a small JSON outcome.

::

    await run_asserts("def f(x): return x + 1", ["assert f(1) == 2"])
    RunResult(status="pass", detail="1 test statement passed", isolation="netns", ...)

Each run gets:

- a fresh temporary directory as working directory, ``HOME`` and ``TMPDIR`` (``files``
  written into it, importable; removed afterwards);
- ``python -s -c <harness>`` — the interpreter given (default ``sys.executable``),
  no user site-packages, an environment built from scratch (``PATH``, ``HOME``,
  ``TMPDIR``, ``LANG``, ``PYTHONHASHSEED=0``, ``PYTHONDONTWRITEBYTECODE=1``, one
  BLAS/OpenMP thread) so no secret of the evaluator is inherited. (Not ``-I``: it
  would discard ``PYTHONHASHSEED``; with nothing else in the environment ``-s`` is
  as isolated);
- a new session (process group); rlimits ``RLIMIT_AS``, ``RLIMIT_CPU`` (soft SIGXCPU,
  hard +1 s), ``RLIMIT_FSIZE``, ``RLIMIT_CORE=0`` and, when the code runs as a
  dedicated uid, ``RLIMIT_NPROC`` — set by the child's harness before any untrusted
  code exists in it (not in a ``preexec_fn``, which is unsafe in a threaded
  evaluator);
- namespaces (bubblewrap, ``bwrap``, wherever it works; for ``netns`` and ``guard``
  runs alike): a fresh ``/proc`` showing only the run's processes, a read-only root,
  private ``/tmp`` and ``/dev/shm``, home directories and mounted secrets hidden
  (the interpreter's own directories bound back), capabilities dropped, and a PID
  namespace so nothing the code starts outlives the run. Without ``bwrap``,
  ``unshare --net --pid --fork --kill-child --mount-proc`` for ``netns`` runs;
- no network: a network namespace whose only interface is a loopback that is down
  (``isolation="netns"``) when one can be made here; else an in-process guard that
  makes Python's sockets and name resolution raise (``isolation="guard"``; child
  processes bypass it);
- as root, an unprivileged uid (65534) when the interpreter can run as it (in the
  namespace layout, a virtualenv under ``/root`` can); otherwise uid 0 with no
  capabilities inside the namespaces, or plain root where there are none;
- at the wall-clock limit, SIGKILL for the whole process group, then status
  ``timeout``; stdout and stderr capped at ``Limits.max_output`` bytes each.

Statuses: ``pass``, ``fail`` (assertion, unittest failure, wrong output, non-zero
``sys.exit``), ``timeout`` (wall clock or CPU), ``crash`` (other exceptions, signals,
tests that ended early, harness problems). :class:`SandboxError` is raised only when
nothing can run as asked (no interpreter; ``netns`` required but unavailable).

Pure packages (``spec``, ``suites``, ``judging``, ``metrics``) must not import this
package (an import-linter contract); the runner executes code checks through it and
hands the results to them as data. See ``docs/sandbox.md``.
"""

from adhere.sandbox._api import (
    run_asserts,
    run_io,
    run_job,
    run_many,
    run_many_sync,
    run_python,
    run_sync,
    run_unittest,
    summarize,
)
from adhere.sandbox._classify import compare_output, normalize_output
from adhere.sandbox._envs import EnvError, Environment, env_home, install_environment
from adhere.sandbox._plan import ISOLATION_ENV
from adhere.sandbox._probe import SandboxInfo, sandbox_info
from adhere.sandbox._types import (
    AssertsJob,
    Isolation,
    Job,
    Limits,
    PythonJob,
    RunResult,
    SandboxError,
    Status,
    UnittestJob,
)

__all__ = [
    "AssertsJob",
    "EnvError",
    "Environment",
    "ISOLATION_ENV",
    "Isolation",
    "Job",
    "Limits",
    "PythonJob",
    "RunResult",
    "SandboxError",
    "SandboxInfo",
    "Status",
    "UnittestJob",
    "compare_output",
    "env_home",
    "install_environment",
    "normalize_output",
    "run_asserts",
    "run_io",
    "run_job",
    "run_many",
    "run_many_sync",
    "run_python",
    "run_sync",
    "run_unittest",
    "sandbox_info",
    "summarize",
]
