"""``adhere import mini-vela``: a hand-written mini-vela log becomes a rollout whose
trajectories ``adhere trajectory show`` displays; bad logs get one clear line."""

from pathlib import Path

from tests.helpers import ROOT, run_cli

FIXTURE = ROOT / "tests/unit/observe/fixtures/mini-vela"
BENCHMARK = ROOT / "examples/octobench-sample/benchmark.yaml"


def _flat(text: str) -> str:
    return text.replace("\n", " ")


def test_import_then_show(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "imported"
    proc = run_cli("import", "mini-vela", str(FIXTURE), "--out", str(run))
    assert proc.returncode == 0, proc.stderr
    err = _flat(proc.stderr)
    assert "claude-md-tests: 9 lines, 4 duplicate copies dropped, 5 calls" in err
    assert "sp-no-emoji-brief: 4 lines, 2 duplicate copies dropped, 2 calls" in err
    assert "imported 2 trials" in err
    shown = run_cli(
        "trajectory", "show", str(run), "claude-sonnet-4-5-20250929/mini-vela/claude-md-tests"
    )
    assert shown.returncode == 0, shown.stderr
    out = _flat(shown.stdout)
    assert "instance claude-md-tests" in out
    assert 'Read({"file_path": "/app/inventory.py"})' in out
    assert "Added total_value(items) with type hints" in out
    # trajectories only: scoring says why it cannot, in one line
    scored = run_cli("score", str(run), "--no-report")
    assert scored.returncode == 2 and "Traceback" not in scored.stderr
    assert "imported without --benchmark cannot be scored" in _flat(scored.stderr)
    again = run_cli("import", "mini-vela", str(FIXTURE), "--out", str(run))
    assert again.returncode == 2 and "already holds files" in _flat(again.stderr)


def test_import_with_the_benchmark_tags_sources(tmp_path: Path) -> None:
    run = tmp_path / "imported"
    proc = run_cli(
        "import", "mini-vela", str(FIXTURE), "--out", str(run), "--benchmark", str(BENCHMARK)
    )
    assert proc.returncode == 0, proc.stderr
    shown = run_cli("trajectory", "show", str(run), "MiniMax-M2.1/mini-vela/sp-no-emoji-brief")
    assert shown.returncode == 0, shown.stderr
    out = _flat(shown.stdout)
    assert "[SP (instance)" in out and "[UserQuery (turn 1)" in out


def test_a_malformed_line_is_one_clear_error(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    good = (FIXTURE / "sp-no-emoji-brief.jsonl").read_text()
    (logs / "s.jsonl").write_text(good + '{"session_id": "s", "request_time": 1}\n')
    proc = run_cli("import", "mini-vela", str(logs), "--out", str(tmp_path / "run"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    err = _flat(proc.stderr)
    assert f"{logs / 's.jsonl'}:5: request_body: Field required" in err.replace("  ", " ")
