"""``adhere generate …``: benchmark data, selections and checklists."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Literal

import click
from rich.markup import escape

from adhere.cli._app import (
    err_console,
    main,
)


@main.group()
def generate() -> None:
    """Generate benchmark data."""


def _int_list(_ctx: click.Context, _param: click.Parameter, value: str) -> list[int]:
    try:
        return [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise click.BadParameter(f"expected comma-separated integers, got {value!r}") from None


@generate.command("pacific")
@click.option(
    "--instructions", default="3", callback=_int_list, help="Steps per sample (e.g. 3,5,8)."
)
@click.option("--length", default="5", callback=_int_list, help="Target output length(s).")
@click.option("--per-language", default=3, show_default=True, type=click.IntRange(min=1))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--mode", type=click.Choice(["prompt", "chat"]), default="prompt", show_default=True)
@click.option("--kind", type=click.Choice(["code", "nl"]), default="code", show_default=True)
@click.option(
    "--selection",
    type=click.Choice(["adhere", "paper"]),
    default="adhere",
    show_default=True,
    help="Chain selection: adhere's or the paper's (docs/pacific.md).",
)
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path))
def generate_pacific(
    instructions: list[int],
    length: list[int],
    per_language: int,
    seed: int,
    mode: str,
    kind: str,
    selection: str,
    out: Path,
) -> None:
    """Write PACIFIC samples (one JSON object a line), reproducible by seed."""
    from adhere.suites.pacific import GeneratorParams
    from adhere.suites.pacific import generate as gen

    params = GeneratorParams(
        instructions=tuple(instructions),
        lengths=tuple(length),
        per_language=per_language,
        seed=seed,
        mode=mode,  # type: ignore[arg-type]
        kind=kind,  # type: ignore[arg-type]
        selection=selection,  # type: ignore[arg-type]
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    tmp = out.with_name(f".{out.name}.tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        for sample in gen(params):
            handle.write(sample.record_json() + "\n")
            count += 1
    os.replace(tmp, out)
    err_console.print(f"wrote {count} samples to {out}", highlight=False)


@generate.command("guidebench-coupons")
@click.option("--n", "count", default=20, show_default=True, type=click.IntRange(min=1))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path))
def generate_guidebench_coupons(count: int, seed: int, out: Path) -> None:
    """Write fresh GuideBench coupon-math tasks (a JSON list), answers solved exactly."""
    import json

    from adhere.suites.guidebench import CouponParams, generate_coupon_tasks

    tasks = generate_coupon_tasks(CouponParams(n=count, seed=seed))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(json.dumps(tasks, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, out)
    err_console.print(f"wrote {len(tasks)} coupon tasks to {out}", highlight=False)


@generate.command("vericode")
@click.option(
    "--tasks",
    "tasks_from",
    default="builtin",
    show_default=True,
    help="Task file (native YAML/JSONL, BigCodeBench- or LiveCodeBench-style JSONL), or "
    "'builtin' for the tasks written by this project.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["auto", "native", "bigcodebench", "livecodebench"]),
    default="auto",
    show_default=True,
)
@click.option(
    "--selector",
    default="deterministic",
    show_default=True,
    metavar="deterministic|ENDPOINT_OR_MODEL",
    help="'deterministic' (seeded, rule-based), an endpoint YAML file, or a scripted model "
    "string (e.g. vericode-selector:seed=1; starts the scripted policy server, a test double).",
)
@click.option("--k", default=5, show_default=True, type=click.IntRange(1, 30))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--limit", type=click.IntRange(min=1), help="Only the first N tasks.")
@click.option("--parallelism", default=4, show_default=True, type=click.IntRange(min=1))
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path))
def generate_vericode(
    tasks_from: str,
    fmt: str,
    selector: str,
    k: int,
    seed: int,
    limit: int | None,
    parallelism: int,
    out: Path,
) -> None:
    """Choose each task's VeriCode instructions and write a selections file (JSONL).

    The file is a VeriCode Benchmark's source (``path:``). A model selector sees the
    task and a seeded permutation of the 30 instructions; its picks are kept when
    relevant and not conflicting, parameters validated by rule.
    """
    from adhere.suites.vericode import builtin_tasks, load_tasks
    from adhere.workflows import select_instructions, write_selections

    tasks = builtin_tasks() if tasks_from == "builtin" else load_tasks(tasks_from, fmt)  # type: ignore[arg-type]
    tasks = tasks[:limit] if limit else tasks
    selections = asyncio.run(
        select_instructions(tasks, selector=selector, k=k, seed=seed, parallelism=parallelism)
    )
    write_selections(selections, out)
    noted = sum(1 for s in selections if s.notes)
    err_console.print(
        f"wrote {len(selections)} selections ({selector}, k={k}, seed={seed}) to {out}"
        + (f"; {noted} with notes (parameters reset or dropped, picks filled)" if noted else ""),
        highlight=False,
    )


@generate.command("manyih")
@click.option(
    "--problems",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Problem set for new samples: a ManyIH coding file or MBPP-style JSON/JSONL.",
)
@click.option(
    "--variant-of",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Instead: write tier variants (--tiers) and/or perturbations (--perturb) of a file.",
)
@click.option("--n", "count", type=click.IntRange(min=1), help="Problems to use (default: all).")
@click.option("--groups", default=4, show_default=True, type=click.IntRange(min=1))
@click.option("--instructions", default=12, show_default=True, type=click.IntRange(min=1))
@click.option(
    "--tiers",
    type=click.IntRange(min=1),
    help="Distinct privilege levels (default: one per instruction); with --variant-of, "
    "the tier variant to write (6, 8 …).",
)
@click.option("--conflicts", default="7-11", show_default=True, help="Conflicting pairs, LOW-HIGH.")
@click.option("--winners", default=6, show_default=True, type=click.IntRange(min=1))
@click.option("--perturb", default=0, type=click.IntRange(min=0), help="Scalar perturbations each.")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path))
def generate_manyih(
    problems: Path | None,
    variant_of: Path | None,
    count: int | None,
    groups: int,
    instructions: int,
    tiers: int | None,
    conflicts: str,
    winners: int,
    perturb: int,
    seed: int,
    out: Path,
) -> None:
    """Write ManyIH coding samples: new ones from a problem set, or variants of a file."""
    import json

    from adhere.suites.manyih import (
        GenerateParams,
        generate,
        load_coding,
        load_problems,
        variant_document,
    )

    if (problems is None) == (variant_of is None):
        raise click.UsageError("give exactly one of --problems and --variant-of")
    if variant_of is not None:
        document = variant_document(
            load_coding(variant_of), tiers=tiers, perturbations=perturb, seed=seed
        )
    else:
        low, _, high = conflicts.partition("-")
        if not (low.isdigit() and high.isdigit()):
            raise click.BadParameter(
                f"expected LOW-HIGH, got {conflicts!r}", param_hint="--conflicts"
            )
        params = GenerateParams(
            n=count,
            groups=groups,
            instructions=instructions,
            tiers=tiers,
            conflicts=(int(low), int(high)),
            winners=winners,
            seed=seed,
        )
        made = generate(load_problems(problems), params)  # type: ignore[arg-type]
        document = made.document(params)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, out)
    skipped = document["statistics"].get("skipped_problems", [])
    note = f" ({len(skipped)} problems skipped: no draw met the knobs)" if skipped else ""
    err_console.print(f"wrote {len(document['data'])} samples to {out}{note}", highlight=False)


@generate.command("checklist")
@click.argument("run_dirs", metavar="RUN...", nargs=-1, required=True)
@click.option("--instance", "instances", multiple=True, help="Instance id (repeatable).")
@click.option("--all-instances", is_flag=True, help="Every instance of the runs.")
@click.option(
    "--model",
    required=True,
    metavar="ENDPOINT_OR_MODEL",
    help="Endpoint YAML file (as a judge's endpoint), or a scripted model string "
    "(e.g. checkgen:seed=1; starts the scripted policy server, a test double).",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(path_type=Path),
    help="Checklist file; a directory when several instances are generated.",
)
@click.option("--max", "max_rollouts", type=click.IntRange(min=1), help="Rollouts per instance.")
@click.option(
    "--min-support",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="Keep checks proposed in at least this many rollouts.",
)
@click.option(
    "--similarity",
    default=0.8,
    show_default=True,
    type=click.FloatRange(0, 1, min_open=True),
    help="Merge checks whose normalized word sets overlap at least this much (Jaccard).",
)
@click.option("--attempts", default=3, show_default=True, type=click.IntRange(min=1))
@click.option("--parallelism", default=4, show_default=True, type=click.IntRange(min=1))
@click.option("--force", is_flag=True, help="Overwrite existing checklist files.")
@click.option(
    "--merge",
    type=click.Choice(["deterministic", "llm"]),
    default="deterministic",
    show_default=True,
    help="How the rollouts' proposals are merged: word-set similarity (reproducible), or "
    "one more call to the model (the paper's way; falls back to deterministic if unusable).",
)
def generate_checklist(
    run_dirs: tuple[str, ...],
    instances: tuple[str, ...],
    all_instances: bool,
    model: str,
    out: Path,
    max_rollouts: int | None,
    min_support: int,
    similarity: float,
    attempts: int,
    parallelism: int,
    force: bool,
    merge: Literal["deterministic", "llm"],
) -> None:
    """Write reviewable checklists from stored reference rollouts (OctoBench shape).

    Each RUN is a rollout's artifact directory or its file:// or s3:// URI
    (s3://bucket/runs/<rollout>).

    For each instance, a model proposes atomic checks from each reference rollout's
    instructions (grouped by source) and turns; the lists are deduplicated and
    harmonized into one YAML checklist with support counts. Exit status 1 when some
    instance got no checklist.
    """
    from adhere.errors import SpecError
    from adhere.workflows import CheckgenSettings, InstanceOutcome, generate_checklists

    if all_instances == bool(instances):
        raise SpecError("give --instance ID (repeatable) or --all-instances", field="--instance")
    done = 0
    total = 0

    def progress(outcome: InstanceOutcome) -> None:
        nonlocal done
        done += 1
        head = f"[{done}/{total}] {outcome.instance}"
        if outcome.error is not None:
            err_console.print(f"{escape(head)}: [red]failed[/] {escape(outcome.error)}")
            return
        found = outcome.checklist
        assert found is not None
        counts = ", ".join(f"{k} {len(v)}" for k, v in found.by_category().items())
        err_console.print(
            escape(
                f"{head}: {outcome.rollouts} rollouts, {found.proposed} checks proposed → "
                f"{len(found.checks)} ({counts}) → {outcome.path}"
            ),
            highlight=False,
        )
        if found.merge_note:
            err_console.print(f"  [yellow]note[/] {escape(found.merge_note)}", highlight=False)

    if instances:
        total = len(instances)
    else:
        from adhere.artifacts import open_rollout_dir

        total = len({i.id for d in run_dirs for i in open_rollout_dir(d).read_instances()})
    outcomes = asyncio.run(
        generate_checklists(
            run_dirs,
            model=model,
            out=out,
            instances=list(instances) if instances else None,
            settings=CheckgenSettings(
                max_rollouts=max_rollouts,
                threshold=similarity,
                min_support=min_support,
                max_attempts=attempts,
                parallelism=parallelism,
                force=force,
                merge=merge,
            ),
            on_instance=progress,
        )
    )
    failed = sum(1 for o in outcomes if o.error is not None)
    err_console.print(
        f"{len(outcomes) - failed} checklist(s) written, {failed} failed", highlight=False
    )
    if failed:
        raise SystemExit(1)
