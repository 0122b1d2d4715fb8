"""`adhere run`'s endpoint check before the first trial, against real servers on 127.0.0.1."""

import socket
import time
from pathlib import Path

import pytest
from aiohttp import web

from adhere.errors import PreflightError
from adhere.models import Served, model_probe, run_probes
from adhere.runner import endpoint_probes, execute, preflight, prepare
from adhere.spec import load_run_config
from adhere.testing import PolicyServerConfig, ThreadedPolicyServer, load_scripts
from tests.helpers import bench_yaml, model, rollout_yaml, run_cli

KEY = "sk-preflight-secret-4711"


def closed_port() -> int:
    """A port nothing listens on: bound, read, closed."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def keyed_server(tmp_path: Path):
    script = tmp_path / "hello.yaml"
    script.write_text("- text: hello there\n")
    config = PolicyServerConfig(require_api_key=KEY, scripts=load_scripts([script]))
    server = ThreadedPolicyServer(config)
    url = server.start()
    yield url
    server.stop()


def keyed(name: str, model_string: str, base: str, *, api="openai", env="PF_KEY") -> str:
    return model(name, model_string, api=api, base=base, extra=f", apiKey: {{env: {env}}}")


def panel_yaml(base: str) -> str:
    return (
        "apiVersion: adhere.dev/v1alpha1\nkind: JudgePanel\nmetadata: {name: p}\nspec:\n"
        f'  judges:\n    - {{name: j, endpoint: {{baseUrl: "{base}", model: "judge:seed=1"}}}}\n'
    )


def test_a_closed_port_stops_the_run_at_once_with_one_message(tmp_path: Path, write_specs) -> None:
    port = closed_port()
    base = f"http://127.0.0.1:{port}/v1"
    models = model("dead", "x", base=base) + model("fine", "oracle")
    path = write_specs(bench_yaml(), rollout_yaml(models, max_retries=5))
    began = time.monotonic()
    done = run_cli("run", str(path), "--quiet")
    elapsed = time.monotonic() - began
    assert done.returncode == 2, done.stderr
    assert elapsed < 30  # the whole process; the check itself is bounded below
    failing = [line for line in done.stderr.splitlines() if line.startswith("  model ")]
    assert failing == [
        f"  model 'dead' at {base}, openai-chat model 'x': connection refused "
        f"([Errno 111] Connect call failed ('127.0.0.1', {port}))"
    ]
    assert "1 endpoint failed the check before the run" in done.stderr
    assert "--no-preflight" in done.stderr
    assert not (tmp_path / "runs" / "r" / "trials").exists()


async def test_the_check_itself_takes_under_five_seconds(tmp_path: Path, write_specs) -> None:
    base = f"http://127.0.0.1:{closed_port()}/v1"
    path = write_specs(bench_yaml(), rollout_yaml(model("dead", "x", base=base), max_retries=5))
    prepared = prepare(load_run_config([path]))
    began = time.monotonic()
    with pytest.raises(PreflightError) as caught:
        await execute(prepared, check_endpoints=True)
    assert time.monotonic() - began < 5
    [line] = caught.value.failures
    assert line.startswith("model 'dead'") and "connection refused" in line
    assert not (tmp_path / "runs" / "r" / "trials").exists()


async def test_a_wrong_key_and_an_unknown_model_each_get_their_line_without_the_key(
    tmp_path: Path, write_specs, keyed_server, monkeypatch
) -> None:
    monkeypatch.setenv("PF_KEY", "sk-wrong-" + KEY)
    monkeypatch.setenv("PF_GOOD", KEY)
    models = keyed("wrongkey", "oracle", f"{keyed_server}/v1")
    models += keyed("nomodel", "no-such-policy", keyed_server, api="anthropic", env="PF_GOOD")
    path = write_specs(bench_yaml(), rollout_yaml(models))
    prepared = prepare(load_run_config([path]))
    with pytest.raises(PreflightError) as caught:
        await execute(prepared, check_endpoints=True)
    wrong, unknown = caught.value.failures
    assert wrong.startswith(f"model 'wrongkey' at {keyed_server}/v1, openai-chat model 'oracle'")
    assert ": key rejected (HTTP 401: " in wrong and "invalid API key" in wrong
    assert unknown.startswith(f"model 'nomodel' at {keyed_server}, anthropic model")
    assert ": model or API path not found (HTTP 404: " in unknown
    assert "no-such-policy" in unknown
    assert KEY not in str(caught.value)
    assert not (tmp_path / "runs" / "r" / "trials").exists()


async def test_an_answer_in_the_wrong_shape_is_a_bad_shape(tmp_path: Path, write_specs) -> None:
    async def not_a_reply(request: web.Request) -> web.Response:
        return web.json_response({"hello": "world"})

    app = web.Application()
    app.router.add_post("/v1/chat/completions", not_a_reply)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        base = f"http://127.0.0.1:{port}/v1"
        path = write_specs(bench_yaml(), rollout_yaml(model("stub", "m", base=base)))
        prepared = prepare(load_run_config([path]))
        with pytest.raises(PreflightError) as caught:
            await execute(prepared, check_endpoints=True)
    finally:
        await runner.cleanup()
    [line] = caught.value.failures
    assert line.startswith(f"model 'stub' at {base}, openai-chat model 'm': bad shape: ")
    reason = "not a reply in the openai-chat shape (the answer does not read as a reply: "
    reason += '{"hello": "world"})'
    assert reason in line


async def test_judges_are_checked_too(tmp_path: Path, write_specs) -> None:
    base = f"http://127.0.0.1:{closed_port()}/v1"
    rollout = rollout_yaml(model("fine", "oracle")).replace(
        "  benchmark: bench\n", "  benchmark: bench\n  judgePanel: p\n"
    )
    path = write_specs(bench_yaml() + "---\n" + panel_yaml(base), rollout)
    prepared = prepare(load_run_config([path]))
    with pytest.raises(PreflightError) as caught:
        await execute(prepared, check_endpoints=True)
    [line] = caught.value.failures
    assert line.startswith(f"judge 'j' at {base}, openai-chat model 'judge:seed=1': ")
    assert "connection refused" in line


@pytest.mark.parametrize("api", ["openai", "anthropic", "openai-responses", "gemini"])
async def test_a_reachable_keyed_endpoint_passes_in_every_shape(
    tmp_path: Path, write_specs, keyed_server, monkeypatch, api
) -> None:
    monkeypatch.setenv("PF_KEY", KEY)
    models = keyed("remote", "script:hello", keyed_server, api=api)
    path = write_specs(bench_yaml(), rollout_yaml(models))
    config = load_run_config([path])
    [probe] = endpoint_probes(config, Served())
    assert probe.url.startswith(keyed_server + "/v1")
    assert KEY not in repr(probe)
    await preflight(config, Served())  # raises when it fails


async def test_scripted_endpoints_pass_and_the_run_goes_on(tmp_path: Path, write_specs) -> None:
    models = model("local", "oracle:fail_first=1,fail_status=503,retry_after=0", api="anthropic")
    rollout = rollout_yaml(models).replace(
        "  benchmark: bench\n", "  benchmark: bench\n  judgePanel: p\n"
    )
    path = write_specs(bench_yaml() + "---\n" + panel_yaml("scripted"), rollout)
    prepared = prepare(load_run_config([path]))
    summary = await execute(prepared, check_endpoints=True)
    assert (summary.ran, summary.ok) == (12, 12)
    # The probe is answered before fault options: the trials still saw their 503 first.
    calls = prepared.store.read_calls(prepared.trials[0])
    assert [c["outcome"] for c in calls] == ["server_error", "ok"]


async def test_a_429_passes_and_a_5xx_fails_with_the_endpoints_words() -> None:
    async def answer(request: web.Request) -> web.Response:
        body = await request.json()
        status = {"limited": 429, "broken": 500}[body["model"]]
        return web.json_response({"error": {"message": f"{body['model']} says no"}}, status=status)

    app = web.Application()
    app.router.add_post("/v1/chat/completions", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    root = f"http://127.0.0.1:{runner.addresses[0][1]}"
    try:
        probes = [
            model_probe(m, base_url=root, root_url=root, api="openai-chat", model=m, key=None)
            for m in ("limited", "broken")
        ]
        failures = await run_probes(probes)
    finally:
        await runner.cleanup()
    [failure] = failures
    assert failure.message() == (
        f"model 'broken' at {root}, openai-chat model 'broken': "
        "server error (HTTP 500: broken says no)"
    )
