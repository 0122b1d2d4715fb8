"""Reading custom resources from API objects, and what a cluster needs beyond the spec (pure).

An API object carries server-side metadata (``managedFields``, ``finalizers`` …)
that the spec models do not know; :func:`parse_body` keeps the part they describe and
validates it, so an invalid spec raises :class:`~adhere.errors.SpecError` naming the
object and the field path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from adhere.errors import SpecError
from adhere.spec import Benchmark, JudgePanel, Rollout, SecretKeyRef, validate_model

R = TypeVar("R", Benchmark, Rollout, JudgePanel)

_META_FIELDS = ("name", "namespace", "labels", "annotations", "generation", "uid")


def describe(body: Mapping[str, Any]) -> str:
    """``Kind namespace/name`` of an API object, for messages."""
    meta = body.get("metadata") or {}
    return f"{body.get('kind', '?')} {meta.get('namespace', '')}/{meta.get('name', '?')}"


def parse_body(model: type[R], body: Mapping[str, Any]) -> R:
    """Validate an API object as ``model`` (status is read separately, leniently)."""
    meta = body.get("metadata") or {}
    data = {
        "apiVersion": body.get("apiVersion"),
        "kind": body.get("kind"),
        "metadata": {k: meta[k] for k in _META_FIELDS if meta.get(k) is not None},
        "spec": body.get("spec"),
    }
    return validate_model(model, data, file=describe(body))


def model_secret_refs(rollout: Rollout) -> list[tuple[str, SecretKeyRef]]:
    """``(field path, reference)`` of every model API key held in a Secret."""
    out = []
    for n, model in enumerate(rollout.spec.models):
        source = model.endpoint.api_key
        if source is not None and source.secret_key_ref is not None:
            out.append((f"spec.models[{n}].endpoint.apiKey", source.secret_key_ref))
    return out


def panel_secret_refs(panel: JudgePanel) -> list[tuple[str, SecretKeyRef]]:
    """``(field path, reference)`` of every judge API key held in a Secret."""
    out = []
    for n, judge in enumerate(panel.spec.judges):
        source = judge.endpoint.api_key
        if source is not None and source.secret_key_ref is not None:
            out.append((f"spec.judges[{n}].endpoint.apiKey", source.secret_key_ref))
    return out


def check_cluster_rollout(rollout: Rollout, *, where: str) -> None:
    """Refuse what cannot work in a cluster: model keys must come from Secrets.

    A trial pod has no environment variable or file of the user's, so an ``env`` or
    ``file`` key source of a model would silently send no key.
    """
    for n, model in enumerate(rollout.spec.models):
        source = model.endpoint.api_key
        if source is not None and source.secret_key_ref is None:
            raise SpecError(
                "in a cluster a model's API key comes from a Kubernetes Secret: give "
                "secretKeyRef: {name: SECRET, key: KEY} instead of env or file",
                file=where,
                field=f"spec.models[{n}].endpoint.apiKey",
            )


def missing_secrets(
    refs: list[tuple[str, SecretKeyRef]],
    secrets: Mapping[str, Mapping[str, Any] | None],
) -> list[str]:
    """Messages for references whose Secret or key does not exist.

    Args:
        refs: From :func:`model_secret_refs` or :func:`panel_secret_refs`.
        secrets: Secret name → its ``data`` (None when the Secret does not exist).
    """
    out = []
    for path, ref in refs:
        data = secrets.get(ref.name)
        if data is None:
            out.append(f"{path}: Secret {ref.name!r} not found")
        elif ref.key not in data:
            out.append(f"{path}: Secret {ref.name!r} has no key {ref.key!r}")
    return out
