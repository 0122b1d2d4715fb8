"""The ``droid`` scaffold: Factory's Droid CLI, headless (``droid exec``).

* Version: the binary reports 0.225.2; it ships in the platform package
  ``@factory/cli-<os>-<arch>@0.225.2``, named explicitly because the registry's
  newest wrapper, ``@factory/cli@0.225.1``, pins an older platform package. Another
  version moves the platform package (the wrapper stays). 0.42.2, the OctoBench
  paper's, is not on npm (see :data:`UNAVAILABLE_VERSIONS`).
* API: Chat Completions (custom model with ``provider:
  generic-chat-completion-api``, ``baseUrl`` = proxy + ``/v1``), or Anthropic
  Messages with ``provider="anthropic"`` (``baseUrl`` = the proxy base URL).
* Configuration: a runtime settings file (``--settings``) in the trial's HOME with
  one ``customModels`` entry named ``adhere``, selected as ``custom:adhere-0``.
  ``FACTORY_AIRGAP_ENABLED=1`` blocks every call to Factory's services; no login.
* System prompt: ``--append-system-prompt`` (after Droid's own prompt).
* Turns: ``droid exec --auto high -o json -- PROMPT``. ``-s <session>`` cannot be
  used offline (it fetches the session from Factory's API, which airgap mode
  blocks), so later turns use ``--fork <previous session>``: a new session holding
  the whole earlier conversation, continued with the new prompt. The model sees one
  continuous conversation.
* Output: one JSON object; ``result`` is the reply, ``session_id`` the session.
* Policy files: AGENTS.md and CLAUDE.md, inside ``<system-reminder>`` parts of the
  first user message (``<coding_guidelines>``); that message also lists the names of
  the environment variables, which is one more reason the environment is minimal.
"""

from __future__ import annotations

import json
import platform
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from adhere.scaffolds._cli import CliScaffold, Invocation, Parsed, parse_result_object
from adhere.scaffolds._install import NpmTool
from adhere.scaffolds._registry import scaffold
from adhere.scaffolds._types import TrialContext, WireApi

__all__ = ["DroidScaffold"]

VERSION = "0.225.2"
WRAPPER_VERSION = "0.225.1"
UNAVAILABLE_VERSIONS = {
    "0.42.2": (
        "Droid 0.42.2 (the version of the OctoBench paper) is not on npm: @factory/cli "
        "publishes 0.225.1 only and its binary package @factory/cli-linux-x64 0.99.0 and later"
    ),
}
DISPLAY_NAME = "adhere"
SETTINGS_FILE = Path(".factory") / "adhere-settings.json"
"""The runtime settings file, relative to the trial's HOME."""

Provider = Literal["generic-chat-completion-api", "anthropic"]


def platform_package(system: str | None = None, machine: str | None = None) -> str:
    """The name of Droid's binary package for this machine, e.g. ``@factory/cli-linux-x64``."""
    system = (system or platform.system()).lower()
    machine = (machine or platform.machine()).lower()
    os_name = {"linux": "linux", "darwin": "darwin", "windows": "win32"}.get(system, system)
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        machine, machine
    )
    return f"@factory/cli-{os_name}-{arch}"


@scaffold("droid")
class DroidScaffold(CliScaffold):
    """Droid, headless with ``--auto high``, forking its session for each later turn.

    Args:
        provider: ``generic-chat-completion-api`` (Chat Completions, the default) or
            ``anthropic`` (Messages); decides :attr:`api`.
        max_output_tokens: The custom model's output cap.
        version: The CLI version to run; unset, :data:`VERSION`.
        extra_args: Arguments added to every invocation.
        extra_env: Variables added to the CLI's environment.
    """

    name = "droid"
    tool = NpmTool(
        name="droid",
        version=VERSION,
        packages=(f"@factory/cli@{WRAPPER_VERSION}", f"{platform_package()}@{VERSION}"),
        bin="droid",
        postinstall={"@factory/cli": "install.js"},
    )
    unavailable_versions = UNAVAILABLE_VERSIONS

    def __init__(
        self,
        *,
        provider: Provider = "generic-chat-completion-api",
        max_output_tokens: int = 16384,
        version: str | None = None,
        extra_args: Sequence[str] = (),
        extra_env: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(version=version, extra_args=extra_args, extra_env=extra_env)
        if provider not in ("generic-chat-completion-api", "anthropic"):
            raise ValueError(
                f"provider must be 'generic-chat-completion-api' or 'anthropic', not {provider!r}"
            )
        self.provider = provider
        self.max_output_tokens = int(max_output_tokens)
        self.api: WireApi = "anthropic" if provider == "anthropic" else "openai-chat"

    def settings(self, ctx: TrialContext) -> dict[str, object]:
        """The runtime settings: one custom model pointing at the proxy."""
        base = ctx.endpoint.base_url.rstrip("/")
        return {
            "customModels": [
                {
                    "model": ctx.endpoint.model,
                    "displayName": DISPLAY_NAME,
                    "baseUrl": base if self.provider == "anthropic" else base + "/v1",
                    "apiKey": ctx.endpoint.api_key,
                    "provider": self.provider,
                    "maxOutputTokens": self.max_output_tokens,
                }
            ]
        }

    def config_files(self, ctx: TrialContext) -> dict[Path, str]:
        """The runtime settings file."""
        text = json.dumps(self.settings(ctx), indent=2, ensure_ascii=False) + "\n"
        return {ctx.home / SETTINGS_FILE: text}

    def environment(self, ctx: TrialContext) -> dict[str, str]:
        """Airgap mode: no call to Factory's services."""
        return {"FACTORY_AIRGAP_ENABLED": "1"}

    def invocation(
        self, ctx: TrialContext, executable: Path, turn: int, prompt: str, session: str | None
    ) -> Invocation | None:
        """``droid exec --settings … --auto high -m custom:adhere-0 -o json [--fork S] -- P``."""
        if turn > 0 and session is None:
            return None
        argv = [
            str(executable),
            "exec",
            "--settings",
            str(ctx.home / SETTINGS_FILE),
            "--auto",
            "high",
            "-m",
            f"custom:{DISPLAY_NAME}-0",
            "-o",
            "json",
        ]
        if ctx.instance.system_prompt:
            argv.append(f"--append-system-prompt={ctx.instance.system_prompt}")
        if turn > 0 and session is not None:
            argv += ["--fork", session]
        argv += [*self.extra_args, "--", prompt]
        return Invocation(tuple(argv))

    def parse_output(self, stdout: str) -> Parsed:
        """``result`` and ``session_id`` of the JSON result object."""
        return parse_result_object(stdout, "result")
