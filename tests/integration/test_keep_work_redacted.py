"""``ADHERE_KEEP_WORK=1`` keeps the trial's scratch files, with no live key left in them."""

from pathlib import Path

from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from adhere.testing import PolicyServer, PolicyServerConfig
from tests.e2e.pipeline.test_observed_runs import model, write_rollout, write_suite

SECRET = "sk-adhere-planted-0123456789-KEEPWORK"


async def test_kept_work_and_the_store_hold_no_planted_key(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ADHERE_PLANTED_KEY", SECRET)
    monkeypatch.setenv("ADHERE_KEEP_WORK", "1")
    monkeypatch.setenv("ADHERE_WORK_DIR", str(tmp_path / "work"))
    # The key sits in a workspace file the agent prints: it reaches the agent's tool
    # output, the model request, the kept workspace copy and the kept tool logs.
    write_suite(
        tmp_path,
        [{"instance_id": "leak", "user_query": ["Print secrets.env."]}],
        {"README.md": "# demo\n", "secrets.env": f"API_KEY={SECRET}\n"},
    )
    async with PolicyServer(PolicyServerConfig(require_api_key=SECRET)) as server:
        path = write_rollout(
            tmp_path,
            model(
                "m",
                "agent:run,command=cat secrets.env",
                api="openai",
                base=f"{server.url}/v1",
                extra=", apiKey: {env: ADHERE_PLANTED_KEY}",
            ),
            "[reference]",
            parallelism=1,
        )
        prepared = prepare(load_run_config([path]))
        summary = await execute(prepared, retry_backoff_seconds=0.01)
    assert summary.ok == 1, summary.errors
    kept = [p for p in (tmp_path / "work").rglob("*") if p.is_file()]
    assert any(p.name == "secrets.env" for p in kept)  # kept, as asked
    assert any(p.name.startswith("bash-") for p in kept)  # the tool's own output log
    for folder in (tmp_path / "work", tmp_path / "runs"):
        for file in folder.rglob("*"):
            if file.is_file():
                assert SECRET.encode() not in file.read_bytes(), file
    copy = next(p for p in kept if p.name == "secrets.env")
    assert copy.read_text() == "API_KEY=[redacted]\n"
