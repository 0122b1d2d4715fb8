"""The common run loop of the agent-CLI scaffolds; each CLI adapter fills in the pure parts.

An adapter says, for a :class:`TrialContext`:

* :meth:`CliScaffold.config_files` — which configuration files to write (in the
  trial's throwaway HOME) and what they hold;
* :meth:`CliScaffold.environment` — its own environment variables (endpoint, dummy
  key, telemetry and update switches), added to the minimal base environment;
* :meth:`CliScaffold.invocation` — the command line (and stdin) of turn ``k``,
  given the session id the previous turn reported;
* :meth:`CliScaffold.parse_output` — the reply text and session id in its output.

These are pure functions of their inputs, so unit tests check them with plain data.
:meth:`CliScaffold.run` does the rest: install check, config files, one process per
user turn (in the agent sandbox unless the trial turns it off) with the trial's whole
time budget shared across turns, and the final workspace.
"""

from __future__ import annotations

import abc
import asyncio
import dataclasses
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from adhere.scaffolds._env import base_env, search_path
from adhere.scaffolds._install import NpmTool, install_npm_tool
from adhere.scaffolds._process import run_process
from adhere.scaffolds._sandbox import inside_url, sandbox_argv
from adhere.scaffolds._sandbox_host import DiskWatch, ProxyBridge, host_layout
from adhere.scaffolds._types import ScaffoldResult, TrialContext, TurnOutcome, WireApi
from adhere.scaffolds._versions import VersionSupport
from adhere.scaffolds._workspace import DEFAULT_IGNORE_DIRS, collect_files

__all__ = [
    "CliScaffold",
    "Invocation",
    "Parsed",
    "SystemPromptMode",
    "json_lines",
    "last_json",
]

SystemPromptMode = Literal["replace", "append"]
"""How the instance's system prompt reaches a CLI: instead of its own, or after it."""

LOG_DIR = ".adhere"
"""Directory in the trial's HOME holding each turn's full stdout and stderr."""


@dataclass(frozen=True)
class Invocation:
    """One headless run of a CLI: its argument vector and what to write to its stdin."""

    argv: tuple[str, ...]
    stdin: str | None = None


@dataclass(frozen=True)
class Parsed:
    """What a CLI's output says: the final reply text and the session id, if any."""

    text: str = ""
    session: str | None = None


class CliScaffold(abc.ABC):
    """Base of the adapters that drive a real agent CLI installed from npm.

    Args:
        version: The CLI version to install and run; unset, the adapter's pin. One
            of :attr:`unavailable_versions` is a ``ValueError``.
        extra_args: Arguments added to every invocation, before the prompt.
        extra_env: Variables added to the CLI's environment (explicit values only;
            nothing is copied from the runner's environment).
    """

    name: str
    tool: NpmTool
    """The CLI this scaffold runs: the class's pin, or the version it was built with."""
    api: WireApi
    ignore_dirs: ClassVar[frozenset[str]] = frozenset()
    """Workspace directories the CLI uses for its own state, left out of ``files``."""
    tested_versions: ClassVar[tuple[str, ...]] = ()
    """Versions besides the pin that this adapter is tested with (see ``_versions``)."""
    unavailable_versions: ClassVar[Mapping[str, str]] = {}
    """Versions known not to be installable → why not."""
    agent_sandbox: ClassVar[bool] = True
    """Its turns run in the agent sandbox unless the trial turns it off."""

    def __init__(
        self,
        *,
        version: str | None = None,
        extra_args: Sequence[str] = (),
        extra_env: Mapping[str, str] | None = None,
    ) -> None:
        if version is not None:
            why = self.unavailable_versions.get(version)
            if why is not None:
                raise ValueError(f"version {version} cannot be installed: {why}")
            self.tool = self.tool_at(version)
        self.extra_args = tuple(str(arg) for arg in extra_args)
        self.extra_env = {str(key): str(value) for key, value in (extra_env or {}).items()}

    @classmethod
    def versions(cls) -> VersionSupport:
        """The pin, the other tested versions and the uninstallable ones."""
        pinned = cls.tool.version
        tested = (pinned, *(v for v in cls.tested_versions if v != pinned))
        package = cls.tool.packages[0].rsplit("@", 1)[0]
        return VersionSupport(
            pinned=pinned,
            tested=tested,
            unavailable=dict(cls.unavailable_versions),
            package=f"npm {package}",
        )

    @classmethod
    def tool_at(cls, version: str) -> NpmTool:
        """The pinned tool moved to ``version`` (cached apart from the pin).

        The packages pinned at the CLI's version move with it; a separately versioned
        wrapper package stays.
        """
        pinned = cls.tool
        if version == pinned.version:
            return pinned
        suffix = f"@{pinned.version}"
        packages = tuple(
            p[: -len(suffix)] + f"@{version}" if p.endswith(suffix) else p for p in pinned.packages
        )
        return dataclasses.replace(pinned, version=version, packages=packages)

    # -- the pure parts, per adapter -------------------------------------------------

    def config_files(self, ctx: TrialContext) -> dict[Path, str]:
        """Files to write before the first turn, by absolute path."""
        return {}

    def environment(self, ctx: TrialContext) -> dict[str, str]:
        """The adapter's own environment variables."""
        return {}

    @abc.abstractmethod
    def invocation(
        self, ctx: TrialContext, executable: Path, turn: int, prompt: str, session: str | None
    ) -> Invocation | None:
        """The command of turn ``turn`` (0-based); ``None`` when it cannot continue."""

    @abc.abstractmethod
    def parse_output(self, stdout: str) -> Parsed:
        """Reply text and session id from one invocation's stdout."""

    # -- shared machinery ------------------------------------------------------------

    def process_env(self, ctx: TrialContext, executable: Path) -> dict[str, str]:
        """The complete environment of the CLI: the minimal base plus the adapter's own."""
        path = search_path(executable.parent)
        return base_env(ctx.home, path, {**self.environment(ctx), **self.extra_env})

    async def install(self, cache_dir: Path) -> None:
        """Install the scaffold's CLI version under ``cache_dir`` unless it is there already."""
        await asyncio.to_thread(install_npm_tool, self.tool, cache_dir)

    async def run(self, ctx: TrialContext) -> ScaffoldResult:
        """Play every user turn as one headless invocation; return outcomes and files.

        With ``ctx.sandbox`` (the default) every turn runs in the agent sandbox (see
        :mod:`adhere.scaffolds._sandbox`); the CLI is configured with the proxy's URL
        as it is reached inside (``http://127.0.0.1:PORT/…``, the same port).

        Raises:
            SandboxUnavailable: The sandbox is on but cannot be made on this host.
        """
        deadline = time.monotonic() + ctx.timeout_seconds
        await self.install(ctx.cache_dir)
        if not ctx.sandbox:
            return await self._play(ctx, deadline, _plain, None)
        layout = await asyncio.to_thread(host_layout)
        url, host, port = inside_url(ctx.endpoint.base_url)
        ctx = dataclasses.replace(ctx, endpoint=dataclasses.replace(ctx.endpoint, base_url=url))
        ctx.home.mkdir(parents=True, exist_ok=True)
        (ctx.home / LOG_DIR).mkdir(exist_ok=True)
        limits = ctx.sandbox_limits
        watch = await asyncio.to_thread(DiskWatch, (ctx.workdir, ctx.home), limits)
        async with ProxyBridge(host, port) as bridge:

            def wrap(argv: Sequence[str]) -> list[str]:
                return sandbox_argv(
                    layout,
                    limits,
                    argv,
                    workdir=os.path.abspath(ctx.workdir),
                    home=os.path.abspath(ctx.home),
                    install_dir=os.path.abspath(self.tool.directory(ctx.cache_dir)),
                    bridge_dir=str(bridge.directory),
                    port=port,
                    masked=(os.path.abspath(ctx.home / LOG_DIR),),
                )

            return await self._play(ctx, deadline, wrap, watch)

    async def _play(
        self,
        ctx: TrialContext,
        deadline: float,
        wrap: Callable[[Sequence[str]], list[str]],
        watch: DiskWatch | None,
    ) -> ScaffoldResult:
        executable = self.tool.executable(ctx.cache_dir)
        _prepare(ctx, self.config_files(ctx))
        env = self.process_env(ctx, executable)
        outcomes: list[TurnOutcome] = []
        session: str | None = None
        final_text = ""
        for turn, prompt in enumerate(ctx.instance.turns):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                outcomes.append(
                    _skipped("the trial's time budget was used up before this turn", True)
                )
                break
            invocation = self.invocation(ctx, executable, turn, prompt, session)
            if invocation is None:
                outcomes.append(
                    _skipped("cannot continue the session: the previous turn reported no id", False)
                )
                break
            completed = await run_process(
                wrap(invocation.argv),
                cwd=ctx.workdir,
                env=env,
                timeout=remaining,
                log_prefix=ctx.home / LOG_DIR / f"turn-{turn}",
                stdin=invocation.stdin,
                watch=None if watch is None else watch.check,
                watch_interval=(lambda: 1.0) if watch is None else (lambda: watch.interval),
            )
            parsed = self.parse_output(completed.stdout)
            outcomes.append(dataclasses.replace(completed.outcome, final_text=parsed.text))
            session = parsed.session or session
            final_text = parsed.text
            if completed.outcome.timed_out:
                break
        files = collect_files(ctx.workdir, ignore_dirs=DEFAULT_IGNORE_DIRS | self.ignore_dirs)
        return ScaffoldResult(turns=tuple(outcomes), files=files, final_text=final_text)


def _plain(argv: Sequence[str]) -> list[str]:
    return list(argv)


def _prepare(ctx: TrialContext, files: Mapping[Path, str]) -> None:
    ctx.home.mkdir(parents=True, exist_ok=True)
    (ctx.home / "tmp").mkdir(exist_ok=True)
    for path, content in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        if path.suffix == ".json" or path.suffix == ".toml":
            os.chmod(path, 0o600)


def _skipped(reason: str, timed_out: bool) -> TurnOutcome:
    return TurnOutcome(exit_code=None, stderr_tail=f"adhere: {reason}", timed_out=timed_out)


def json_lines(text: str) -> list[dict[str, Any]]:
    """Every line of ``text`` that is a JSON object, in order (others are skipped)."""
    events: list[dict[str, Any]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            events.append(value)
    return events


def last_json(text: str) -> Any:
    """The JSON document in ``text``: the whole text, else its last JSON-object line.

    Returns ``None`` when there is none.
    """
    stripped = text.strip()
    if stripped:
        try:
            return json.loads(stripped)
        except ValueError:
            pass
        start = stripped.find("\n{")
        if start >= 0:
            try:
                return json.loads(stripped[start + 1 :])
            except ValueError:
                pass
    events = json_lines(text)
    return events[-1] if events else None


def parse_result_object(stdout: str, text_key: str, session_key: str = "session_id") -> Parsed:
    """Reply text and session id from the last JSON object a CLI printed."""
    document = last_json(stdout)
    if not isinstance(document, dict):
        return Parsed()
    text = document.get(text_key)
    session = document.get(session_key)
    return Parsed(
        text=text if isinstance(text, str) else "",
        session=session if isinstance(session, str) and session else None,
    )
