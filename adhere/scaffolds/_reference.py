"""The ``reference`` scaffold: a small built-in coding agent for machines without Node.

It speaks Anthropic Messages or OpenAI Chat Completions (from ``ctx.endpoint.api``)
through the model client and offers five tools (:mod:`._reference_tools`): Read,
Write, Edit, Bash and Skill. The system prompt is a short preamble naming the tools,
then the instance's system prompt, then the workspace's policy files (AGENTS.md,
CLAUDE.md) and the names of its skills. Each user turn is appended to one running
conversation; within a turn the agent calls tools until the model answers without
a tool call, or until ``max_steps`` model calls. The whole trial shares
``ctx.timeout_seconds``.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from adhere.core import ChatMessage
from adhere.models import ModelClient
from adhere.scaffolds._client import client_endpoint, open_trial_client
from adhere.scaffolds._reference_tools import LOG_DIR, Toolbox, list_skills
from adhere.scaffolds._registry import scaffold
from adhere.scaffolds._sandbox import sandbox_argv
from adhere.scaffolds._types import ScaffoldResult, TrialContext, TurnOutcome, WireApi
from adhere.scaffolds._workspace import collect_files
from adhere.wire import ChatRequest

__all__ = ["PREAMBLE", "ReferenceScaffold", "system_prompt"]

PREAMBLE = (
    "You are a coding agent working in a software project. The project is your current "
    "directory; paths are relative to it. Use the tools Read, Write, Edit and Bash to "
    "inspect and change files and to run commands, and Skill to load a skill's "
    "instructions. When the task is done, answer without calling a tool."
)
POLICY_FILES = ("AGENTS.md", "CLAUDE.md")


def system_prompt(
    workdir: Path,
    instance_prompt: str,
    *,
    preamble: str = PREAMBLE,
    policy_files: Sequence[str] = POLICY_FILES,
) -> str:
    """The agent's system prompt: preamble, instance prompt, policy files, skill names."""
    parts = [part for part in (preamble, instance_prompt) if part]
    for name in policy_files:
        path = workdir / name
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace").strip()
            parts.append(f"Project instructions from {name}:\n{text}")
    skills = list_skills(workdir)
    if skills:
        parts.append("Skills available through the Skill tool: " + ", ".join(sorted(skills)))
    return "\n\n".join(parts)


@scaffold("reference")
class ReferenceScaffold:
    """A minimal tool-using agent loop in Python.

    Args:
        max_steps: Model calls allowed per user turn.
        bash_timeout: Longest one Bash command may run, in seconds.
        max_tokens: Output cap per model reply; unset takes the client's default.
        preamble: The fixed opening of the system prompt.
    """

    name = "reference"
    api: WireApi = "openai-chat"
    """Either in-process shape works; the trial's endpoint decides which is used."""
    agent_sandbox: ClassVar[bool] = True
    """Its Bash commands run in the agent sandbox (without network: the agent loop
    itself, which calls the model, runs in the runner) unless the trial turns it off."""

    def __init__(
        self,
        *,
        max_steps: int = 50,
        bash_timeout: float = 120.0,
        max_tokens: int | None = None,
        preamble: str = PREAMBLE,
    ) -> None:
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        self.max_steps = max_steps
        self.bash_timeout = bash_timeout
        self.max_tokens = max_tokens
        self.preamble = preamble

    async def install(self, cache_dir: Path) -> None:
        """Nothing to install: the scaffold runs in-process."""

    async def run(self, ctx: TrialContext) -> ScaffoldResult:
        """Play each user turn as an agent loop; return outcomes, final text and files."""
        client_endpoint(ctx.endpoint)  # fail early on an API shape the clients lack
        deadline = time.monotonic() + ctx.timeout_seconds
        toolbox = await _toolbox(ctx, self.bash_timeout)
        system = system_prompt(ctx.workdir, ctx.instance.system_prompt, preamble=self.preamble)
        client = open_trial_client(ctx.endpoint, max_tokens=self.max_tokens)
        messages: list[ChatMessage] = []
        outcomes: list[TurnOutcome] = []
        final_text = ""
        try:
            for prompt in ctx.instance.turns:
                messages.append(ChatMessage(role="user", content=prompt))
                outcome = await self._turn(client, toolbox, system, messages, deadline)
                outcomes.append(outcome)
                final_text = outcome.final_text
                if outcome.timed_out:
                    break
        finally:
            await client.aclose()
        files = collect_files(ctx.workdir)
        return ScaffoldResult(turns=tuple(outcomes), files=files, final_text=final_text)

    async def _turn(
        self,
        client: ModelClient,
        toolbox: Toolbox,
        system: str,
        messages: list[ChatMessage],
        deadline: float,
    ) -> TurnOutcome:
        """Call the model and its tools until it answers in text (appends to ``messages``)."""
        started = time.monotonic()
        text = ""
        for _ in range(self.max_steps):
            remaining = deadline - time.monotonic()
            request = ChatRequest(messages=tuple(messages), system=system, tools=toolbox.specs)
            try:
                if remaining <= 0:
                    raise TimeoutError
                response = await asyncio.wait_for(client.complete(request), timeout=remaining)
            except TimeoutError:
                return _outcome(None, started, text, "the trial's time budget ran out", True)
            message = response.message
            messages.append(message)
            text = message.content or text
            if not message.tool_calls:
                return _outcome(0, started, message.content, "", False)
            for call in message.tool_calls:
                budget = max(deadline - time.monotonic(), 0.001)
                result = await toolbox.call(call.name, call.arguments, budget=budget)
                messages.append(
                    ChatMessage(role="tool", content=result, tool_call_id=call.id, name=call.name)
                )
        return _outcome(
            1, started, text, f"step limit reached ({self.max_steps} model calls)", False
        )


async def _toolbox(ctx: TrialContext, bash_timeout: float) -> Toolbox:
    """The agent's tools; with ``ctx.sandbox`` each Bash command runs in the sandbox.

    Raises:
        SandboxUnavailable: The sandbox is on but cannot be made on this host.
    """
    home = ctx.home / "reference"
    if not ctx.sandbox:
        return Toolbox(ctx.workdir, home, bash_timeout=bash_timeout)
    from adhere.scaffolds._sandbox_host import DiskWatch, host_layout  # subprocess: lazily

    layout = await asyncio.to_thread(host_layout)
    (home / LOG_DIR).mkdir(parents=True, exist_ok=True)
    limits = ctx.sandbox_limits
    watch = await asyncio.to_thread(DiskWatch, (ctx.workdir, home), limits)
    workdir, home_dir = os.path.abspath(ctx.workdir), os.path.abspath(home)
    masked = (os.path.abspath(home / LOG_DIR),)

    def wrap(argv: Sequence[str]) -> list[str]:
        return sandbox_argv(
            layout, limits, argv, workdir=workdir, home=home_dir, install_dir=None,
            bridge_dir=None, port=None, masked=masked,
        )  # fmt: skip

    return Toolbox(ctx.workdir, home, bash_timeout=bash_timeout, wrap=wrap, watch=watch.check)


def _outcome(
    code: int | None, started: float, text: str, error: str, timed_out: bool
) -> TurnOutcome:
    return TurnOutcome(
        exit_code=code,
        stderr_tail=f"adhere: {error}" if error else "",
        timed_out=timed_out,
        seconds=round(time.monotonic() - started, 3),
        final_text=text,
    )
