"""Human labels: the file format, loading it with clear errors, agreement with each judge.

**Format.** JSON Lines, one label a line (blank lines ignored)::

    {"trial_id": "59aad89a31a8ebec6b23", "check_id": "SP_3", "label": "pass"}
    {"instance": "claude-md-tests", "model": "careful", "scaffold": "claude-code",
     "repeat": 0, "check_id": "AgentsMd_1", "label": "fail", "annotator": "ana"}

* The trial is named either by ``trial_id`` or by ``instance`` + ``model`` +
  ``scaffold`` (+ ``repeat``, default 0) — the second form does not depend on the
  rollout's name, so one label file serves every rollout that ran those trials.
* ``check_id``: the check's id; ``label``: ``pass``, ``fail`` or ``n/a``
  (case-insensitive).
* Optional: ``annotator`` (who labelled; lets several people label the same item)
  and ``note`` (free text). Any other field is an error, so typos do not pass
  silently.
* The same item may be labelled once per annotator.

Errors raise :class:`~adhere.errors.SpecError` naming the file and line and the field.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adhere.core import Trial
from adhere.errors import SpecError
from adhere.judging._agreement import ItemKey, cohen_kappa, exact_match
from adhere.spec import iter_jsonl

__all__ = [
    "HumanAgreement",
    "HumanLabel",
    "ResolvedLabels",
    "human_agreement",
    "load_human_labels",
    "resolve_human_labels",
]

LABELS = ("pass", "fail", "n/a")
_FIELDS = frozenset(
    (
        "trial_id",
        "instance",
        "model",
        "scaffold",
        "repeat",
        "check_id",
        "label",
        "annotator",
        "note",
    )
)
_TRIAL_PARTS = ("instance", "model", "scaffold")


@dataclass(frozen=True)
class HumanLabel:
    """One human label of one check of one trial.

    ``trial_id`` is set, or ``instance``/``model``/``scaffold``/``repeat`` are.
    """

    check_id: str
    label: str
    trial_id: str | None = None
    instance: str | None = None
    model: str | None = None
    scaffold: str | None = None
    repeat: int = 0
    annotator: str = ""
    where: str = ""

    @property
    def trial_ref(self) -> tuple[str, ...]:
        """What names the trial: ``(trial_id,)`` or ``(instance, model, scaffold, repeat)``."""
        if self.trial_id is not None:
            return (self.trial_id,)
        return (str(self.instance), str(self.model), str(self.scaffold), str(self.repeat))


def load_human_labels(path: str | Path) -> list[HumanLabel]:
    """Read a human-label file (format in the module docstring).

    Raises:
        SpecError: Unreadable file, invalid JSON, a missing, unknown or bad field, or
            the same item labelled twice by the same annotator.
    """
    labels: list[HumanLabel] = []
    first_seen: dict[tuple[tuple[str, ...], str, str], str] = {}
    for number, data in iter_jsonl(path):
        where = f"{path}:{number}"
        label = _parse_line(data, where)
        key = (label.trial_ref, label.check_id, label.annotator)
        if key in first_seen:
            raise SpecError(
                f"check {label.check_id!r} of this trial is already labelled at "
                f"{first_seen[key]} by the same annotator",
                file=where,
                field="check_id",
            )
        first_seen[key] = where
        labels.append(label)
    return labels


def _text(data: Mapping[str, Any], name: str, where: str, *, required: bool) -> str | None:
    value = data.get(name)
    if value is None:
        if required:
            raise SpecError("required field is missing", file=where, field=name)
        return None
    if not isinstance(value, str) or not value:
        raise SpecError(f"expected a non-empty string, got {value!r}", file=where, field=name)
    return value


def _parse_line(data: Any, where: str) -> HumanLabel:
    if not isinstance(data, dict):
        raise SpecError("expected a JSON object", file=where)
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        allowed = ", ".join(sorted(_FIELDS))
        raise SpecError(f"unknown field (allowed: {allowed})", file=where, field=unknown[0])
    check_id = _text(data, "check_id", where, required=True)
    raw = _text(data, "label", where, required=True)
    label = (raw or "").strip().lower()
    if label not in LABELS:
        raise SpecError(f"expected pass, fail or n/a, got {raw!r}", file=where, field="label")
    annotator = _text(data, "annotator", where, required=False) or ""
    trial_id = _text(data, "trial_id", where, required=False)
    parts = {name: _text(data, name, where, required=False) for name in _TRIAL_PARTS}
    repeat = data.get("repeat", 0)
    if trial_id is not None:
        given = [name for name in (*_TRIAL_PARTS, "repeat") if name in data]
        if given:
            raise SpecError(
                "give either trial_id or instance/model/scaffold(/repeat), not both",
                file=where,
                field=given[0],
            )
        return HumanLabel(str(check_id), label, trial_id=trial_id, annotator=annotator, where=where)
    missing = [name for name, value in parts.items() if value is None]
    if missing:
        raise SpecError(
            "name the trial by trial_id, or by instance, model and scaffold",
            file=where,
            field=missing[0],
        )
    if not isinstance(repeat, int) or isinstance(repeat, bool) or repeat < 0:
        raise SpecError(f"expected an integer ≥ 0, got {repeat!r}", file=where, field="repeat")
    return HumanLabel(
        str(check_id),
        label,
        instance=parts["instance"],
        model=parts["model"],
        scaffold=parts["scaffold"],
        repeat=repeat,
        annotator=annotator,
        where=where,
    )


@dataclass(frozen=True)
class ResolvedLabels:
    """Human labels keyed like judge labels, and those that matched no trial of the run."""

    labels: dict[ItemKey, str] = field(default_factory=dict)
    unresolved: list[HumanLabel] = field(default_factory=list)


def resolve_human_labels(
    labels: Iterable[HumanLabel], trials: Iterable[Trial], *, annotator: str | None = None
) -> ResolvedLabels:
    """Key human labels by ``(trial id, check id)`` using the run's trials.

    Args:
        labels: Loaded labels.
        trials: The run's trials (to resolve instance/model/scaffold/repeat).
        annotator: Keep only this annotator's labels; required when several
            annotators labelled the same item.

    Raises:
        SpecError: A label names its trial ambiguously (several trials of the run
            match), or an item has labels from several annotators and no
            ``annotator`` was chosen.
    """
    by_ref: dict[tuple[str, ...], list[str]] = {}
    for trial in trials:
        by_ref.setdefault((trial.id,), []).append(trial.id)
        ref = (trial.instance, trial.model, trial.scaffold, str(trial.repeat))
        by_ref.setdefault(ref, []).append(trial.id)
    out = ResolvedLabels()
    seen: dict[ItemKey, HumanLabel] = {}
    for label in labels:
        if annotator is not None and label.annotator != annotator:
            continue
        matches = sorted(set(by_ref.get(label.trial_ref, [])))
        if not matches:
            out.unresolved.append(label)
            continue
        if len(matches) > 1:
            raise SpecError(
                f"the trial matches {len(matches)} trials of the run ({', '.join(matches)}); "
                "name it by trial_id",
                file=label.where,
                field="instance",
            )
        key = (matches[0], label.check_id)
        if key in seen:
            raise SpecError(
                f"this item is also labelled at {seen[key].where}; choose an annotator",
                file=label.where,
                field="annotator",
            )
        seen[key] = label
        out.labels[key] = label.label
    return out


@dataclass(frozen=True)
class HumanAgreement:
    """How one judge agrees with the human labels, over the items both labelled."""

    judge: str
    items: int
    exact_match: float | None
    kappa: float | None
    not_judged: int


def human_agreement(
    human: Mapping[ItemKey, str], judges: Mapping[str, Mapping[ItemKey, str]]
) -> dict[str, HumanAgreement]:
    """Exact match and Cohen's κ of every judge against the human labels.

    ``not_judged`` counts human-labelled items the judge has no label for (not
    judged, or left in ``error``).
    """
    out: dict[str, HumanAgreement] = {}
    for name, labels in judges.items():
        common = sorted(human.keys() & labels.keys())
        left = [human[k] for k in common]
        right = [labels[k] for k in common]
        out[name] = HumanAgreement(
            judge=name,
            items=len(common),
            exact_match=exact_match(left, right),
            kappa=cohen_kappa(left, right),
            not_judged=len(human) - len(common),
        )
    return out
