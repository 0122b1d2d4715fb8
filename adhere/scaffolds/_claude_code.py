"""The ``claude-code`` scaffold: Anthropic's Claude Code CLI, headless (``claude -p``).

* Versions: 2.1.197 (the pin) and 2.0.69 (OctoBench's), both tested; any other npm
  version can be asked for (``version:`` in the Rollout) and is installed apart.
* API: Anthropic Messages (``POST /v1/messages?beta=true``, streaming), at
  ``ANTHROPIC_BASE_URL`` = the proxy base URL, with the dummy key in
  ``ANTHROPIC_API_KEY``.
* Offline: ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC``, ``DISABLE_TELEMETRY``,
  ``DISABLE_AUTOUPDATER``. As root the CLI refuses ``--dangerously-skip-permissions``
  unless ``IS_SANDBOX=1`` is set, so the adapter sets it then.
* System prompt: ``--system-prompt`` (replaces the CLI's own prompt, as the
  OctoBench harness does) or, with ``system_prompt_mode="append"``,
  ``--append-system-prompt``.
* Turns: the first is ``claude -p``; later ones add ``-c`` (continue the most recent
  conversation in the directory; the throwaway HOME holds only this trial's).
* Output: ``--output-format json``, one object whose ``result`` is the final reply.
* Policy files: CLAUDE.md reaches the model in a ``<system-reminder>`` of the first
  user message; AGENTS.md is never read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from adhere.scaffolds._cli import (
    CliScaffold,
    Invocation,
    Parsed,
    SystemPromptMode,
    parse_result_object,
)
from adhere.scaffolds._install import NpmTool
from adhere.scaffolds._registry import scaffold
from adhere.scaffolds._types import TrialContext, WireApi

__all__ = ["ClaudeCodeScaffold"]

VERSION = "2.1.197"
TESTED_VERSIONS = ("2.0.69",)
"""Also tested: 2.0.69, the version OctoBench's published instances were made with
(same flags; its tools ``Read``, ``Write``, ``Edit``, ``Bash`` … are named as in the pin)."""


@scaffold("claude-code")
class ClaudeCodeScaffold(CliScaffold):
    """Claude Code, headless, continuing its session across user turns.

    Args:
        system_prompt_mode: ``replace`` (``--system-prompt``, the default) or
            ``append`` (``--append-system-prompt``).
        version: The CLI version to run; unset, :data:`VERSION`.
        extra_args: Arguments added to every invocation.
        extra_env: Variables added to the CLI's environment.
    """

    name = "claude-code"
    tool = NpmTool(
        name="claude-code",
        version=VERSION,
        packages=(f"@anthropic-ai/claude-code@{VERSION}",),
        bin="claude",
        postinstall={"@anthropic-ai/claude-code": "install.cjs"},
    )
    api: WireApi = "anthropic"
    tested_versions = TESTED_VERSIONS

    def __init__(
        self,
        *,
        system_prompt_mode: SystemPromptMode = "replace",
        version: str | None = None,
        extra_args: Sequence[str] = (),
        extra_env: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(version=version, extra_args=extra_args, extra_env=extra_env)
        if system_prompt_mode not in ("replace", "append"):
            raise ValueError(
                f"system_prompt_mode must be 'replace' or 'append', not {system_prompt_mode!r}"
            )
        self.system_prompt_mode = system_prompt_mode
        self.as_root = os.geteuid() == 0

    def environment(self, ctx: TrialContext) -> dict[str, str]:
        """Endpoint, dummy key, and the switches that keep the CLI offline."""
        env = {
            "ANTHROPIC_BASE_URL": ctx.endpoint.base_url,
            "ANTHROPIC_API_KEY": ctx.endpoint.api_key,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
        if self.as_root:
            env["IS_SANDBOX"] = "1"
        return env

    def invocation(
        self, ctx: TrialContext, executable: Path, turn: int, prompt: str, session: str | None
    ) -> Invocation:
        """``claude -p --output-format json … [-c] -- PROMPT``."""
        argv = [
            str(executable),
            "-p",
            "--output-format",
            "json",
            "--model",
            ctx.endpoint.model,
            "--dangerously-skip-permissions",
        ]
        if ctx.instance.system_prompt:
            flag = (
                "--system-prompt"
                if self.system_prompt_mode == "replace"
                else "--append-system-prompt"
            )
            argv.append(f"{flag}={ctx.instance.system_prompt}")
        if turn > 0:
            argv.append("-c")
        argv += [*self.extra_args, "--", prompt]
        return Invocation(tuple(argv))

    def parse_output(self, stdout: str) -> Parsed:
        """``result`` and ``session_id`` of the JSON result object."""
        return parse_result_object(stdout, "result")
