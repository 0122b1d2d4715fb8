"""``adhere trial`` and ``adhere operator``: what runs in a cluster."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

from adhere.cli._app import (
    _ray_options,
    _scorer,
    err_console,
    main,
)


@main.group()
def trial() -> None:
    """One trial, or the scoring pass, of a rollout stored at a URI (the operator's pods)."""


@trial.command("run")
@click.option(
    "--rollout-uri",
    help="<store URI>/<rollout>, where the rollout's spec snapshot and instances are.",
)
@click.option(
    "--spool",
    type=click.Path(file_okay=False, path_type=Path),
    help="Instead of --rollout-uri: the directory `adhere trial stage` prepared; the "
    "trial's files go there and `adhere trial upload` copies them to the store.",
)
@click.option("--trial", "trial_id", required=True, help="The trial's id.")
@click.option("--attempt", type=click.IntRange(min=1), help="Attempt number (default: next).")
@click.option(
    "--proxy-url",
    help="A recording proxy already running (the pod's sidecar); default: start one here.",
)
@click.option(
    "--calls-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where that proxy writes <trial>/calls.jsonl (with --proxy-url).",
)
@click.option(
    "--upload-wait",
    type=click.FloatRange(min=0),
    default=600.0,
    show_default=True,
    help="With --spool: seconds to wait for the uploader's acknowledgement.",
)
@click.option(
    "--no-sandbox",
    is_flag=True,
    help="Run the agent CLI without the agent sandbox whatever the Rollout says: the "
    "operator's trial pods, where the pod is the sandbox (a restricted pod cannot make "
    "namespaces).",
)
def trial_run(
    rollout_uri: str | None,
    spool: Path | None,
    trial_id: str,
    attempt: int | None,
    proxy_url: str | None,
    calls_dir: Path | None,
    upload_wait: float,
    no_sandbox: bool,
) -> None:
    """Run exactly one trial and write its artifacts to the store (result last).

    A trial already finished ``ok`` is not run again; an earlier attempt's files move
    to ``attempt-<n>/``. Exit status: 0 when the trial finished ok, 1 when it ended in
    an error (recorded in the store), 2 for invalid input, 3 (with --spool) when the
    uploader did not confirm that the files reached the store, 143 (129) when stopped
    by SIGTERM (SIGHUP): the agent's processes are ended and the calls it made are
    kept as an interrupted attempt.

    With --spool (a trial pod) this process needs no store credential: ``adhere trial
    stage`` decided the attempt and staged the snapshot, and the files go to the
    store through ``adhere trial upload``.
    """
    from adhere.errors import SpecError
    from adhere.runner import Interrupted, run_interruptible, run_stored_trial

    if (rollout_uri is None) == (spool is None):
        raise SpecError("give exactly one of --rollout-uri and --spool", field="--rollout-uri")
    stored_error = None
    try:
        if spool is not None:
            from adhere.runner import NOT_STORED, run_spooled_trial

            spooled = run_spooled_trial(
                spool,
                trial_id,
                proxy_url=proxy_url,
                calls_dir=calls_dir,
                upload_wait=upload_wait,
                sandbox=False if no_sandbox else None,
            )
            result = spooled.result
            stored_error = None if spooled.stored else spooled.error
        else:
            assert rollout_uri is not None
            result = run_interruptible(
                run_stored_trial(
                    rollout_uri,
                    trial_id,
                    attempt=attempt,
                    proxy_url=proxy_url,
                    calls_dir=calls_dir,
                    sandbox=False if no_sandbox else None,
                )
            )
    except Interrupted as stop:
        err_console.print(f"[yellow]{stop}[/]: the trial was cut short and recorded as such.")
        raise SystemExit(stop.exit_status) from None
    t = result.trial
    err_console.print(
        f"trial {result.trial_id} ({t.model}/{t.scaffold}/{t.instance}/r{t.repeat}) "
        f"attempt {result.attempt}: {result.status}"
        + (f" — {result.error}" if result.error else ""),
        highlight=False,
    )
    if stored_error is not None:
        err_console.print(
            f"[red]the trial's files did not reach the store[/]: {stored_error}", highlight=False
        )
        raise SystemExit(NOT_STORED)
    if result.status != "ok":
        raise SystemExit(1)


@trial.command("stage")
@click.option("--rollout-uri", required=True, help="<store URI>/<rollout> of the trial.")
@click.option("--trial", "trial_id", required=True, help="The trial's id.")
@click.option("--attempt", type=click.IntRange(min=1), help="The operator's attempt number.")
@click.option(
    "--spool",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The volume shared with the trial container: the snapshot goes there.",
)
@click.option(
    "--state",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="A volume only this and the uploader mount: where the trial's files go.",
)
def trial_stage(
    rollout_uri: str, trial_id: str, attempt: int | None, spool: Path, state: Path
) -> None:
    """Prepare a trial pod's spool (its init container, which holds the store credentials).

    Archives the trial's earlier attempt in the store, decides the attempt's number
    and stages the rollout's snapshot and instances for ``adhere trial run --spool``.
    Exit status: 0 when staged, 2 for invalid input or an unreachable store.
    """
    from adhere.errors import SpecError, StoreError
    from adhere.runner import stage_trial

    try:
        handoff = stage_trial(rollout_uri, trial_id, attempt=attempt, spool=spool, state=state)
    except StoreError as exc:
        raise SpecError(f"the store: {exc}", field="--rollout-uri") from None
    what = "already ok, nothing to run" if handoff.skip else f"attempt {handoff.attempt}"
    err_console.print(f"staged trial {trial_id}: {what}", highlight=False)


@trial.command("upload")
@click.option("--rollout-uri", required=True, help="<store URI>/<rollout> of the trial.")
@click.option("--trial", "trial_id", required=True, help="The trial's id.")
@click.option(
    "--spool",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The volume the trial container writes its files into.",
)
@click.option(
    "--state",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The volume `adhere trial stage` wrote its handoff into.",
)
@click.option(
    "--stop-wait",
    type=click.FloatRange(min=0),
    default=30.0,
    show_default=True,
    help="On SIGTERM, seconds to wait for a trial still recording its interruption.",
)
def trial_upload(
    rollout_uri: str, trial_id: str, spool: Path, state: Path, stop_wait: float
) -> None:
    """Copy a trial pod's files to the store once the trial is over (a native sidecar).

    Uploads ``result.json`` last, acknowledges to ``adhere trial run --spool``, then
    waits for SIGTERM (the kubelet sends it when the trial container has exited),
    uploads what changed since and exits 0.
    """
    import signal
    import threading

    from adhere.runner import upload_trial

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: stop.set())
    report = upload_trial(
        rollout_uri, trial_id, spool=spool, state=state, stop=stop, stop_seconds=stop_wait
    )
    for name in report.skipped:
        err_console.print(f"not uploaded (not a regular file): {name}", highlight=False)
    err_console.print(
        f"uploaded {report.files} files of trial {trial_id}"
        + (f"; last error: {report.error}" if report.error else ""),
        highlight=False,
    )


@trial.command("copy-workspace")
@click.option(
    "--from",
    "source",
    required=True,
    type=click.Path(path_type=Path),
    help="The workspace directory in the instance's image (its workspace_abs_path).",
)
@click.option(
    "--to",
    "target",
    required=True,
    type=click.Path(path_type=Path),
    help="The empty volume the trial container mounts at that path.",
)
def trial_copy_workspace(source: Path, target: Path) -> None:
    """Copy an instance image's workspace into a volume (a trial pod's init container).

    Files keep their modes, symbolic links are copied as links (never followed), and
    ``.git`` comes along. Exit status: 0 when copied, 2 when the source is missing.
    """
    from adhere.runner import copy_workspace

    count = copy_workspace(source, target)
    err_console.print(f"copied {count} entries of {source} into {target}", highlight=False)


@trial.command("score")
@click.option("--rollout-uri", required=True, help="<store URI>/<rollout> to score.")
@_ray_options
def trial_score(
    rollout_uri: str, ray_address: str | None, verify_actors: int, judge_actors: int
) -> None:
    """Score the finished trials of a stored rollout (the operator's RayJob runs this)."""
    from adhere.runner import open_rollout_uri, score_stored

    scorer = _scorer(ray_address, verify_actors, judge_actors)
    summary = asyncio.run(score_stored(open_rollout_uri(rollout_uri), scorer=scorer))
    err_console.print(
        f"scored {summary.trials} trials in {summary.seconds:.1f}s: "
        f"{summary.verifier_verdicts} by verifiers, {summary.judged_checks} judged, "
        f"{summary.undecided_checks} undecided, {summary.errors} errors",
        highlight=False,
    )


@main.command("operator")
@click.option(
    "--config",
    "config_file",
    type=click.Path(exists=True, dir_okay=False),
    help="YAML of operator settings (docs/kubernetes.md lists them).",
)
@click.option(
    "-n",
    "--namespace",
    "namespaces",
    multiple=True,
    help="Watch only this namespace (repeatable); default: cluster-wide.",
)
@click.option("--store", "store_uri", help="Default store URI (overrides storeUri).")
@click.option("--interval", type=click.FloatRange(min=0.05), help="Reconcile interval, seconds.")
@click.option("--liveness", help="Serve kopf's liveness probe, e.g. http://0.0.0.0:8080/healthz.")
@click.option(
    "--metrics-port",
    type=click.IntRange(0, 65535),
    help="Also serve /metrics (adhere.exporter) for the rollouts in the store, on this port.",
)
@click.option("--metrics-addr", default="0.0.0.0", show_default=True, help="Address of /metrics.")
@click.option(
    "--metrics-settings",
    type=click.Path(exists=True, dir_okay=False),
    help="Exporter settings YAML (TTL, label bounds, prices).",
)
def operator_command(
    config_file: str | None,
    namespaces: tuple[str, ...],
    store_uri: str | None,
    interval: float | None,
    liveness: str | None,
    metrics_port: int | None,
    metrics_addr: str,
    metrics_settings: str | None,
) -> None:
    """Run the Kubernetes operator (kopf): Benchmarks, JudgePanels and Rollouts.

    Each Rollout's trials run as Jobs (one per trial and attempt), retried up to
    spec.maxRetries, then scored (KubeRay RayJob, a Ray cluster, or in process).
    """
    from adhere.operator import load_operator_config, run_operator

    config = load_operator_config(config_file, store_uri=store_uri, interval_seconds=interval)
    run_operator(
        config,
        namespaces=namespaces,
        liveness_endpoint=liveness,
        metrics_port=metrics_port,
        metrics_addr=metrics_addr,
        metrics_settings=metrics_settings,
    )
