"""The agent sandbox's settings in a Rollout (``sandbox`` and ``sandboxLimits``)."""

from __future__ import annotations

from pydantic import Field

from adhere.core import SpecModel

__all__ = ["SandboxLimitsSpec"]


class SandboxLimitsSpec(SpecModel):
    """Size limits of the agent sandbox, per trial (what blocks "fill the disk").

    Local runs only; in a cluster the trial pod's own limits apply.
    """

    tmp_mb: int = Field(
        default=512,
        ge=1,
        description="Size in MiB of the sandbox's private /tmp and of /dev/shm (memory-backed).",
    )
    file_mb: int = Field(
        default=1024,
        ge=1,
        description="Largest file in MiB any process of an agent turn may write (ulimit -f).",
    )
    growth_mb: int = Field(
        default=2048,
        ge=1,
        description=(
            "How many MiB the workspace and HOME together may grow during a trial; past it "
            "the turn is stopped (checked about every second while it runs)."
        ),
    )
    growth_files: int = Field(
        default=100_000,
        ge=1,
        description="How many files and directories the workspace and HOME may gain.",
    )
