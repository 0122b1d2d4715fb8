"""``adhere export`` and ``adhere.results`` on a run made with the scripted policy server."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from adhere import results
from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from tests.helpers import run_cli
from tests.integration.export_run import KEY_VAR, SECRET, expected_rows, write_run
from tests.unit.results.docs_tables import documented_columns

READ = {
    "parquet": pd.read_parquet,
    # As docs/results.md says: pandas would read the verdict "n/a" as missing.
    "csv": lambda path: pd.read_csv(path, keep_default_na=False, na_values=[""]),
    "jsonl": lambda path: pd.read_json(path, lines=True),
}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scored run's artifact directory (made once for the module)."""
    import asyncio

    root = tmp_path_factory.mktemp("export")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(KEY_VAR, SECRET)
        prepared = prepare(load_run_config([write_run(root)]))
        summary = asyncio.run(execute(prepared))
    assert summary.ok == 6
    return root / "runs" / "r"


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("fmt", ["parquet", "csv", "jsonl"])
def test_export_writes_the_documented_tables(fmt: str, run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "tables"
    proc = run_cli("export", str(run_dir), "--format", fmt, "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert sorted(p.name for p in out.iterdir()) == sorted(
        f"{name}.{fmt}" for name in ("trials", "checks", "calls", "messages")
    )
    expected = expected_rows(files_of(run_dir))
    assert expected["checks"] > 6 * 5 and expected["calls"] >= 6 and expected["messages"] > 6
    documented = documented_columns()
    for name, columns in documented.items():
        df = READ[fmt](out / f"{name}.{fmt}")
        assert list(df.columns) == [column for column, _, _ in columns], (fmt, name)
        assert len(df) == expected[name], (fmt, name)
        for column, _, nullable in columns:
            if not nullable:
                assert not df[column].isna().any(), (fmt, name, column)
    for path in out.iterdir():
        assert SECRET.encode() not in path.read_bytes(), path


def test_the_python_api_matches_the_run(run_dir: Path) -> None:
    trials = results.trials(run_dir)
    assert trials.equals(results.trials(run_dir.parent.parent / "rollout.yaml"))
    assert len(trials) == 6 and set(trials.model) == {"good", "emoji"}
    assert (trials.passed + trials.failed + trials.not_applicable + trials.errored).max() <= 5
    assert (trials.checks == 5).all() and (trials.status == "ok").all()

    checks = results.checks(f"file://{run_dir}")
    final = checks[checks.final]
    assert len(final) == 6 * 5 and final.judge.isna().all()
    emoji = final[(final.check_id == "SP_no_emoji")].set_index("model")
    assert set(emoji.loc["emoji", "verdict"]) == {"fail"}
    assert set(emoji.loc["good", "verdict"]) == {"pass"}
    assert set(emoji.decider) == {"verifier:no_emoji"}
    assert set(final[final.check_id == "SP_concise"].decider) <= {"panel:majority", "judge:b"}
    judged = checks[~checks.final]
    assert set(judged.judge) == {"a", "b"}
    assert set(judged.check_id) <= {"SP_concise", "SP_if_tests", "UQ_first_line"}
    assert set(judged.source) <= {"SP", "UserQuery"} and set(judged.check_type) >= {"compliance"}
    for _, row in judged.iterrows():  # each judge row is that judge's own stored verdict
        stored = json.loads(
            (
                run_dir
                / "trials"
                / row.model
                / "reference"
                / row.instance_id
                / "r0"
                / "judge_verdicts.json"
            ).read_text()
        )[row.judge]
        mine = next(v for v in stored if v["check_id"] == row.check_id)
        assert (mine["result"], mine["decided_by"]) == (row.verdict, row.decider)

    calls = results.calls(str(run_dir))
    assert set(calls.api) == {"anthropic", "openai-chat"}
    assert not calls.translated.any() and (calls.status == 200).all()
    assert (calls.input_tokens > 0).all() and (calls.duration_seconds >= 0).all()
    assert set(calls.requested_model) == {"agent:read", "agent:read,emoji"}

    messages = results.messages(run_dir)
    system = messages[messages["index"] == -1]
    assert len(system) == 6 and all(t.endswith("Never use emoji.") for t in system.text)
    assert all("SP" in tags.split(",") for tags in system.sources)
    assert set(messages.role) >= {"system", "user", "assistant"}
    evidence = checks.evidence.dropna()
    assert evidence.isin(messages["index"]).all()


def test_a_missing_run_is_one_clear_error(tmp_path: Path) -> None:
    proc = run_cli("export", str(tmp_path / "nowhere"))
    assert proc.returncode == 2
    assert "not a rollout directory" in proc.stderr and "Traceback" not in proc.stderr
