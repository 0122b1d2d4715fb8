"""``adhere validate``: check spec, bindings and dataset files as ``adhere run`` would.

Each file is read and recognised:

- resource YAML (Benchmark, Rollout, JudgePanel): a Rollout gets every check of
  :func:`~adhere.runner.check_run` with the Benchmark and JudgePanel it names; a
  Benchmark no given Rollout names is loaded as a run would load it
  (:func:`~adhere.runner.check_benchmark`); a JudgePanel no given Rollout names gets
  its endpoint and key checks (:func:`~adhere.runner.check_panel`);
- a verifier bindings file (a mapping with a ``bindings`` list and no ``kind``): its
  rules, verifier names and parameters;
- instance data (``.jsonl``, ``.json``): read through the Benchmark that names it; a
  data file given alone is checked to be UTF-8 JSON.

The first problem raises :class:`~adhere.errors.SpecError` (or
:class:`~adhere.errors.SecretError`) naming the file and the field or line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from adhere.errors import SecretError, SpecError
from adhere.judging import parse_bindings
from adhere.runner._check import check_benchmark, check_panel, check_run
from adhere.runner._pairing import describe_pairings
from adhere.spec import (
    Benchmark,
    JudgePanel,
    Resource,
    Rollout,
    is_bindings_document,
    load_run_config,
    parse_json,
    parse_resource,
    parse_yaml_documents,
    read_text,
)

__all__ = ["Validated", "validate_files"]

_DATA_SUFFIXES = (".jsonl", ".json")


@dataclass
class Validated:
    """What one file holds, once checked: one line per resource (pairings indented)."""

    file: str
    lines: list[str] = field(default_factory=list)


def _read(path: str) -> tuple[list[Resource], Validated]:
    """Parse one file: its resources, and the lines of what is not a resource."""
    done = Validated(path)
    text = read_text(path)
    if Path(path).suffix in _DATA_SUFFIXES:
        if Path(path).suffix == ".jsonl":
            count = 0
            for number, line in enumerate(text.splitlines(), start=1):
                if line.strip():
                    parse_json(line, file=path, line=number)
                    count += 1
            what = f"{count} JSON lines"
        else:
            parse_json(text, file=path)
            what = "JSON"
        done.lines.append(
            f"{path}: instance data ({what}); its instances are checked through the "
            "Benchmark that reads it"
        )
        return [], done
    documents = parse_yaml_documents(text, file=path)
    if not documents:
        raise SpecError("no YAML documents found", file=path)
    if len(documents) == 1 and is_bindings_document(documents[0]):
        bindings = parse_bindings(documents[0], file=path)
        done.lines.append(f"{path}: verifier bindings ok ({len(bindings.rules)} rules)")
        return [], done
    resources = [parse_resource(doc, file=path, index=i) for i, doc in enumerate(documents)]
    return resources, done


def validate_files(
    paths: Sequence[str | Path], *, secrets: bool = True, env: Mapping[str, str] | None = None
) -> list[Validated]:
    """Check every file as ``adhere run`` would; say what each holds.

    Args:
        paths: Spec, bindings and data files.
        secrets: Whether to check that the API keys a run reads are there.
        env: Environment the keys are read from; defaults to ``os.environ``.

    Raises:
        SpecError: Naming the file and the field or line of the first problem.
        SecretError: An API key a run would read is missing (named, never shown).
    """
    if not paths:
        raise SpecError("no file given")
    try:
        return _validate(paths, secrets=secrets, env=env)
    except SecretError as exc:
        raise SecretError(
            f"{exc} (--no-secrets skips this check, e.g. for a spec meant for a cluster)"
        ) from None


def _validate(
    paths: Sequence[str | Path], *, secrets: bool, env: Mapping[str, str] | None
) -> list[Validated]:
    names = [str(p) for p in paths]
    loaded: list[tuple[str, list[Resource], Validated]] = []
    for name in names:
        resources, done = _read(name)
        loaded.append((name, resources, done))
    spec_files = [name for name, resources, _ in loaded if resources]
    said: dict[int, list[str]] = {}  # id(resource) → its lines
    checked: set[tuple[str, str]] = set()
    for name, resources, _done in loaded:
        for resource in resources:
            if isinstance(resource, Rollout):
                config = load_run_config(spec_files, rollout_name=resource.metadata.name)
                result = check_run(config, secrets=secrets, env=env)
                checked.add(("Benchmark", config.benchmark.metadata.name))
                if config.judge_panel is not None:
                    checked.add(("JudgePanel", config.judge_panel.metadata.name))
                spec = resource.spec
                said[id(resource)] = [
                    f"{name}: Rollout {resource.metadata.name} ok: {len(result.instances)} "
                    f"instances × {len(spec.models)} models × {len(spec.scaffolds)} scaffolds "
                    f"× {spec.repeats} repeats = {len(result.trials)} trials",
                    *(f"  {line}" for line in describe_pairings(result.pairings)),
                ]
    for name, resources, done in loaded:
        base_dir = Path(name).resolve().parent
        for resource in resources:
            title = f"{name}: {resource.kind} {resource.metadata.name} ok"
            key = (resource.kind, resource.metadata.name)
            if isinstance(resource, Benchmark) and key not in checked:
                _suite, instances = check_benchmark(resource, base_dir=base_dir, file=name)
                checks = sum(len(i.checks) for i in instances)
                title += f": {len(instances)} instances, {checks} checks"
            elif isinstance(resource, JudgePanel):
                if key not in checked:
                    check_panel(resource, file=name, base_dir=base_dir, secrets=secrets, env=env)
                title += f": {len(resource.spec.judges)} judges"
            done.lines += said.get(id(resource), [title])
    return [done for _name, _resources, done in loaded]
