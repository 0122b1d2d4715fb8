"""``adhere view``: the same pages served on 127.0.0.1, from a file:// or an s3:// store."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from adhere.artifacts import open_rollout_dir
from adhere.report import ViewerSite, make_server, open_run_ref
from tests.helpers import ROOT, run_cli
from tests.integration.store._s3_parts import BUCKET, MotoS3
from tests.integration.viewer._chromium import Chromium
from tests.integration.viewer.conftest import ViewerRun


@pytest.fixture
def served(viewer_run: ViewerRun) -> Iterator[str]:
    server = make_server(ViewerSite(viewer_run.store))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_the_served_pages_are_the_static_ones(viewer_run: ViewerRun, served: str) -> None:
    assert served.startswith("http://127.0.0.1:")
    static = sorted(viewer_run.report.glob("*.html"))
    with httpx.Client(base_url=served, timeout=10) as client:
        root = client.get("/")
        report = (viewer_run.report / "report.html").read_text(encoding="utf-8")
        assert root.status_code == 200 and root.text == report
        for path in static:
            got = client.get(f"/{path.name}")
            assert got.status_code == 200, path.name
            assert got.headers["content-type"] == "text/html; charset=utf-8"
            assert got.text == path.read_text(encoding="utf-8"), path.name
        for missing in ("/trial-0000.html", "/report.md", "/../runs/r/instances.jsonl", "/a/b"):
            assert client.get(missing).status_code == 404, missing


def test_two_clicks_over_http(viewer_run: ViewerRun, served: str, tmp_path: Path) -> None:
    browser = Chromium(tmp_path / "profile")
    try:
        browser.goto(f"{served}/")
        browser.click("a.failed-check", navigates=True)
        hash_ = browser.eval("location.hash")
        assert hash_.startswith("#check-")
        assert browser.eval("document.querySelector(':target').id") == hash_[1:]
        browser.click(f"{hash_} a.evidence", navigates=False)
        assert browser.eval("document.querySelector(':target').className").startswith("msg")
        browser.goto(f"{served}/trials.html?verdict=fail")
        assert "of 6 trials" in browser.eval("document.getElementById('count').textContent")
        assert browser.errors == []
    finally:
        browser.close()


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextmanager
def _view(run: str, env: dict[str, str]) -> Iterator[str]:
    """``adhere view RUN --port 0`` as a user starts it; yields its URL; Ctrl-C ends it."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "adhere.cli", "view", run, "--port", "0"],
        cwd=ROOT,
        env={**os.environ, **env, "PYTHONUNBUFFERED": "1", "COLUMNS": "200"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A test run started in the background (no job control) hands its children
        # SIGINT ignored, and then Ctrl-C cannot reach the server: restore the default.
        preexec_fn=_default_sigint,
    )
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        stdout = proc.stdout
        reader = threading.Thread(target=lambda: lines.append(stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout=60)
        assert lines and "http://127.0.0.1:" in lines[0], lines
        yield "http://127.0.0.1:" + lines[0].split("http://127.0.0.1:")[1].strip()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def test_adhere_view_serves_a_file_run_until_ctrl_c(viewer_run: ViewerRun) -> None:
    trial = sorted(viewer_run.report.glob("trial-*.html"))[0]
    with _view(str(viewer_run.store_dir), {}) as url:
        got = httpx.get(f"{url}{trial.name}", timeout=10)
        assert got.status_code == 200 and got.text == trial.read_text(encoding="utf-8")


@pytest.fixture
def moto(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[MotoS3]:
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAADHERETESTKEY000")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "viewer-test-secret")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    server = MotoS3()
    # moto keeps its state in-process, shared by every server of this pytest run: start
    # from an empty S3, not from what an earlier test module left in the bucket.
    server.reset()
    try:
        import boto3

        boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1").create_bucket(
            Bucket=BUCKET
        )
        yield server
    finally:
        if server.server is not None:
            server.stop()


def test_an_s3_run_reads_and_serves_as_the_file_run(viewer_run: ViewerRun, moto: MotoS3) -> None:
    import boto3

    client = boto3.client("s3", endpoint_url=moto.endpoint, region_name="us-east-1")
    for path in viewer_run.store_dir.rglob("*"):
        if path.is_file() and "report" not in path.relative_to(viewer_run.store_dir).parts:
            key = f"runs/r/{path.relative_to(viewer_run.store_dir).as_posix()}"
            client.put_object(Bucket=BUCKET, Key=key, Body=path.read_bytes())
    uri = f"s3://{BUCKET}/runs/r?endpoint_url={moto.endpoint}"
    from_s3 = ViewerSite(open_run_ref(uri))
    from_file = ViewerSite(open_rollout_dir(viewer_run.store_dir))
    only = sorted(set(from_s3.names()) ^ set(from_file.names()))
    assert from_s3.names() == from_file.names() and len(from_s3.names()) == 9, only
    for name in from_file.names():
        assert from_s3.render(name) == from_file.render(name), name
    calls = sorted(viewer_run.report.glob("calls-*.html"))[0]
    assert from_s3.render(calls.name) == calls.read_text(encoding="utf-8")
    started = time.monotonic()
    with _view(uri, {}) as url:
        got = httpx.get(f"{url}{calls.name}", timeout=10)
        assert got.status_code == 200 and got.text == calls.read_text(encoding="utf-8")
    assert time.monotonic() - started < 120


def test_a_store_uri_without_a_rollout_is_refused() -> None:
    from adhere.errors import SpecError

    with pytest.raises(SpecError, match="names its bucket, store prefix and rollout"):
        open_run_ref("s3://bucket")


def test_adhere_view_refuses_a_missing_run_and_a_taken_port(
    viewer_run: ViewerRun, tmp_path: Path
) -> None:
    missing = run_cli("view", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert "not a rollout directory" in missing.stderr
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        busy = run_cli("view", str(viewer_run.store_dir), "--port", str(port))
    assert busy.returncode == 2 and "Traceback" not in busy.stderr
    assert f"cannot serve on 127.0.0.1:{port}" in busy.stderr and "--port 0" in busy.stderr
