"""The ``gemini-cli`` scaffold: Google's Gemini CLI, headless (``gemini -p``).

* API: the Gemini API only (``POST /v1beta/models/<model>:streamGenerateContent
  ?alt=sse``) at ``GOOGLE_GEMINI_BASE_URL`` = the proxy base URL, dummy key in
  ``GEMINI_API_KEY``. Tools: ``read_file`` (``file_path``), ``write_file``,
  ``replace``, ``run_shell_command``, ``grep_search``, ``glob``, ``list_directory``,
  ``activate_skill``, ….
* Configuration: ``$HOME/.gemini/settings.json``: auth type ``gemini-api-key``,
  usage statistics, telemetry, auto-update and its notification off.
* System prompt: appended by default — written as the global context file
  ``$HOME/.gemini/GEMINI.md`` (or the first of ``context_file_names``), which the
  CLI adds to its system instruction under "Context from: …". With
  ``system_prompt_mode="replace"`` it goes to ``$HOME/.gemini/system.md`` named by
  ``GEMINI_SYSTEM_MD``, which replaces the CLI's own system instruction.
* Turns: ``gemini --skip-trust --yolo -o json --prompt=PROMPT``; later turns add
  ``--resume latest``.
* Output: one JSON object; ``response`` is the reply, ``session_id`` the session.
* Policy files: only those named in ``context.fileName`` (default ``GEMINI.md``);
  AGENTS.md and CLAUDE.md only when listed in ``context_file_names``.
"""

from __future__ import annotations

import json
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

__all__ = ["GeminiCliScaffold"]

VERSION = "0.61.0"
GEMINI_DIR = ".gemini"
DEFAULT_CONTEXT_FILE = "GEMINI.md"


@scaffold("gemini-cli")
class GeminiCliScaffold(CliScaffold):
    """Gemini CLI, headless in YOLO mode, resuming its latest session across turns.

    Args:
        system_prompt_mode: ``append`` (global context file, the default) or
            ``replace`` (``GEMINI_SYSTEM_MD``).
        context_file_names: Policy file names the CLI reads (``context.fileName``);
            empty keeps the CLI's default, ``GEMINI.md``.
        version: The CLI version to run; unset, :data:`VERSION`.
        extra_args: Arguments added to every invocation.
        extra_env: Variables added to the CLI's environment.
    """

    name = "gemini-cli"
    tool = NpmTool(
        name="gemini-cli",
        version=VERSION,
        packages=(f"@google/gemini-cli@{VERSION}",),
        bin="gemini",
    )
    api: WireApi = "gemini"

    def __init__(
        self,
        *,
        system_prompt_mode: SystemPromptMode = "append",
        context_file_names: Sequence[str] = (),
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
        self.context_file_names = tuple(context_file_names)

    def settings(self, ctx: TrialContext) -> dict[str, object]:
        """The user settings of the throwaway HOME."""
        settings: dict[str, object] = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        }
        if self.context_file_names:
            settings["context"] = {"fileName": list(self.context_file_names)}
        return settings

    def system_prompt_path(self, ctx: TrialContext) -> Path:
        """Where the instance's system prompt is written (depends on the mode)."""
        if self.system_prompt_mode == "replace":
            return ctx.home / GEMINI_DIR / "system.md"
        names = self.context_file_names or (DEFAULT_CONTEXT_FILE,)
        return ctx.home / GEMINI_DIR / names[0]

    def config_files(self, ctx: TrialContext) -> dict[Path, str]:
        """``settings.json`` and, when there is a system prompt, its file."""
        files = {ctx.home / GEMINI_DIR / "settings.json": json.dumps(self.settings(ctx), indent=2)}
        if ctx.instance.system_prompt:
            files[self.system_prompt_path(ctx)] = ctx.instance.system_prompt
        return files

    def environment(self, ctx: TrialContext) -> dict[str, str]:
        """The Gemini endpoint, the dummy key and, to replace the prompt, its file."""
        env = {
            "GEMINI_API_KEY": ctx.endpoint.api_key,
            "GOOGLE_GEMINI_BASE_URL": ctx.endpoint.base_url.rstrip("/"),
        }
        if ctx.instance.system_prompt and self.system_prompt_mode == "replace":
            env["GEMINI_SYSTEM_MD"] = str(self.system_prompt_path(ctx))
        return env

    def invocation(
        self, ctx: TrialContext, executable: Path, turn: int, prompt: str, session: str | None
    ) -> Invocation:
        """``gemini --skip-trust --yolo -m MODEL -o json [--resume latest] --prompt=P``."""
        argv = [str(executable), "--skip-trust", "--yolo", "-m", ctx.endpoint.model, "-o", "json"]
        if turn > 0:
            argv += ["--resume", "latest"]
        argv += [*self.extra_args, f"--prompt={prompt}"]
        return Invocation(tuple(argv))

    def parse_output(self, stdout: str) -> Parsed:
        """``response`` and ``session_id`` of the JSON result object."""
        return parse_result_object(stdout, "response")
