"""Reading the resources a run needs from YAML files: the Rollout and what it names."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from adhere.errors import SpecError
from adhere.spec._load import is_bindings_file, load_resources
from adhere.spec._resources import Benchmark, JudgePanel, Resource, Rollout


@dataclass(frozen=True)
class RunConfig:
    """A Rollout together with the Benchmark (and JudgePanel) it references."""

    rollout: Rollout
    benchmark: Benchmark
    judge_panel: JudgePanel | None
    base_dir: Path
    files: dict[str, str] = field(default_factory=dict)
    """Which file each resource came from (kind/name → path), for error messages."""


def _index(resources: list[tuple[Resource, str]]) -> dict[tuple[str, str], tuple[Resource, str]]:
    found: dict[tuple[str, str], tuple[Resource, str]] = {}
    for resource, path in resources:
        key = (resource.kind, resource.metadata.name)
        if key in found and found[key][1] != path:
            raise SpecError(
                f"{resource.kind} {resource.metadata.name!r} is defined twice "
                f"(also in {found[key][1]})",
                file=path,
                field="metadata.name",
            )
        found[key] = (resource, path)
    return found


def load_run_config(paths: Sequence[str | Path], *, rollout_name: str | None = None) -> RunConfig:
    """Load the Rollout to run and resolve its Benchmark and JudgePanel by name.

    Resources are read from the given files; a referenced Benchmark or JudgePanel
    not found there is looked for in the other ``*.yaml`` files of the first file's
    directory.
    """
    if not paths:
        raise SpecError("no spec file given")
    given = [Path(p) for p in paths]
    # A bindings file among the specs (``adhere run dir/*.yaml``) is read by the
    # Benchmark that names it, not as a resource.
    loaded = [(r, str(p)) for p in given if not is_bindings_file(p) for r in load_resources(p)]
    rollouts = [(r, p) for r, p in loaded if isinstance(r, Rollout)]
    if rollout_name is not None:
        rollouts = [(r, p) for r, p in rollouts if r.metadata.name == rollout_name]
    if not rollouts:
        what = f"named {rollout_name!r} " if rollout_name else ""
        raise SpecError(f"no Rollout {what}found", file=", ".join(map(str, given)))
    if len(rollouts) > 1:
        names = ", ".join(r.metadata.name for r, _ in rollouts)
        raise SpecError(f"several Rollouts ({names}); choose one with --rollout NAME")
    rollout, rollout_file = rollouts[0]
    assert isinstance(rollout, Rollout)
    index = _index(loaded)
    base_dir = Path(rollout_file).resolve().parent

    def find(kind: str, name: str, field_path: str) -> tuple[Resource, str]:
        if (kind, name) not in index:
            for sibling in sorted(base_dir.glob("*.y*ml")):
                if sibling.resolve() in {g.resolve() for g in given}:
                    continue
                try:
                    extra = load_resources(sibling)
                except SpecError:
                    continue  # unrelated or broken neighbour: only an error if we need it
                for r in extra:
                    index.setdefault((r.kind, r.metadata.name), (r, str(sibling)))
        if (kind, name) not in index:
            raise SpecError(
                f"{kind} {name!r} not found in the given files or in {base_dir}",
                file=rollout_file,
                field=field_path,
            )
        return index[(kind, name)]

    benchmark, benchmark_file = find("Benchmark", rollout.spec.benchmark, "spec.benchmark")
    assert isinstance(benchmark, Benchmark)
    panel: JudgePanel | None = None
    files = {
        f"Rollout/{rollout.metadata.name}": rollout_file,
        f"Benchmark/{benchmark.metadata.name}": benchmark_file,
    }
    if rollout.spec.judge_panel:
        found, panel_file = find("JudgePanel", rollout.spec.judge_panel, "spec.judgePanel")
        assert isinstance(found, JudgePanel)
        panel = found
        files[f"JudgePanel/{panel.metadata.name}"] = panel_file
    return RunConfig(
        rollout=rollout, benchmark=benchmark, judge_panel=panel, base_dir=base_dir, files=files
    )
