"""Pipeline types: what every suite, scaffold, scorer and report speaks.

An :class:`Instance` (workspace, system prompt, user turns, :class:`Check` list) is run
as a :class:`Trial` (model × scaffold × instance × repeat, with a stable id); what the
model saw and did becomes a :class:`Trajectory` (:class:`ChatMessage` turns, source
spans); checks are decided as :class:`Verdict` s; suites that need work outside the
pure core ask for :class:`EvidenceRequest` s (:class:`SandboxRun`, :class:`RuffRun`).
:func:`plain_text` strips terminal escapes from text kept in results. Pure data and
validation only: nothing here does I/O.
"""

from adhere.core._base import SpecModel
from adhere.core._chat import ChatMessage, ToolCall, ToolSpec, Usage, conversation_digest
from adhere.core._evidence import (
    Evidence,
    EvidenceRequest,
    EvidenceStatus,
    ModelAsk,
    RuffRun,
    SandboxRun,
)
from adhere.core._text import plain_text
from adhere.core._types import (
    SYSTEM_INDEX,
    TOOLS_INDEX,
    WORKSPACE_IGNORE_DIRS,
    Check,
    CheckKind,
    Instance,
    ScaffoldRef,
    Source,
    SourceSpan,
    Trajectory,
    Trial,
    TrialResult,
    TrialStatus,
    Verdict,
    VerdictResult,
    VerifierRef,
    Workspace,
)

__all__ = [
    "ChatMessage",
    "Check",
    "CheckKind",
    "Evidence",
    "EvidenceRequest",
    "EvidenceStatus",
    "Instance",
    "ModelAsk",
    "RuffRun",
    "SYSTEM_INDEX",
    "SandboxRun",
    "ScaffoldRef",
    "Source",
    "SourceSpan",
    "SpecModel",
    "TOOLS_INDEX",
    "ToolCall",
    "ToolSpec",
    "Trajectory",
    "Trial",
    "TrialResult",
    "TrialStatus",
    "Usage",
    "Verdict",
    "VerdictResult",
    "VerifierRef",
    "WORKSPACE_IGNORE_DIRS",
    "Workspace",
    "conversation_digest",
    "plain_text",
]
