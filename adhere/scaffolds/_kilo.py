"""The ``kilo`` scaffold: Kilo Code's CLI (an opencode fork), headless (``kilo run``).

* Version 7.7.7 (7.8.1's platform package is missing from the registry). Kilo-dev
  0.10.2, the version OctoBench's instances name, is not on npm (see
  :data:`UNAVAILABLE_VERSIONS`).
* API: OpenAI Chat Completions (streaming) through an ``@ai-sdk/openai-compatible``
  provider named ``adhere`` whose ``baseURL`` is the proxy base URL + ``/v1``.
* Configuration: the whole config JSON in ``KILO_CONFIG_CONTENT`` (nothing is written
  to the workspace): the provider and its one model, ``enabled_providers``, sharing
  and auto-update off. Env ``KILO_TELEMETRY_LEVEL=off``,
  ``KILO_DISABLE_MODELS_FETCH=1``, ``KILO_DISABLE_AUTOUPDATE=1``.
* System prompt: Kilo has no flag for it. The adapter writes it to
  ``$HOME/.config/adhere/system-prompt.md`` and lists that file in the config's
  ``instructions``: Kilo appends it to its own system prompt as
  ``Instructions from: <file>``, after AGENTS.md.
* Prompt on stdin (given as an argument it reaches the model wrapped in quotes).
* Turns: ``kilo run --auto --format json``; later turns add ``-c`` (continue the last
  session). About 8–15 s of start-up per turn.
* Output: JSON events, one a line; the reply is the last ``text`` event's text.
* Policy files: AGENTS.md appended to the system prompt (``Instructions from:
  /abs/AGENTS.md``); CLAUDE.md only when there is no AGENTS.md.
"""

from __future__ import annotations

import json
from pathlib import Path

from adhere.scaffolds._cli import CliScaffold, Invocation, Parsed, json_lines
from adhere.scaffolds._install import NpmTool
from adhere.scaffolds._registry import scaffold
from adhere.scaffolds._types import TrialContext, WireApi

__all__ = ["KiloScaffold"]

VERSION = "7.7.7"
UNAVAILABLE_VERSIONS = {
    "0.10.2": (
        "Kilo-dev 0.10.2 (the version OctoBench's instances were made with) is not on npm: "
        "@kilocode/cli publishes 7.x only, a different product (an opencode fork) whose "
        "tools the published Kilo checks do not name"
    ),
}
PROVIDER = "adhere"
SYSTEM_PROMPT_FILE = Path(".config") / "adhere" / "system-prompt.md"
"""Where the instance's system prompt is written, relative to the trial's HOME."""


@scaffold("kilo")
class KiloScaffold(CliScaffold):
    """Kilo, headless with ``--auto``, continuing its session across user turns.

    Args:
        version: The CLI version to run; unset, :data:`VERSION`.
        extra_args: Arguments added to every invocation.
        extra_env: Variables added to the CLI's environment.
    """

    name = "kilo"
    tool = NpmTool(
        name="kilo",
        version=VERSION,
        packages=(f"@kilocode/cli@{VERSION}",),
        bin="kilo",
        postinstall={"@kilocode/cli": "postinstall.mjs"},
    )
    api: WireApi = "openai-chat"
    unavailable_versions = UNAVAILABLE_VERSIONS

    def config(self, ctx: TrialContext) -> dict[str, object]:
        """The Kilo configuration (sent in ``KILO_CONFIG_CONTENT``)."""
        model = ctx.endpoint.model
        config: dict[str, object] = {
            "provider": {
                PROVIDER: {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": PROVIDER,
                    "options": {
                        "baseURL": ctx.endpoint.base_url.rstrip("/") + "/v1",
                        "apiKey": ctx.endpoint.api_key,
                    },
                    "models": {model: {"name": model}},
                }
            },
            "enabled_providers": [PROVIDER],
            "model": f"{PROVIDER}/{model}",
            "share": "disabled",
            "autoupdate": False,
        }
        if ctx.instance.system_prompt:
            config["instructions"] = [str(ctx.home / SYSTEM_PROMPT_FILE)]
        return config

    def config_files(self, ctx: TrialContext) -> dict[Path, str]:
        """The system prompt file, when the instance has a system prompt."""
        if not ctx.instance.system_prompt:
            return {}
        return {ctx.home / SYSTEM_PROMPT_FILE: ctx.instance.system_prompt}

    def environment(self, ctx: TrialContext) -> dict[str, str]:
        """The config JSON and the switches that keep the CLI offline."""
        return {
            "KILO_CONFIG_CONTENT": json.dumps(self.config(ctx), ensure_ascii=False),
            "KILO_TELEMETRY_LEVEL": "off",
            "KILO_DISABLE_MODELS_FETCH": "1",
            "KILO_DISABLE_AUTOUPDATE": "1",
        }

    def invocation(
        self, ctx: TrialContext, executable: Path, turn: int, prompt: str, session: str | None
    ) -> Invocation:
        """``kilo run --auto --format json -m adhere/MODEL [-c]`` with the prompt on stdin."""
        argv = [
            str(executable),
            "run",
            "--auto",
            "--format",
            "json",
            "-m",
            f"{PROVIDER}/{ctx.endpoint.model}",
        ]
        if turn > 0:
            argv.append("-c")
        argv += self.extra_args
        return Invocation(tuple(argv), stdin=prompt)

    def parse_output(self, stdout: str) -> Parsed:
        """The last ``text`` event's text and the events' ``sessionID``."""
        text = ""
        session: str | None = None
        for event in json_lines(stdout):
            if isinstance(event.get("sessionID"), str):
                session = event["sessionID"]
            part = event.get("part")
            if event.get("type") == "text" and isinstance(part, dict):
                value = part.get("text")
                if isinstance(value, str):
                    text = value
        return Parsed(text=text, session=session)
