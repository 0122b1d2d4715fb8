"""Names and labels of what the operator creates: deterministic, so a restart finds them."""

from __future__ import annotations

import hashlib
import re
from typing import Final

GROUP: Final = "adhere.dev"
VERSION: Final = "v1alpha1"
API_VERSION: Final = f"{GROUP}/{VERSION}"

LABEL_ROLLOUT: Final = "adhere.dev/rollout"
"""On trial Jobs, their pods and scoring RayJobs: the Rollout's name."""
LABEL_TRIAL: Final = "adhere.dev/trial"
"""The trial id (a stable hash of rollout, model, scaffold, instance and repeat)."""
LABEL_ATTEMPT: Final = "adhere.dev/attempt"
"""The attempt number, from 1."""
LABEL_MODEL: Final = "adhere.dev/model"
LABEL_SCAFFOLD: Final = "adhere.dev/scaffold"
LABEL_COMPONENT: Final = "app.kubernetes.io/component"
LABEL_MANAGED_BY: Final = "app.kubernetes.io/managed-by"
MANAGED_BY: Final = "adhere-operator"

ANNOTATION_MODEL: Final = "adhere.dev/model"
ANNOTATION_INSTANCE: Final = "adhere.dev/instance"
ANNOTATION_REPEAT: Final = "adhere.dev/repeat"
ANNOTATION_ROLLOUT_URI: Final = "adhere.dev/rollout-uri"

FINALIZER: Final = "adhere.dev/cleanup"

_LABEL_OK = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$")
_LABEL_BAD = re.compile(r"[^-A-Za-z0-9_.]")


def _digest(text: str, n: int = 8) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:n]


def label_value(text: str) -> str:
    """``text`` as a label value: unchanged when valid, else cleaned plus a short hash."""
    if _LABEL_OK.match(text):
        return text
    cleaned = _LABEL_BAD.sub("-", text).strip("-_.")[:50].rstrip("-_.")
    return f"{cleaned}-{_digest(text)}" if cleaned else _digest(text)


def _dns_prefix(name: str, length: int) -> str:
    return name[:length].rstrip("-") or "x"


def job_name(rollout: str, trial_id: str, attempt: int) -> str:
    """The Job of one attempt of one trial: ``<rollout>-<trial id>-a<attempt>`` (≤ 63 chars).

    The trial id already depends on the rollout's name, so a shortened rollout
    prefix cannot make two rollouts' Jobs collide.
    """
    return f"{_dns_prefix(rollout, 40)}-{trial_id[:12]}-a{attempt}"


def rayjob_name(rollout: str, plan_id: str) -> str:
    """The scoring RayJob of one plan of a rollout."""
    return f"{_dns_prefix(rollout, 40)}-score-{plan_id[:10]}"


def secret_env(prefix: str, name: str) -> str:
    """An environment variable name for ``name`` (upper-cased, other characters as ``_``)."""
    return re.sub(r"[^A-Z0-9_]", "_", f"{prefix}_{name}".upper())
