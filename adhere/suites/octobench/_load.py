"""Loading OctoBench instances (the OctoCodingBench JSONL format) into Instances.

One JSON object a line with ``instance_id``, ``user_query`` (one entry per user
turn), ``system_prompt``, ``category``, ``image``, ``workspace_abs_path``,
``scaffold`` {name, version}, ``checklist`` and, for Skill instances,
``expected_skill``. The scaffold becomes :attr:`Instance.scaffold` under adhere's name
(:data:`SCAFFOLD_NAMES`: ``claudecode`` → ``claude-code``, ``kilo-dev`` → ``kilo``,
``droid`` → ``droid``); a row without a version gets the paper's (:data:`PAPER_VERSIONS`,
its Appendix A), marked as such. The checklist is keyed by instruction category; each category
holds ``{description, checks: [{check_id, description, check_type}]}``. adhere also
reads two optional item fields: ``verifier`` ({name, params}: decided by that
deterministic verifier instead of the judges) and ``condition`` (when the item
applies; otherwise it may be judged n/a).

Conflict instances (OctoBench-Conflict) carry an optional ``conflict`` field:
``{"scenario": "language", "sides": {"SP": "<check id>", "User query": "<check id>"}}``
— the scenario (language, emoji, verbosity, safety, identity, or another name) and,
for each of the two contradicting sources (checklist category names), the check that
passes when the run followed that side; optionally ``instructions`` {side name: the
instruction that source gave}, shown to the attribution judge (default: the
category's description). It lands in ``metadata["conflict"]``
(``{"scenario", "type", "sides": [{"source", "check", "instruction"}, …]}``), with
``metadata["conflict_type"]`` such as ``SP vs UserQuery`` for grouping.

Workspaces: the published instances name container images that are not public, so a
workspace can also be given as files — either an optional ``workspace`` field on the
line (a mapping of relative path to text, or a directory path relative to the JSONL
file, or a list of such directories layered in order so instances can share a base
project), or a ``workspaces`` directory (Benchmark option) holding one
sub-directory per instance id. Directories are copied into each trial as they are
(binaries, file modes, ``.git``); no path leaves its root (see ``_workspace``).
Without either, the instance keeps only its image reference.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from adhere.core import Check, CheckKind, Instance, ScaffoldRef, Source, VerifierRef, Workspace
from adhere.errors import SpecError
from adhere.spec import format_location, iter_jsonl
from adhere.suites.octobench._workspace import (
    check_inline,
    directory_workspace,
    instance_directory,
)

SCAFFOLD_NAMES: dict[str, str] = {"claudecode": "claude-code", "kilo-dev": "kilo", "droid": "droid"}
"""The published rows' scaffold names → adhere's scaffolds (other names are kept as
written, so a row may also name an adhere scaffold directly)."""

PAPER_VERSIONS: dict[str, str] = {"claude-code": "2.0.69", "kilo": "0.10.2", "droid": "0.42.2"}
"""The versions the paper's experiments used (its Appendix A), by adhere scaffold name;
they stand in for a row that names its scaffold without a version."""

_CATEGORY_SOURCES: tuple[tuple[str, Source], ...] = (
    ("sp", Source.SYSTEM_PROMPT),
    ("system prompt", Source.SYSTEM_PROMPT),
    ("system reminder", Source.SYSTEM_REMINDER),
    ("user query", Source.USER_QUERY),
    ("agents.md", Source.AGENTS_MD),
    ("claude.md", Source.AGENTS_MD),
    ("skill.md", Source.SKILL_MD),
    ("memory", Source.MEMORY),
    ("tool schema", Source.TOOL_SCHEMA),
    ("testing", Source.TEST),
)


class _RawCheck(BaseModel):
    model_config = ConfigDict(extra="forbid")
    check_id: str = Field(min_length=1)
    description: str
    check_type: CheckKind
    verifier: VerifierRef | None = None
    condition: str | None = None


class _RawCategory(BaseModel):
    model_config = ConfigDict(extra="forbid")
    description: str = ""
    checks: list[_RawCheck]


class _RawScaffold(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, pattern=r"\S")
    version: str = ""


class _RawConflict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    scenario: str = Field(min_length=1)
    sides: dict[str, str]
    instructions: dict[str, str] = Field(default_factory=dict)


CONFLICT_ORDER = (Source.SYSTEM_PROMPT, Source.USER_QUERY, Source.AGENTS_MD)
"""The order the two sides of a conflict type are named in (``SP vs UserQuery`` …)."""


class RawInstance(BaseModel):
    """One line of the OctoBench JSONL format."""

    model_config = ConfigDict(extra="forbid")
    instance_id: str = Field(min_length=1)
    user_query: list[str] = Field(min_length=1)
    system_prompt: str = ""
    category: str
    image: str | None = None
    workspace_abs_path: str | None = None
    scaffold: _RawScaffold | None = None
    checklist: dict[str, _RawCategory]
    expected_skill: str | None = None
    workspace: dict[str, str] | str | list[str] | None = None
    conflict: _RawConflict | None = None


def scaffold_ref(raw: _RawScaffold) -> ScaffoldRef:
    """The scaffold a row names, under adhere's name, with its (or the paper's) version."""
    name = SCAFFOLD_NAMES.get(raw.name.strip().lower(), raw.name.strip())
    if raw.version:
        return ScaffoldRef(name=name, version=raw.version, named=raw.name)
    paper = PAPER_VERSIONS.get(name)
    if paper is None:
        return ScaffoldRef(name=name, named=raw.name)
    note = "the row names no version; this is the paper's, from its Appendix A"
    return ScaffoldRef(name=name, version=paper, named=raw.name, version_note=note)


def category_source(name: str) -> Source:
    """The instruction source a checklist category stands for."""
    lowered = name.strip().lower()
    for prefix, source in _CATEGORY_SOURCES:
        if lowered == prefix or lowered.startswith(prefix):
            return source
    raise ValueError(
        f"unknown checklist category {name!r}; expected one of SP, System reminder, "
        "User query, Agents.md, Skill.md, Memory…, Tool schema, testing"
    )


def to_instance(
    raw: RawInstance, *, base_dir: Path, workspaces: Path | None, where: str
) -> Instance:
    """Convert one raw line into an Instance."""
    checks: list[Check] = []
    seen: set[str] = set()
    for category, group in raw.checklist.items():
        try:
            source = category_source(category)
        except ValueError as exc:
            raise SpecError(str(exc), file=where, field=f"checklist.{category}") from None
        for n, item in enumerate(group.checks):
            if item.check_id in seen:
                raise SpecError(
                    f"duplicate check id {item.check_id!r}",
                    file=where,
                    field=f"checklist.{category}.checks[{n}].check_id",
                )
            seen.add(item.check_id)
            checks.append(
                Check(
                    id=item.check_id,
                    source=source,
                    kind=item.check_type,
                    description=item.description,
                    verifier=item.verifier,
                    condition=item.condition,
                )
            )
    if not checks:
        raise SpecError("the checklist has no checks", file=where, field="checklist")
    workspace = Workspace(image=raw.image)
    if isinstance(raw.workspace, dict):
        check_inline(raw.workspace, where=where)
        workspace = Workspace(files=raw.workspace, image=raw.image)
    elif isinstance(raw.workspace, str):
        layers = [(raw.workspace, "workspace")]
        workspace = directory_workspace(layers, base_dir=base_dir, where=where, image=raw.image)
    elif isinstance(raw.workspace, list):
        layers = [(layer, f"workspace[{n}]") for n, layer in enumerate(raw.workspace)]
        workspace = directory_workspace(layers, base_dir=base_dir, where=where, image=raw.image)
    elif workspaces is not None:
        found = instance_directory(workspaces, raw.instance_id, where=where, image=raw.image)
        workspace = found or workspace
    return Instance(
        id=raw.instance_id,
        suite="octobench",
        workspace=workspace,
        system_prompt=raw.system_prompt,
        turns=raw.user_query,
        checks=checks,
        scaffold=scaffold_ref(raw.scaffold) if raw.scaffold else None,
        metadata={
            "category": raw.category,
            "turns": len(raw.user_query),
            "expected_skill": raw.expected_skill,
            "workspace_abs_path": raw.workspace_abs_path,
            "source_scaffold": raw.scaffold.name if raw.scaffold else None,
            "checklist_descriptions": {k: v.description for k, v in raw.checklist.items()},
            **_conflict_metadata(
                raw.conflict,
                {c.id for c in checks},
                {k: v.description for k, v in raw.checklist.items()},
                where,
            ),
        },
    )


def _conflict_metadata(
    conflict: _RawConflict | None, check_ids: set[str], described: dict[str, str], where: str
) -> dict[str, object]:
    """``conflict`` and ``conflict_type`` metadata, after checking the sides.

    Each side carries the instruction its source gave (``instruction``: the conflict's
    ``instructions`` entry for that side, else the checklist category's description),
    which the conflict-attribution judge is shown.
    """
    if conflict is None:
        return {}
    strays = sorted(set(conflict.instructions) - set(conflict.sides))
    if strays:
        raise SpecError(
            f"instructions given for {', '.join(map(repr, strays))}, which is not a side",
            file=where,
            field="conflict.instructions",
        )
    if len(conflict.sides) != 2:
        raise SpecError(
            f"a conflict has exactly two sides, got {len(conflict.sides)}",
            file=where,
            field="conflict.sides",
        )
    sides: list[dict[str, str]] = []
    for name, check_id in conflict.sides.items():
        try:
            source = category_source(name)
        except ValueError as exc:
            raise SpecError(str(exc), file=where, field=f"conflict.sides.{name}") from None
        if check_id not in check_ids:
            raise SpecError(
                f"check {check_id!r} is not in the checklist",
                file=where,
                field=f"conflict.sides.{name}",
            )
        instruction = conflict.instructions.get(name) or described.get(name, "")
        sides.append({"source": source.value, "check": check_id, "instruction": instruction})
    if sides[0]["source"] == sides[1]["source"]:
        raise SpecError(
            "the two sides of a conflict must be different sources",
            file=where,
            field="conflict.sides",
        )
    order = [s.value for s in CONFLICT_ORDER]
    sides.sort(key=lambda side: (order.index(side["source"]) if side["source"] in order else 99))
    kind = f"{sides[0]['source']} vs {sides[1]['source']}"
    return {
        "conflict": {"scenario": conflict.scenario, "type": kind, "sides": sides},
        "conflict_type": kind,
        "conflict_scenario": conflict.scenario,
    }


def load_octobench(path: Path, *, workspaces: Path | None = None) -> list[Instance]:
    """Load an OctoBench JSONL file."""
    instances: list[Instance] = []
    seen: set[str] = set()
    for number, data in iter_jsonl(path):
        where = f"{path}:{number}"
        try:
            raw = RawInstance.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            message = "unknown field" if err["type"] == "extra_forbidden" else err["msg"]
            raise SpecError(message, file=where, field=format_location(err["loc"])) from None
        if raw.instance_id in seen:
            raise SpecError(
                f"duplicate instance id {raw.instance_id!r}", file=where, field="instance_id"
            )
        seen.add(raw.instance_id)
        instances.append(to_instance(raw, base_dir=path.parent, workspaces=workspaces, where=where))
    if not instances:
        raise SpecError("no instances in file", file=str(path))
    return instances
