"""Whether a trial pod gets a recording-proxy sidecar: the model's provider decides.

A plain endpoint (a URL) always does: the sidecar alone holds the API key. An endpoint
naming a model provider (see :mod:`adhere.models`) gets what the provider's
:attr:`~adhere.models.Provider.pod` says; ``in-process`` means ``adhere trial run``
starts the provider and the proxy itself, so the pod has no sidecar. This module asks
the provider registry, so it is not one of the pure modules: the controller decides
and hands the answer to :func:`~adhere.operator.build_job`.
"""

from __future__ import annotations

from adhere.models import provider_for
from adhere.spec import ModelSpec

__all__ = ["uses_sidecar"]


def uses_sidecar(model: ModelSpec) -> bool:
    """Whether the trial's model calls go through a proxy sidecar."""
    served_by = provider_for(model.endpoint)
    return served_by is None or served_by.pod != "in-process"
