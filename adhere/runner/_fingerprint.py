"""What a trial's result belongs to: a fingerprint of everything that decides its outcome.

A finished trial is skipped on the next run only when it ran under the same config.
Its :class:`~adhere.core.TrialResult` carries a fingerprint made of four parts, each the
SHA-256 (first 16 hex digits) of the canonical JSON of what it covers:

``endpoint``
    The model's endpoint as the spec gives it: API shape, ``baseUrl`` (the spec's
    value, e.g. ``scripted``, not the port it resolved to), model id, streaming, output
    cap, temperature and the proxy's controls. Not the API key (a secret; changing it
    changes no answer), not client limits (retries and timeouts decide faults, which
    are never scored).
``scaffold``
    The scaffold's name, the CLI version that runs (the pinned one, or the one the
    Rollout or the instance chose; ``builtin`` for the in-process ones), options and
    trial budget.
``instance``
    The instance's content: system prompt, turns, workspace, metadata, the scaffold it
    names — everything but its checks (they decide scoring, not the run).
``suite``
    The Benchmark's suite and its options.

Pure: no I/O. The runner compares a stored result's parts with the planned trial's
and refuses to reuse a result whose parts differ (:func:`changed_parts`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from adhere.core import Instance
from adhere.spec import BenchmarkSpec, Endpoint, ScaffoldSpec

__all__ = [
    "FINGERPRINT_PARTS",
    "Fingerprint",
    "changed_parts",
    "describe_change",
    "endpoint_digest",
    "endpoint_view",
    "instance_digest",
    "scaffold_digest",
    "scaffold_version",
    "scaffold_view",
    "suite_digest",
    "suite_view",
    "trial_fingerprint",
]

FINGERPRINT_PARTS = ("endpoint", "scaffold", "instance", "suite")
"""The parts of a fingerprint, in the order they are combined."""


@dataclass(frozen=True)
class Fingerprint:
    """A trial's config fingerprint: one digest per part and their combination."""

    parts: dict[str, str]

    @property
    def digest(self) -> str:
        """The whole fingerprint (what ``TrialResult.fingerprint`` stores)."""
        return _digest([self.parts[name] for name in FINGERPRINT_PARTS])


def _digest(data: Any) -> str:
    canonical = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def endpoint_view(endpoint: Endpoint) -> dict[str, Any]:
    """What of an endpoint decides a trial's outcome (no key, no client limits)."""
    view: dict[str, Any] = {
        "api": str(endpoint.api),
        "base_url": endpoint.base_url,
        "model": endpoint.model,
        "stream": endpoint.stream,
        "max_tokens": endpoint.max_tokens,
        "temperature": endpoint.temperature,
        "controls": endpoint.controls.model_dump(mode="json", exclude_none=True),
    }
    if endpoint.reasoning is not None:  # only when set: older fingerprints stay valid
        view["reasoning"] = endpoint.reasoning.model_dump(mode="json", exclude_none=True)
    return view


def scaffold_view(spec: ScaffoldSpec, version: str) -> dict[str, Any]:
    """What of a scaffold decides a trial's outcome."""
    return {
        "name": spec.name,
        "version": version,
        "options": spec.options,
        "timeout_seconds": spec.timeout_seconds,
    }


def scaffold_version(scaffold: object) -> str:
    """The CLI version a scaffold runs (``scaffold.tool.version``); ``builtin`` in-process."""
    tool = getattr(scaffold, "tool", None)
    version = getattr(tool, "version", None)
    return str(version) if version else "builtin"


def instance_view(instance: Instance) -> dict[str, Any]:
    """An instance's content without its checks.

    The scaffold it names is left out when it names none, and the workspace's
    ``layers`` (where its directories lie, not what they hold: their text files are in
    ``files``) always, so instances of suites that name neither keep the digest they
    had before those fields existed.
    """
    view = instance.model_dump(mode="json", exclude={"checks"})
    if instance.scaffold is None:
        del view["scaffold"]
    del view["workspace"]["layers"]
    return view


def suite_view(benchmark: BenchmarkSpec) -> dict[str, Any]:
    """The suite and its options."""
    return {"suite": benchmark.suite, "options": benchmark.options}


def trial_fingerprint(
    endpoint: Endpoint,
    scaffold: ScaffoldSpec,
    scaffold_version: str,
    instance: Instance,
    benchmark: BenchmarkSpec,
) -> Fingerprint:
    """The fingerprint of a trial of ``instance`` under this model, scaffold and suite."""
    return Fingerprint(
        {
            "endpoint": endpoint_digest(endpoint),
            "scaffold": scaffold_digest(scaffold, scaffold_version),
            "instance": instance_digest(instance),
            "suite": suite_digest(benchmark),
        }
    )


def endpoint_digest(endpoint: Endpoint) -> str:
    """The ``endpoint`` part of a fingerprint."""
    return _digest(endpoint_view(endpoint))


def scaffold_digest(scaffold: ScaffoldSpec, version: str) -> str:
    """The ``scaffold`` part of a fingerprint."""
    return _digest(scaffold_view(scaffold, version))


def instance_digest(instance: Instance) -> str:
    """The ``instance`` part of a fingerprint."""
    return _digest(instance_view(instance))


def suite_digest(benchmark: BenchmarkSpec) -> str:
    """The ``suite`` part of a fingerprint."""
    return _digest(suite_view(benchmark))


def changed_parts(stored: Mapping[str, str], planned: Fingerprint) -> list[str]:
    """The parts whose digest differs, in :data:`FINGERPRINT_PARTS` order.

    A part missing from ``stored`` counts as changed; an empty ``stored`` (a result
    written before fingerprints) has no parts to compare and gives ``[]``.
    """
    if not stored:
        return []
    return [name for name in FINGERPRINT_PARTS if stored.get(name) != planned.parts[name]]


def describe_change(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """``key: old → new`` for each top-level key whose value differs (sorted by key)."""
    out = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key), after.get(key)
        if old != new:
            out.append(f"{key}: {_short(old)} → {_short(new)}")
    return out


def _short(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"
