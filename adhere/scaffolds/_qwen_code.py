"""The ``qwen-code`` scaffold: Alibaba's Qwen Code CLI (a Gemini CLI fork), headless.

* API: OpenAI Chat Completions (streaming) at ``OPENAI_BASE_URL`` = proxy + ``/v1``,
  dummy key in ``OPENAI_API_KEY``. Tool results come back as arrays of content
  parts; the tools are ``read_file`` (``file_path``), ``write_file``, ``edit``,
  ``run_shell_command``, ``grep_search``, ``glob``, ``list_directory``, ``skill``, ….
* Configuration: ``$HOME/.qwen/settings.json``: auth type ``openai``, usage
  statistics, telemetry and auto-update off, and managed auto-memory off (otherwise
  every run ends with an extra model call that writes memory files into HOME).
* System prompt: ``--append-system-prompt`` (the default) or, with
  ``system_prompt_mode="replace"``, ``--system-prompt``.
* Turns: ``qwen --yolo -o json --prompt=PROMPT`` (the ``--prompt=`` form keeps a
  prompt starting with ``-`` intact; a prompt on stdin gains trailing newlines);
  later turns add ``-c`` (resume the project's most recent session).
* The conversation opens with a fabricated exchange: a user message with the
  date, OS and directory listing, and the assistant reply "Got it. Thanks for the
  context!". So the model's first real turn is its second assistant message.
* Output: a JSON array of events; the ``result`` event holds the reply.
* Policy files: AGENTS.md appended to the system prompt; CLAUDE.md only when listed
  in ``context_file_names`` (``context.fileName``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from adhere.scaffolds._cli import CliScaffold, Invocation, Parsed, SystemPromptMode, last_json
from adhere.scaffolds._install import NpmTool
from adhere.scaffolds._registry import scaffold
from adhere.scaffolds._types import TrialContext, WireApi

__all__ = ["QwenCodeScaffold"]

VERSION = "0.15.10"
SETTINGS_FILE = Path(".qwen") / "settings.json"


@scaffold("qwen-code")
class QwenCodeScaffold(CliScaffold):
    """Qwen Code, headless in YOLO mode, resuming its session across user turns.

    Args:
        system_prompt_mode: ``append`` (the default) or ``replace``.
        context_file_names: Policy file names the CLI reads (``context.fileName``);
            empty keeps the CLI's default.
        version: The CLI version to run; unset, :data:`VERSION`.
        extra_args: Arguments added to every invocation.
        extra_env: Variables added to the CLI's environment.
    """

    name = "qwen-code"
    tool = NpmTool(
        name="qwen-code",
        version=VERSION,
        packages=(f"@qwen-code/qwen-code@{VERSION}",),
        bin="qwen",
    )
    api: WireApi = "openai-chat"

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
            "security": {"auth": {"selectedType": "openai"}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"enableAutoUpdate": False},
            "memory": {"enableManagedAutoMemory": False},
        }
        if self.context_file_names:
            settings["context"] = {"fileName": list(self.context_file_names)}
        return settings

    def config_files(self, ctx: TrialContext) -> dict[Path, str]:
        """``$HOME/.qwen/settings.json``."""
        text = json.dumps(self.settings(ctx), indent=2) + "\n"
        return {ctx.home / SETTINGS_FILE: text}

    def environment(self, ctx: TrialContext) -> dict[str, str]:
        """The OpenAI-compatible endpoint and the dummy key."""
        return {
            "OPENAI_API_KEY": ctx.endpoint.api_key,
            "OPENAI_BASE_URL": ctx.endpoint.base_url.rstrip("/") + "/v1",
        }

    def invocation(
        self, ctx: TrialContext, executable: Path, turn: int, prompt: str, session: str | None
    ) -> Invocation:
        """``qwen --yolo -o json -m MODEL [SP flag] [-c] --prompt=PROMPT``."""
        argv = [str(executable), "--yolo", "-o", "json", "-m", ctx.endpoint.model]
        if ctx.instance.system_prompt:
            flag = (
                "--system-prompt"
                if self.system_prompt_mode == "replace"
                else "--append-system-prompt"
            )
            argv.append(f"{flag}={ctx.instance.system_prompt}")
        if turn > 0:
            argv.append("-c")
        argv += [*self.extra_args, f"--prompt={prompt}"]
        return Invocation(tuple(argv))

    def parse_output(self, stdout: str) -> Parsed:
        """The ``result`` event's text and session id."""
        document = last_json(stdout)
        events = document if isinstance(document, list) else [document]
        text = ""
        session: str | None = None
        for event in events:
            if not isinstance(event, dict):
                continue
            if isinstance(event.get("session_id"), str):
                session = event["session_id"]
            if event.get("type") == "result" and isinstance(event.get("result"), str):
                text = event["result"]
        return Parsed(text=text, session=session)
