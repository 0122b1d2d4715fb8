"""Scaffolds: how a model is driven through an instance.

A scaffold receives a :class:`TrialContext` (instance, work directory, throwaway
HOME, proxy endpoint, time budget, CLI cache) and returns a :class:`ScaffoldResult`
(per-turn outcomes, final reply, final workspace). Built-ins, by name:

* ``chat`` — plain multi-turn chat through the model client, no tools;
* ``reference`` — a small tool-using agent loop in Python (no Node needed);
* ``claude-code``, ``kilo``, ``droid``, ``codex``, ``qwen-code``, ``gemini-cli`` —
  the real agent CLIs, pinned, installed from npm into a cache outside the
  repository (``python -m adhere.scaffolds.install --all``) and run headless.

Each agent CLI turn runs in the agent sandbox (bubblewrap) unless the trial turns it
off: :func:`check_agent_sandbox` says at start whether it can be made here, and
:func:`runs_in_sandbox` which scaffolds use it.

See ``docs/scaffolds.md``.
"""

from adhere.scaffolds._install import CACHE_ENV, InstallError, default_cache_dir
from adhere.scaffolds._registry import (
    get_scaffold,
    installable,
    scaffold,
    scaffold_names,
    version_support,
)
from adhere.scaffolds._sandbox import SandboxLimits, check_agent_sandbox, runs_in_sandbox
from adhere.scaffolds._types import (
    ProxyEndpoint,
    Scaffold,
    ScaffoldResult,
    TrialContext,
    TurnOutcome,
    WireApi,
)
from adhere.scaffolds._versions import BUILTIN, VersionSupport
from adhere.scaffolds._workspace import DEFAULT_IGNORE_DIRS, WorkspaceLimits, collect_files

__all__ = [
    "BUILTIN",
    "CACHE_ENV",
    "DEFAULT_IGNORE_DIRS",
    "InstallError",
    "ProxyEndpoint",
    "SandboxLimits",
    "Scaffold",
    "ScaffoldResult",
    "TrialContext",
    "TurnOutcome",
    "VersionSupport",
    "WireApi",
    "WorkspaceLimits",
    "check_agent_sandbox",
    "collect_files",
    "default_cache_dir",
    "get_scaffold",
    "installable",
    "runs_in_sandbox",
    "scaffold",
    "scaffold_names",
    "version_support",
]
