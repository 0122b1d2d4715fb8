"""``adhere analyze``, ``compare`` and ``exporter``: analyses over stored rollouts."""

from __future__ import annotations

from pathlib import Path

import click
from rich.markup import escape

from adhere.cli._app import (
    err_console,
    format_option,
    main,
    out_console,
    print_json,
)


@main.group()
def analyze() -> None:
    """Analyses across rollouts."""


@analyze.command("vibe-correlation")
@click.argument("run_refs", metavar="[RUN]...", nargs=-1)
@click.option(
    "--elo",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Human-preference Elo per model: CSV (model,elo) or a YAML/JSON mapping.",
)
@click.option(
    "--scores",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="CSV model,if,func (shares or percentages) instead of VeriCode rollouts.",
)
@click.option(
    "--points",
    type=click.Choice(["paper", "largest"]),
    default="paper",
    show_default=True,
    help="paper: IF single-turn at k=1, Func pass@1 at k=0; largest: both at the largest k.",
)
@click.option(
    "--protocol",
    type=click.Choice(["single", "multi"]),
    default="single",
    help="The protocol read with --points largest.",
)
@click.option(
    "--if-metric",
    type=click.Choice(["task", "instruction"]),
    default="task",
    show_default=True,
    help="IF_task or IF_instruction (equal at k = 1).",
)
@click.option(
    "--max-error-rate",
    type=click.FloatRange(0, 1),
    default=None,
    help="Leave out models with more errored trials than this share (the paper: 0.1).",
)
@click.option("--step", default=0.1, show_default=True, type=click.FloatRange(0, 1, min_open=True))
def analyze_vibe_correlation(
    run_refs: tuple[str, ...],
    elo: Path,
    scores: Path | None,
    points: str,
    protocol: str,
    if_metric: str,
    max_error_rate: float | None,
    step: float,
) -> None:
    """Correlate α·IF + (1−α)·Func with an Elo table (Pearson, Spearman, Kendall, best α).

    IF and Func (pass@1) come from VeriCode rollouts (by default at the paper's points:
    IF single-turn with one instruction, Func on the original prompt) or from --scores.
    Each RUN is a rollout's artifact directory, its rollout YAML or a store URI ending in
    the rollout (s3://bucket/runs/<rollout>).
    """
    from rich.table import Table as RichTable

    from adhere.errors import SpecError
    from adhere.metrics import vibe_correlation
    from adhere.report import collect, open_run
    from adhere.suites.vericode import excluded_models, model_scores
    from adhere.workflows import load_elo, load_scores

    if bool(run_refs) == (scores is not None):
        raise SpecError("give VeriCode rollout directories or --scores (not both)", field="RUN")
    found: dict[str, tuple[float, float]] = {}
    if scores is not None:
        found = load_scores(scores)
    for ref in run_refs:
        trials = list(collect(open_run(ref)).trials)
        found.update(
            model_scores(
                trials,
                protocol=protocol,
                if_metric=if_metric,
                points=points,
                max_error_rate=max_error_rate,
            )  # fmt: skip
        )
        for model in excluded_models(trials, max_error_rate):
            err_console.print(
                f"left out {model}: more than {max_error_rate:.0%} of its trials errored",
                highlight=False,
            )
    result = vibe_correlation(found, load_elo(elo), step=step)
    out_console.print(f"models compared: {', '.join(result.models) or 'none'}", highlight=False)
    table = RichTable(title="α·IF + (1−α)·Func vs Elo")
    for column in ("α", "Pearson r", "Spearman ρ", "Kendall τ"):
        table.add_column(column, justify="right")
    for point in result.points:
        table.add_row(
            f"{point.alpha:.2f}",
            *("–" if v is None else f"{v:.3f}" for v in (point.pearson, point.spearman,
                                                          point.kendall)),
        )  # fmt: skip
    out_console.print(table)
    for label, best, attribute in (
        ("Pearson", result.best_pearson, "pearson"),
        ("Spearman", result.best_spearman, "spearman"),
        ("Kendall", result.best_kendall, "kendall"),
    ):
        if best is None:
            out_console.print(f"best α by {label}: undefined (fewer than 3 models or no variance)")
        else:
            out_console.print(
                f"best α by {label}: {best.alpha:.2f} ({getattr(best, attribute):.3f})",
                highlight=False,
            )
    if result.missing:
        err_console.print(
            f"left out (in only one input): {', '.join(result.missing)}", highlight=False
        )


def _rollout_pairs(
    _ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]
) -> dict[str, str]:
    pairs = {}
    for value in values:
        candidate, sep, baseline = value.partition("=")
        if not sep or not candidate or not baseline:
            raise click.BadParameter(f"{value!r}: expected CANDIDATE=BASELINE (rollout names)")
        pairs[candidate] = baseline
    return pairs


@main.command()
@click.argument("baseline_ref", metavar="RUN_A")
@click.argument("candidate_ref", metavar="RUN_B")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Markdown report.")
@click.option(
    "--threshold",
    default=0.05,
    show_default=True,
    type=click.FloatRange(0, 1),
    help="Smallest drop (a share) flagged as a regression.",
)
@click.option(
    "--alpha",
    default=0.05,
    show_default=True,
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    help="Flag only with a corrected (Benjamini–Hochberg) p-value below this.",
)
@click.option(
    "--samples",
    default=2000,
    show_default=True,
    type=click.IntRange(min=1),
    help="Bootstrap draws (intervals); random sign patterns beyond 12 instances.",
)
@click.option("--seed", default=0, show_default=True, type=int, help="Resampling seed.")
@click.option("--fail-on-regression", is_flag=True, help="Exit with status 1 when flagged.")
@format_option
def compare(
    baseline_ref: str,
    candidate_ref: str,
    out: Path | None,
    threshold: float,
    alpha: float,
    samples: int,
    seed: int,
    fail_on_regression: bool,
    fmt: str,
) -> None:
    """Compare run RUN_B (candidate) with RUN_A (baseline): ΔISR / ΔCSR, intervals, p-values.

    Each RUN is a rollout's artifact directory, its rollout YAML, or a store URI
    ending in the rollout (s3://bucket/runs/quickstart). Trials are paired
    by model, scaffold, instance and repeat; see docs/observability.md.
    ``--format json``: the comparison as one JSON document (docs/results.md); the exit
    status is the same.
    """
    from rich.table import Table as RichTable

    from adhere.metrics import RegressionSettings
    from adhere.report import (
        compare_stores,
        comparison_json,
        comparison_notes,
        comparison_table,
        open_run,
        render_comparison,
    )

    settings = RegressionSettings(threshold=threshold, alpha=alpha, samples=samples, seed=seed)
    result = compare_stores(open_run(baseline_ref), open_run(candidate_ref), settings)
    if fmt == "json":
        print_json(comparison_json(result))
    else:
        table = comparison_table(result)
        view = RichTable(title=table.title)
        last = len(table.header) - 1
        for n, column in enumerate(table.header):
            view.add_column(column, justify="left" if n < 2 or n == last else "right")
        for row in table.rows:
            flag = row[-1]
            view.add_row(*row, style="bold red" if flag.startswith("REGRESSED") else None)
        out_console.print(view)
        for note in comparison_notes(result):
            out_console.print(f"[yellow]note:[/] {escape(note)}", highlight=False)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render_comparison(result), encoding="utf-8")
        err_console.print(f"comparison written to {out}", highlight=False)
    if fail_on_regression and result.regressed:
        raise SystemExit(1)


@main.command()
@click.option("--store", "store_uri", required=True, help="Store URI or path (e.g. runs).")
@click.option("--port", default=9477, show_default=True, type=click.IntRange(0, 65535))
@click.option("--addr", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option(
    "--baseline",
    "baselines",
    multiple=True,
    callback=_rollout_pairs,
    metavar="CANDIDATE=BASELINE",
    help="Compare rollout CANDIDATE with BASELINE (overrides the Rollout's spec.baseline).",
)
@click.option("--rollout", "rollouts", multiple=True, help="Export only these rollouts.")
@click.option(
    "--settings",
    "settings_file",
    type=click.Path(exists=True, dir_okay=False),
    help="YAML of exporter settings (prices, bounds, TTL, regression test).",
)
@click.option("--ttl", type=click.FloatRange(min=0), help="Seconds a refresh is reused.")
@click.option("--threshold", type=click.FloatRange(0, 1), help="Regression drop to flag.")
@click.option(
    "--alpha",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    help="Regression p-value to flag.",
)
@click.option("--stop-after", type=click.FloatRange(min=0), help="Stop after N seconds.")
def exporter(
    store_uri: str,
    port: int,
    addr: str,
    baselines: dict[str, str],
    rollouts: tuple[str, ...],
    settings_file: str | None,
    ttl: float | None,
    threshold: float | None,
    alpha: float | None,
    stop_after: float | None,
) -> None:
    """Serve Prometheus metrics of the rollouts in a store on /metrics.

    Compliance (ISR/CSR by model, scaffold, source, check type, judge), progress,
    tokens and cost, proxy and judge calls, and regressions against a baseline.
    """
    from adhere.exporter import load_settings, serve_store

    settings = load_settings(
        settings_file,
        ttl_seconds=ttl,
        regression_threshold=threshold,
        regression_alpha=alpha,
        rollouts=list(rollouts) or None,
    )
    if baselines:
        settings = settings.model_copy(update={"baselines": {**settings.baselines, **baselines}})
    serve_store(
        store_uri,
        settings,
        port=port,
        addr=addr,
        stop_after=stop_after,
        on_start=lambda server: err_console.print(
            f"serving {server.url} for {store_uri} (Ctrl-C stops)", highlight=False
        ),
    )
