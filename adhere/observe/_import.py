"""Importing another harness's call logs into an adhere store, normalized.

:func:`import_minivela` reads mini-vela's raw logs (:mod:`adhere.observe._minivela`),
makes one trial per session (model × scaffold × session id, repeat 0) and writes what
a run writes for it (``adhere.artifacts`` layout): ``calls.jsonl`` in adhere's record
format, the normalized ``trajectory.json`` and ``result.json``. The rollout's
``instances.jsonl`` holds the benchmark instances the sessions ran, when they are
given (then trajectories carry instruction-source tags and ``adhere score`` can judge
the trials), else nothing.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from adhere.artifacts import RolloutStore
from adhere.core import Instance, Trial, TrialResult
from adhere.errors import SpecError
from adhere.observe._minivela import MiniVelaLine, dedupe, parse_log, proxy_calls
from adhere.observe._normalize import normalize
from adhere.observe._tagging import tag_sources

__all__ = ["ImportedTrial", "import_minivela", "read_minivela_logs"]


@dataclass(frozen=True)
class ImportedTrial:
    """One imported session.

    Attributes:
        session: mini-vela's session id (the instance id).
        trial: The trial it became.
        lines: Log lines read for it.
        calls: Calls kept after removing the duplicate copies.
        dropped: Duplicate copies removed.
        unpaired: Kept lines that had no duplicate copy.
        messages: Messages of the normalized trajectory's main conversation.
    """

    session: str
    trial: Trial
    lines: int
    calls: int
    dropped: int
    unpaired: int
    messages: int


def read_minivela_logs(source: Path) -> list[MiniVelaLine]:
    """Every line of a mini-vela log directory (its ``*.jsonl`` files) or of one file.

    Raises:
        SpecError: No log file, a file that cannot be read, or a malformed line (the
            error names the file, line and field).
    """
    files = sorted(source.glob("*.jsonl")) if source.is_dir() else [source]
    if not files:
        raise SpecError(
            "no *.jsonl file here; expected mini-vela's log directory "
            "(results/trajectories: one <session_id>.jsonl per instance)",
            file=str(source),
        )
    lines: list[MiniVelaLine] = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise SpecError(f"cannot read the log: {exc}", file=str(path)) from None
        lines += parse_log(text, str(path))
    if not lines:
        raise SpecError("the logs hold no line", file=str(source))
    return lines


def _iso(milliseconds: float) -> str:
    return datetime.fromtimestamp(milliseconds / 1000, UTC).isoformat(timespec="milliseconds")


def _model(lines: Sequence[MiniVelaLine]) -> str:
    models = Counter(line.model for line in lines if line.model)
    return models.most_common(1)[0][0] if models else "unknown"


def import_minivela(
    source: Path,
    store: RolloutStore,
    *,
    scaffold: str = "mini-vela",
    model: str | None = None,
    instances: Mapping[str, Instance] | None = None,
    specs: Sequence[dict[str, Any]] = (),
) -> list[ImportedTrial]:
    """Import mini-vela's raw logs into a new rollout of ``store``.

    Args:
        source: mini-vela's log directory, or one log file.
        store: The rollout to write; it must be empty.
        scaffold: The scaffold name the trials get.
        model: The model name the trials get; by default each session's most asked
            ``request_body.model``.
        instances: The benchmark's instances by id; when given, every session must be
            one of them, and trajectories are tagged with their instruction sources.
        specs: Spec documents to store as the rollout's snapshot (e.g. the Benchmark).

    Raises:
        SpecError: The rollout is not empty, a log line is malformed, or a session is
            not an instance of the benchmark given.
    """
    if not store.is_empty():
        raise SpecError("already holds files; import into a new rollout directory", file=store.uri)
    sessions: dict[str, list[MiniVelaLine]] = defaultdict(list)
    for line in read_minivela_logs(source):
        sessions[line.session].append(line)
    if instances is not None:
        unknown = sorted(set(sessions) - set(instances))
        if unknown:
            raise SpecError(
                f"{len(unknown)} session(s) are not instances of the benchmark: "
                f"{', '.join(unknown[:5])} (mini-vela's session id is the instance id)",
                file=sessions[unknown[0]][0].where,
                field="session_id",
            )
    store.write_specs(list(specs))
    store.write_instances(instances[s] for s in sorted(sessions) if instances and s in instances)
    return [
        _import_session(store, lines, scaffold, model, (instances or {}).get(session))
        for session, lines in sorted(sessions.items())
    ]


def _import_session(
    store: RolloutStore,
    lines: list[MiniVelaLine],
    scaffold: str,
    model: str | None,
    instance: Instance | None,
) -> ImportedTrial:
    session = lines[0].session
    kept, dropped, unpaired = dedupe(lines)
    trial = Trial(
        rollout=store.rollout,
        model=model or _model(kept),
        scaffold=scaffold,
        instance=session,
        repeat=0,
    )
    calls = proxy_calls(kept, trial.id)
    trajectory = normalize(
        calls,
        first_user_turn=instance.turns[0] if instance else "",
        meta={
            "trial_id": trial.id,
            "model": trial.model,
            "scaffold": trial.scaffold,
            "instance": session,
            "repeat": 0,
            "imported_from": "mini-vela",
            "log_files": sorted({line.where.rsplit(":", 1)[0] for line in lines}),
        },
        source=lines[0].where.rsplit(":", 1)[0],
    )
    if instance is not None:
        trajectory.sources = tag_sources(trajectory, instance, instance.workspace.files)
    store.write_calls(trial, (call.to_json_dict() for call in calls))
    store.write_trajectory(trial, trajectory)
    first, last = kept[0].request_time, kept[-1].request_time
    outcomes = Counter(call.outcome or "ok" for call in calls)
    outcomes.pop("ok", None)
    store.write_result(
        TrialResult(
            trial=trial,
            trial_id=trial.id,
            status="ok",
            started_at=_iso(first),
            finished_at=_iso(last),
            duration_seconds=(last - first) / 1000,
            calls=len(calls),
            outcomes=dict(sorted(outcomes.items())),
        )
    )
    return ImportedTrial(
        session=session,
        trial=trial,
        lines=len(lines),
        calls=len(calls),
        dropped=dropped,
        unpaired=unpaired,
        messages=len(trajectory.messages),
    )
