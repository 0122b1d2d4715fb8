"""``adhere view``: the trial viewer of a stored run, served on 127.0.0.1."""

from __future__ import annotations

import click

from adhere.cli._app import err_console, main, out_console


@main.command()
@click.argument("run_ref", metavar="RUN")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="Port on 127.0.0.1 (0: any free port).",
)
def view(run_ref: str, port: int) -> None:
    """Serve the trial viewer of a run on 127.0.0.1 until Ctrl-C.

    RUN is a rollout's artifact directory (e.g. runs/quickstart), its rollout YAML, or
    a store URI ending in the rollout (s3://bucket/runs/quickstart, file:///…/runs/
    quickstart). The pages are those `adhere report` writes beside report.html: the
    report with its failed checks, the rollout's tables linked to their trials, the
    trial list with filters, and one page per trial (transcript, checks, evidence).
    """
    from adhere.report import ViewerSite, make_server, open_run_ref

    site = ViewerSite(open_run_ref(run_ref))
    try:
        server = make_server(site, "127.0.0.1", port)
    except OSError as exc:
        raise click.UsageError(
            f"cannot serve on 127.0.0.1:{port} ({exc.strerror}); --port 0 takes a free port"
        ) from exc
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    out_console.print(
        f"serving the trial viewer of {site.report.rollout} at {url}", highlight=False
    )
    err_console.print("Ctrl-C stops it.", highlight=False)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
