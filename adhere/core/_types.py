"""Core types shared by every suite: Instance, Check, Trial, Trajectory, Verdict.

They are stored as JSON (snake_case fields) in the result store; unknown fields are
rejected so a corrupted or foreign file fails loudly instead of being half-read.
"""

from __future__ import annotations

import hashlib
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from adhere.core._chat import ChatMessage, ToolSpec


class CoreModel(BaseModel):
    """Strict base of the core types."""

    model_config = ConfigDict(extra="forbid")


class Source(str, Enum):
    """Where an instruction came from."""

    SYSTEM_PROMPT = "SP"
    SYSTEM_REMINDER = "SystemReminder"
    USER_QUERY = "UserQuery"
    AGENTS_MD = "AgentsMd"
    SKILL_MD = "SkillMd"
    MEMORY = "Memory"
    TOOL_SCHEMA = "ToolSchema"
    PRIVILEGE = "Privilege"
    STYLE = "Style"
    TEST = "Test"
    ANSWER = "Answer"


class CheckKind(str, Enum):
    """What a check is about (OctoBench's check types)."""

    COMPLIANCE = "compliance"
    IMPLEMENTATION = "implementation"
    MODIFICATION = "modification"
    UNDERSTANDING = "understanding"
    TESTING = "testing"
    CONFIGURATION = "configuration"


class VerifierRef(CoreModel):
    """Binds a check to a registered deterministic verifier and its parameters."""

    name: str = Field(min_length=1)
    params: dict[str, Any] = Field(default_factory=dict)


class Check(CoreModel):
    """One checklist item: decided by ``verifier`` when given, otherwise by the judge panel.

    ``condition`` states when the item applies; when it does not arise the verdict is
    ``n/a`` and the item leaves the instance's denominator.
    """

    id: str = Field(min_length=1)
    source: Source
    kind: CheckKind = CheckKind.COMPLIANCE
    description: str
    verifier: VerifierRef | None = None
    condition: str | None = None


WORKSPACE_IGNORE_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
    }
)
"""Directories left out of a workspace's text files (version control, dependencies,
caches): copied with the workspace, never read as its content."""


class Workspace(CoreModel):
    """The files a trial starts from: inline files, directories, or a container image.

    ``layers`` are directories copied, in order, into the trial's workspace as they are
    (binary files, file modes, symbolic links inside the directory and ``.git``
    included; a later layer overwrites an earlier one); ``files`` then holds their text
    files. Without layers, ``files`` is the workspace. ``image`` names a container
    image holding it (run on a cluster); ``path`` is the directory it was read from.
    """

    files: dict[str, str] = Field(default_factory=dict)
    path: str | None = None
    image: str | None = None
    layers: list[str] = Field(default_factory=list)

    @property
    def image_only(self) -> bool:
        """Only an image holds the workspace: nothing a local run can copy."""
        return bool(self.image) and not self.files and not self.layers and not self.path


class ScaffoldRef(CoreModel):
    """The scaffold an instance was written for (it runs only under it when bound).

    Attributes:
        name: adhere's scaffold name (a suite maps its dataset's names, e.g.
            OctoBench's ``claudecode`` → ``claude-code``).
        version: The CLI version the instance was made with, if known.
        named: The scaffold's name as the dataset spells it.
        version_note: Where ``version`` comes from when the instance itself does not
            say (e.g. the paper's setup), else empty.
    """

    name: str = Field(min_length=1)
    version: str | None = None
    named: str = ""
    version_note: str = ""


class Instance(CoreModel):
    """One benchmark item: what the model is told and the checks its behaviour must pass."""

    id: str = Field(min_length=1)
    suite: str = Field(min_length=1)
    workspace: Workspace = Field(default_factory=Workspace)
    system_prompt: str = ""
    turns: list[str] = Field(min_length=1)
    checks: list[Check] = Field(min_length=1)
    metadata: dict[str, Any] = Field(default_factory=dict)
    scaffold: ScaffoldRef | None = None
    """The scaffold the instance names, if any (a Rollout may bind it to it)."""

    @field_validator("checks")
    @classmethod
    def _unique_check_ids(cls, checks: list[Check]) -> list[Check]:
        seen: set[str] = set()
        for check in checks:
            if check.id in seen:
                raise ValueError(f"duplicate check id {check.id!r}")
            seen.add(check.id)
        return checks


class Trial(CoreModel):
    """One run of one instance: model × scaffold × instance × repeat within a rollout."""

    rollout: str
    model: str
    scaffold: str
    instance: str
    repeat: int = Field(ge=0)

    @property
    def id(self) -> str:
        """Stable id: the same trial always has the same id, so re-runs find finished work."""
        key = "\x1f".join(
            (self.rollout, self.model, self.scaffold, self.instance, str(self.repeat))
        )
        return hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]


SYSTEM_INDEX = -1
"""``SourceSpan.message_index`` of a span in the system prompt."""
TOOLS_INDEX = -2
"""``SourceSpan.message_index`` of a tool schema; ``start`` is the tool's position."""


class SourceSpan(CoreModel):
    """A span of text attributed to an instruction source.

    ``message_index`` is a position in ``Trajectory.messages``, or ``SYSTEM_INDEX``
    (the system prompt), or ``TOOLS_INDEX`` (a tool schema: ``start`` is the tool's
    position in ``Trajectory.tools`` and ``end`` is ``start + 1``). ``start``/``end``
    are character offsets within the message content.
    """

    source: Source
    message_index: int = Field(ge=-2)
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    label: str = ""


class Trajectory(CoreModel):
    """What the model saw and did, normalized across providers and scaffolds."""

    meta: dict[str, Any] = Field(default_factory=dict)
    system: str = ""
    tools: list[ToolSpec] = Field(default_factory=list)
    messages: list[ChatMessage] = Field(default_factory=list)
    sources: list[SourceSpan] = Field(default_factory=list)
    files: dict[str, str] = Field(default_factory=dict)
    subagents: list[Trajectory] = Field(
        default_factory=list,
        description="Other conversations of the trial (sub-agents, auxiliary calls), apart.",
    )

    def assistant_turns(self) -> list[ChatMessage]:
        """Assistant messages in order; their position is the assistant turn index."""
        return [m for m in self.messages if m.role == "assistant"]


VerdictResult = Literal["pass", "fail", "n/a", "error"]


class Verdict(CoreModel):
    """The outcome of one check for one trial.

    ``error`` means the check could not be decided (the trial failed, a judge reply was
    unusable); it is never counted as a pass.
    """

    check_id: str
    result: VerdictResult
    decided_by: str
    reasoning: str = ""
    evidence: int | None = Field(default=None, description="Index of the message relied on.")
    details: dict[str, Any] = Field(default_factory=dict)


TrialStatus = Literal["ok", "error", "upstream_fault"]


class TrialResult(CoreModel):
    """The record that marks a trial finished (written last, atomically).

    ``status``:

    - ``ok`` — the trial ran; its checks are scored.
    - ``error`` — the trial could not produce a trajectory (scaffold crashed or timed
      out, no model call, a request the endpoint refused); its checks are recorded
      as ``error`` verdicts so the instance counts as not passed — never skipped,
      never a pass.
    - ``upstream_fault`` — the model service failed a call and the scaffold did not
      recover (unreachable, timeout, 429 or 5xx after the client's retries, a cut
      stream; see ``adhere.runner._faults``). Not the agent's doing: no verdicts,
      left out of the rates, counted apart, retried under the Rollout's
      ``maxRetries``.

    ``outcomes`` counts the trial's calls per outcome other than ``ok`` (model-side
    outcomes such as ``refusal``, upstream faults such as ``timeout``; see
    ``docs/proxy.md``); results written before it existed read as ``{}``.
    """

    trial: Trial
    trial_id: str
    status: TrialStatus
    error: str | None = None
    attempt: int = Field(default=1, ge=1)
    started_at: str
    finished_at: str
    duration_seconds: float = Field(ge=0)
    calls: int = Field(default=0, ge=0)
    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    reasoning_tokens: int | None = Field(default=None, ge=0)
    """The part of ``output_tokens`` spent thinking, summed over the calls that reported
    it; ``None`` when none did (Anthropic never does) or for results written before."""
    outcomes: dict[str, int] = Field(default_factory=dict)
    fingerprint: str | None = None
    """The config the trial ran under (see ``adhere.runner``'s fingerprints); ``None``
    for results written before fingerprints."""
    fingerprint_parts: dict[str, str] = Field(default_factory=dict)
    """The fingerprint's parts (``endpoint``, ``scaffold``, ``instance``, ``suite``)."""
    scaffold_version: str | None = None
    """The scaffold version that ran (the CLI's version, ``builtin`` for the in-process
    scaffolds); ``None`` for results written before it was recorded."""
