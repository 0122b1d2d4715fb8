"""Pipeline types: Instance, Check, Trial, Trajectory, Verdict, evidence, chat messages."""

from adhere.core._base import SpecModel
from adhere.core._chat import ChatMessage, ToolCall, ToolSpec, Usage, conversation_digest
from adhere.core._evidence import Evidence, EvidenceRequest, EvidenceStatus, RuffRun, SandboxRun
from adhere.core._types import (
    SYSTEM_INDEX,
    TOOLS_INDEX,
    Check,
    CheckKind,
    Instance,
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
    "RuffRun",
    "SYSTEM_INDEX",
    "SandboxRun",
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
    "Workspace",
    "conversation_digest",
]
