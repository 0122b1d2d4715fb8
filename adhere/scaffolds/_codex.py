"""The ``codex`` scaffold: OpenAI's Codex CLI, headless (``codex exec``).

* API: OpenAI Responses only (``POST /v1/responses``, SSE ``response.*`` events).
  Its tools are ``exec_command`` (``{"cmd": …}``), ``write_stdin``, ``view_image``
  and a few more; with a model name it knows it also offers ``apply_patch``.
* Configuration: ``$CODEX_HOME/config.toml`` (``CODEX_HOME`` = ``$HOME/.codex``) with
  a ``[model_providers.adhere]`` entry (``base_url`` = proxy + ``/v1``,
  ``wire_api = "responses"``, the dummy key read from ``ADHERE_CODEX_API_KEY``),
  ``approval_policy = "never"``, ``sandbox_mode = "danger-full-access"``, the
  ``plugins`` and ``remote_plugin`` features off, analytics and feedback off.
  ``TMPDIR`` points into the trial's HOME, so ``CODEX_HOME`` is not under the
  system temporary directory (where Codex refuses to create its helper binaries).
* System prompt: ``developer_instructions`` in the config; Codex sends it as a
  ``developer`` message after its own instructions (also a developer message).
* Turns: ``codex exec --json --skip-git-repo-check
  --dangerously-bypass-approvals-and-sandbox -- PROMPT``; later turns run ``codex
  exec resume … -- <thread id> PROMPT`` with the id from the ``thread.started``
  event (``--last`` when none was seen).
* Output: JSON events, one a line; the reply is the last ``agent_message`` item.
* Policy files: AGENTS.md only, as a user message ``# AGENTS.md instructions for
  <dir>``.
"""

from __future__ import annotations

import json
from pathlib import Path

from adhere.scaffolds._cli import CliScaffold, Invocation, Parsed, json_lines
from adhere.scaffolds._install import NpmTool
from adhere.scaffolds._registry import scaffold
from adhere.scaffolds._types import TrialContext, WireApi

__all__ = ["CodexScaffold", "toml_string"]

VERSION = "0.169.0"
PROVIDER = "adhere"
KEY_VARIABLE = "ADHERE_CODEX_API_KEY"
CODEX_DIR = ".codex"
_FLAGS = ("--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox")


def toml_string(value: str) -> str:
    """``value`` as a TOML basic string (JSON escapes are valid TOML; DEL is escaped too)."""
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


@scaffold("codex")
class CodexScaffold(CliScaffold):
    """Codex, headless with approvals and sandbox off, resuming its thread across turns.

    Args:
        version: The CLI version to run; unset, :data:`VERSION`.
        extra_args: Arguments added to every invocation.
        extra_env: Variables added to the CLI's environment.
    """

    name = "codex"
    tool = NpmTool(
        name="codex", version=VERSION, packages=(f"@openai/codex@{VERSION}",), bin="codex"
    )
    api: WireApi = "openai-responses"

    def config_toml(self, ctx: TrialContext) -> str:
        """The text of ``config.toml``."""
        lines = [
            f"model = {toml_string(ctx.endpoint.model)}",
            f"model_provider = {toml_string(PROVIDER)}",
            'approval_policy = "never"',
            'sandbox_mode = "danger-full-access"',
        ]
        if ctx.instance.system_prompt:
            lines.append(f"developer_instructions = {toml_string(ctx.instance.system_prompt)}")
        lines += [
            "",
            f"[model_providers.{PROVIDER}]",
            f"name = {toml_string(PROVIDER)}",
            f"base_url = {toml_string(ctx.endpoint.base_url.rstrip('/') + '/v1')}",
            f"env_key = {toml_string(KEY_VARIABLE)}",
            'wire_api = "responses"',
            "",
            "[features]",
            "plugins = false",
            "remote_plugin = false",
            "",
            "[analytics]",
            "enabled = false",
            "",
            "[feedback]",
            "enabled = false",
        ]
        return "\n".join(lines) + "\n"

    def config_files(self, ctx: TrialContext) -> dict[Path, str]:
        """``$HOME/.codex/config.toml``."""
        return {ctx.home / CODEX_DIR / "config.toml": self.config_toml(ctx)}

    def environment(self, ctx: TrialContext) -> dict[str, str]:
        """``CODEX_HOME`` and the dummy key under the name the config gives."""
        return {"CODEX_HOME": str(ctx.home / CODEX_DIR), KEY_VARIABLE: ctx.endpoint.api_key}

    def invocation(
        self, ctx: TrialContext, executable: Path, turn: int, prompt: str, session: str | None
    ) -> Invocation:
        """``codex exec …  -- PROMPT``, then ``codex exec resume … -- THREAD PROMPT``."""
        model = ("-m", ctx.endpoint.model)
        if turn == 0:
            argv = [str(executable), "exec", *_FLAGS, *model, *self.extra_args, "--", prompt]
        elif session is not None:
            argv = [str(executable), "exec", "resume", *_FLAGS, *model, *self.extra_args]
            argv += ["--", session, prompt]
        else:
            argv = [str(executable), "exec", "resume", "--last", *_FLAGS, *model]
            argv += [*self.extra_args, "--", prompt]
        return Invocation(tuple(argv))

    def parse_output(self, stdout: str) -> Parsed:
        """The last ``agent_message`` text and the ``thread.started`` id."""
        text = ""
        session: str | None = None
        for event in json_lines(stdout):
            kind = event.get("type")
            if kind == "thread.started" and isinstance(event.get("thread_id"), str):
                session = event["thread_id"]
            item = event.get("item")
            if kind == "item.completed" and isinstance(item, dict):
                if item.get("type") == "agent_message" and isinstance(item.get("text"), str):
                    text = item["text"]
        return Parsed(text=text, session=session)
