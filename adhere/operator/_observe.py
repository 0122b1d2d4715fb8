"""What the operator reads back from the cluster, reduced to small views (pure).

Jobs and pods arrive as plain dicts (the API's JSON); these functions keep only
what reconciling needs, so the reconcile functions are tested with plain data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from adhere.operator._names import LABEL_ATTEMPT, LABEL_TRIAL

JobState = Literal["active", "succeeded", "failed"]

PROBLEM_REASONS = frozenset(
    {
        "ErrImagePull",
        "ImagePullBackOff",
        "InvalidImageName",
        "ErrImageNeverPull",
        "CreateContainerConfigError",
        "CreateContainerError",
        "RunContainerError",
        "CrashLoopBackOff",
    }
)
"""Waiting reasons of a container that mean the pod will not start by itself."""


@dataclass(frozen=True)
class JobView:
    """One trial Job as the reconcile functions see it.

    Attributes:
        name: The Job's name.
        trial_id: Its trial (label ``adhere.dev/trial``).
        attempt: Its attempt number (label ``adhere.dev/attempt``).
        state: ``active`` until the Job has a terminal condition.
        finished_at: When it succeeded or failed, when known.
        reason: Why it failed (``BackoffLimitExceeded``, ``DeadlineExceeded`` …).
        message: The failure condition's message.
    """

    name: str
    trial_id: str
    attempt: int
    state: JobState
    finished_at: datetime | None = None
    reason: str = ""
    message: str = ""


@dataclass(frozen=True)
class PodProblem:
    """A trial pod that cannot be scheduled or started."""

    trial_id: str
    pod: str
    reason: str
    message: str


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 timestamp as an aware datetime (None when absent or malformed)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _labels(obj: Mapping[str, Any]) -> Mapping[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


def job_view(job: Mapping[str, Any]) -> JobView | None:
    """The view of a trial Job; None for a Job without adhere's trial labels."""
    labels = _labels(job)
    trial_id = labels.get(LABEL_TRIAL)
    attempt = labels.get(LABEL_ATTEMPT, "")
    if not trial_id or not attempt.isdigit():
        return None
    name = str((job.get("metadata") or {}).get("name", ""))
    status = job.get("status") or {}
    true = {
        c.get("type"): c
        for c in status.get("conditions") or []
        if isinstance(c, Mapping) and c.get("status") == "True"
    }
    done = true.get("Complete") or true.get("SuccessCriteriaMet")
    if done is not None or int(status.get("succeeded") or 0) >= 1:
        when = parse_time(status.get("completionTime")) or parse_time(
            (done or {}).get("lastTransitionTime")
        )
        return JobView(name, trial_id, int(attempt), "succeeded", when)
    failed = true.get("Failed") or true.get("FailureTarget")
    if failed is not None or (
        int(status.get("failed") or 0) >= 1 and not int(status.get("active") or 0)
    ):
        cond = failed or {}
        return JobView(
            name,
            trial_id,
            int(attempt),
            "failed",
            parse_time(cond.get("lastTransitionTime")),
            str(cond.get("reason") or "PodFailed"),
            str(cond.get("message") or ""),
        )
    return JobView(name, trial_id, int(attempt), "active")


def pod_problem(pod: Mapping[str, Any]) -> PodProblem | None:
    """Why a trial pod cannot be scheduled or started, or None when it is fine."""
    trial_id = _labels(pod).get(LABEL_TRIAL)
    if not trial_id:
        return None
    name = str((pod.get("metadata") or {}).get("name", ""))
    status = pod.get("status") or {}
    if status.get("phase") in ("Succeeded", "Failed"):
        return None
    for cond in status.get("conditions") or []:
        if (
            cond.get("type") == "PodScheduled"
            and cond.get("status") == "False"
            and cond.get("reason") == "Unschedulable"
        ):
            return PodProblem(trial_id, name, "Unschedulable", str(cond.get("message") or ""))
    statuses = [
        *(status.get("initContainerStatuses") or []),
        *(status.get("containerStatuses") or []),
    ]
    for container in statuses:
        waiting = (container.get("state") or {}).get("waiting") or {}
        reason = waiting.get("reason")
        if reason in PROBLEM_REASONS:
            message = str(waiting.get("message") or "")
            where = f"container {container.get('name', '?')}"
            return PodProblem(trial_id, name, str(reason), f"{where}: {message}".rstrip(": "))
    return None
