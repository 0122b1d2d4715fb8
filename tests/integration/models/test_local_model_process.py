"""The local model server's process handling, against a stand-in ``llama-server`` script.

The stand-in lives in a temporary cache (``ADHERE_MODEL_SERVER_CACHE``): it dies at
start, never gets ready, or answers ``/health`` like the real server. The real server
is exercised in ``tests/e2e/model``.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time
from contextlib import AsyncExitStack
from pathlib import Path

import httpx
import pytest

from adhere.errors import ModelServerError
from adhere.models import ModelServer, ModelServerSettings, serve_providers
from adhere.models._model_server import MODEL_FILE
from adhere.spec import Endpoint
from tests.helpers import ROOT, run_cli

FAKE = """\
#!{python}
import json, signal, sys, time
from http.server import BaseHTTPRequestHandler, HTTPServer
args = sys.argv[1:]
mode = {mode!r}
port = int(args[args.index("--port") + 1])
print("fake llama-server starting on port", port, "with", " ".join(args), flush=True)
if mode == "die":
    print("error: failed to load model: boom", file=sys.stderr, flush=True)
    sys.exit(3)
if mode == "hang":
    time.sleep(600)
if mode == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
asked = []
class Health(BaseHTTPRequestHandler):
    def do_GET(self):
        asked.append(self.path)
        loading = len(asked) < 3
        body = json.dumps({{"status": "loading" if loading else "ok"}}).encode()
        self.send_response(503 if loading else 200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
HTTPServer(("127.0.0.1", port), Health).serve_forever()
"""


def fake_install(cache: Path, mode: str) -> Path:
    (cache / "bin").mkdir(parents=True)
    (cache / "model").mkdir()
    (cache / "model" / MODEL_FILE).write_bytes(b"GGUF")
    binary = cache / "bin" / "llama-server"
    binary.write_text(FAKE.format(python=sys.executable, mode=mode))
    binary.chmod(0o755)
    return cache


def gone(pid: int) -> bool:
    """Whether ``pid`` is gone (or a zombie nobody has reaped yet)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def wait_gone(pid: int, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if gone(pid):
            return True
        time.sleep(0.05)
    return False


async def test_a_ready_server_serves_until_stopped(tmp_path: Path) -> None:
    server = ModelServer(ModelServerSettings(cache=fake_install(tmp_path, "ok"), slots=2, ctx=2048))
    url = await server.start()
    pid = server.pid
    assert pid is not None and url == server.url and url.startswith("http://127.0.0.1:")
    async with httpx.AsyncClient() as http:
        assert (await http.get(f"{url}/health")).json() == {"status": "ok"}
    assert "-np 2" in server.log_tail() and "-c 2048" in server.log_tail()
    await server.aclose()
    assert gone(pid) and server.pid is None
    await server.aclose()  # stopping twice is harmless


async def test_a_server_that_dies_at_start_says_why(tmp_path: Path) -> None:
    server = ModelServer(ModelServerSettings(cache=fake_install(tmp_path, "die")))
    with pytest.raises(ModelServerError) as caught:
        await server.start()
    message = str(caught.value)
    assert message.startswith("the local model server exited with status 3 while starting")
    assert "error: failed to load model: boom" in message
    assert server.pid is None


async def test_a_server_that_never_gets_ready_is_stopped(tmp_path: Path) -> None:
    settings = ModelServerSettings(cache=fake_install(tmp_path, "hang"), ready_timeout=0.5)
    server = ModelServer(settings)
    started = time.monotonic()
    with pytest.raises(ModelServerError, match=r"did not answer http://127\.0\.0\.1:\d+/health "):
        await server.start()
    assert time.monotonic() - started < 10
    assert server.pid is None
    leftovers = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True)
    assert leftovers.stdout == ""


async def test_a_server_ignoring_sigterm_is_killed(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("adhere.models._model_server._STOP_GRACE", 0.3)
    server = ModelServer(ModelServerSettings(cache=fake_install(tmp_path, "stubborn")))
    await server.start()
    pid = server.pid
    assert pid is not None
    await server.aclose()
    assert gone(pid)


async def test_the_provider_serves_a_run_and_stops_with_it(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ADHERE_MODEL_SERVER_CACHE", str(fake_install(tmp_path, "ok")))
    anthropic = Endpoint.model_validate(
        {"api": "anthropic", "baseUrl": "local-model", "model": "smollm2"}
    )
    openai = anthropic.model_copy(update={"api": "openai"})

    async with AsyncExitStack() as stack:
        served = await serve_providers(stack, models=[anthropic], judges=[openai])
        root = served.resolve(anthropic).base_url
        assert served.resolve(openai, role="judge").base_url == root + "/v1"
        async with httpx.AsyncClient() as http:
            assert (await http.get(f"{root}/health")).json() == {"status": "ok"}
        pids = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True)
        assert len(pids.stdout.split()) == 1
    assert wait_gone(int(pids.stdout.split()[0]))


def test_the_server_dies_with_its_parent(tmp_path: Path) -> None:
    cache = fake_install(tmp_path / "cache", "ok")
    code = textwrap.dedent(
        f"""
        import asyncio, pathlib, time
        from adhere.models import ModelServer, ModelServerSettings
        server = ModelServer(ModelServerSettings(cache=pathlib.Path({str(cache)!r})))
        asyncio.run(server.start())
        print(server.pid, flush=True)
        time.sleep(600)
        """
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert parent.stdout is not None
        pid = int(parent.stdout.readline())
        assert not gone(pid)
    finally:
        parent.kill()  # SIGKILL: no clean-up code runs in the parent
        parent.communicate()
    assert wait_gone(pid), f"the model server (pid {pid}) outlived its parent"


def test_serve_model_without_an_install_says_how_to_install(tmp_path: Path) -> None:
    proc = run_cli("serve-model", "--port", "0", env={"ADHERE_MODEL_SERVER_CACHE": str(tmp_path)})
    assert proc.returncode == 2
    assert "not installed" in proc.stderr
    assert "bash scripts/install-model-server.sh" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_serve_model_rejects_a_bad_setting_by_name(tmp_path: Path) -> None:
    env = {"ADHERE_MODEL_SERVER_CACHE": str(tmp_path), "ADHERE_MODEL_SERVER_CTX": "lots"}
    proc = run_cli("serve-model", env=env)
    assert proc.returncode == 2
    assert "ADHERE_MODEL_SERVER_CTX: expected a positive whole number, got 'lots'" in proc.stderr
    proc = run_cli("serve-model", "--slots", "8", "--ctx", "2048", env=env)
    assert "ctx: a context of 2048 tokens gives each of the 8 slots" in proc.stderr


def test_serve_model_prints_its_url_and_stops_on_sigterm(tmp_path: Path) -> None:
    env = {**os.environ, "ADHERE_MODEL_SERVER_CACHE": str(fake_install(tmp_path, "ok"))}
    proc = subprocess.Popen(
        [sys.executable, "-m", "adhere.cli", "serve-model", "--port", "0", "--slots", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        assert httpx.get(f"{url}/health").json() == {"status": "ok"}
        pids = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True)
        server_pid = int(pids.stdout.split()[0])
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr
    assert "1 slots" in stderr and "local model server stopped" in stderr
    assert wait_gone(server_pid)


def test_serve_model_stops_by_itself_after_stop_after(tmp_path: Path) -> None:
    env = {"ADHERE_MODEL_SERVER_CACHE": str(fake_install(tmp_path, "ok"))}
    started = time.monotonic()
    proc = run_cli("serve-model", "--port", "0", "--stop-after", "1.5", env=env, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started >= 1.5
    assert proc.stdout.startswith("http://127.0.0.1:")
    assert "stops after 1.5 s" in proc.stderr and "local model server stopped" in proc.stderr
    pid = int(proc.stderr.split("pid ", 1)[1].split(",", 1)[0])
    assert wait_gone(pid)


def test_run_without_an_install_fails_clearly(tmp_path: Path, write_specs) -> None:
    from tests.helpers import bench_yaml, model, rollout_yaml

    path = write_specs(
        bench_yaml(instructions="[3]", lengths="[3]"),
        rollout_yaml(model("tiny", "smollm2", base="local-model")),
    )
    proc = run_cli(
        "run", str(path), "--no-report", env={"ADHERE_MODEL_SERVER_CACHE": str(tmp_path / "no")}
    )
    assert proc.returncode == 2, proc.stderr
    assert "bash scripts/install-model-server.sh" in proc.stderr
    assert "Traceback" not in proc.stderr


async def test_a_port_in_use_is_refused_not_mistaken_for_the_server(tmp_path: Path) -> None:
    first = ModelServer(ModelServerSettings(cache=fake_install(tmp_path, "ok")))
    url = await first.start()
    try:
        port = int(url.rsplit(":", 1)[1])
        second = ModelServer(ModelServerSettings(cache=tmp_path, port=port))
        with pytest.raises(ModelServerError, match=f"^port {port} on 127.0.0.1 is in use; "):
            await second.start()
        assert second.pid is None
    finally:
        await first.aclose()
