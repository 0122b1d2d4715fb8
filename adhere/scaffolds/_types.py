"""What a scaffold receives for one trial and what it gives back.

Every scaffold — the in-process ``chat`` and ``reference`` loops and the real agent
CLIs — reaches the model through the recording proxy: ``endpoint`` points at the
proxy with the trial's own path prefix (``…/t/<trial-id>/<upstream>``), carries a
dummy API key (the proxy adds the real one upstream), and names the API shape the
scaffold speaks. The runner builds the trajectory from the proxy's call log, so a
scaffold only has to drive the conversation and leave the workspace behind.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from adhere.core import Instance
from adhere.scaffolds._sandbox import SandboxLimits

WireApi = Literal["anthropic", "openai-chat", "openai-responses", "gemini"]
"""The four API shapes the recording proxy understands."""


@dataclass(frozen=True)
class ProxyEndpoint:
    """How a scaffold reaches the model for one trial.

    Attributes:
        base_url: Root URL through the proxy, without the API path, e.g.
            ``http://127.0.0.1:PORT/t/<trial-id>/<upstream>``. Append ``/v1`` for
            OpenAI-style SDKs; Anthropic and Gemini SDKs take it as is.
        model: Model id to request.
        api: The API shape the upstream speaks. In-process scaffolds (``chat``,
            ``reference``) use it to pick their client; CLI scaffolds speak a fixed
            shape and the runner checks the upstream supports it.
        api_key: A dummy key for the scaffold's configuration; never a real secret.
        stream: In-process scaffolds use the streaming form of the API (the model's
            ``stream`` setting); CLI scaffolds choose for themselves.
        max_tokens: In-process scaffolds' output cap per reply; ``None`` takes the
            client's default. CLIs use their own.
        temperature: In-process scaffolds' sampling temperature; ``None`` takes the
            client's default. CLIs use their own.
        max_retries: In-process scaffolds' retries of a failed call (the model
            endpoint's ``limits.maxRetries``); ``None`` takes the client's default.
            CLIs retry as they do.
        backoff_base_seconds: First retry delay of in-process scaffolds (the model
            endpoint's ``limits.backoffBaseSeconds``).
    """

    base_url: str
    model: str
    api: WireApi = "openai-chat"
    api_key: str = "sk-adhere-dummy"
    stream: bool = False
    max_tokens: int | None = None
    temperature: float | None = None
    max_retries: int | None = None
    backoff_base_seconds: float | None = None


@dataclass(frozen=True)
class TrialContext:
    """Everything a scaffold needs to run one trial.

    Attributes:
        trial_id: Stable id of the trial.
        instance: The instance (system prompt, user turns, workspace, metadata).
        workdir: The trial's own copy of the workspace; the scaffold runs in it.
        home: A throwaway HOME for the CLI's configuration and session files.
        endpoint: The model, reached through the recording proxy.
        timeout_seconds: Wall-clock budget for the whole trial (all turns).
        cache_dir: Where pinned CLIs are installed (outside the repository).
        sandbox: Run each agent CLI turn in the agent sandbox (bubblewrap: only the
            workspace and HOME writable, network only to the proxy; see
            ``docs/scaffolds.md``, "Agent sandbox"). In-process scaffolds ignore it.
        sandbox_limits: Its size limits (``/tmp``, one file, workspace growth).
    """

    trial_id: str
    instance: Instance
    workdir: Path
    home: Path
    endpoint: ProxyEndpoint
    timeout_seconds: float
    cache_dir: Path
    sandbox: bool = True
    sandbox_limits: SandboxLimits = field(default_factory=SandboxLimits)


@dataclass(frozen=True)
class TurnOutcome:
    """One headless invocation of a scaffold (one user turn).

    Attributes:
        exit_code: The process's exit status; ``None`` when it was killed on timeout
            or never started (in-process scaffolds report 0 for a finished turn).
        stdout_tail: The end of its stdout.
        stderr_tail: The end of its stderr (or why the turn did not run).
        timed_out: The trial's time budget ran out during or before this turn.
        seconds: Wall time of the turn.
        final_text: The turn's last reply text, as the scaffold reported it.
    """

    exit_code: int | None
    stdout_tail: str = ""
    stderr_tail: str = ""
    timed_out: bool = False
    seconds: float = 0.0
    final_text: str = ""


@dataclass(frozen=True)
class ScaffoldResult:
    """What a scaffold leaves behind: per-turn outcomes and the final workspace files.

    ``files`` maps workspace-relative paths to text content (binary and very large
    files are listed with a placeholder); the raw model calls are in the proxy log.
    """

    turns: tuple[TurnOutcome, ...]
    files: Mapping[str, str] = field(default_factory=dict)
    final_text: str = ""

    @property
    def ok(self) -> bool:
        """Every turn exited 0 without timing out."""
        return all(t.exit_code == 0 and not t.timed_out for t in self.turns)


class Scaffold(Protocol):
    """Drives a model through one instance."""

    name: str
    api: WireApi
    """The API shape the scaffold speaks (decides how the proxy and normalizer read calls)."""

    async def install(self, cache_dir: Path) -> None:
        """Make sure the scaffold's pinned CLI is installed under ``cache_dir`` (idempotent)."""
        ...

    async def run(self, ctx: TrialContext) -> ScaffoldResult:
        """Play the instance's user turns in ``ctx.workdir`` and return what is left."""
        ...
