"""What a killed writer leaves: archived attempts kept, stale temp files cleaned, appends."""

import os
import subprocess
import sys
import time
from pathlib import Path

from adhere.artifacts import RolloutStore
from adhere.core import Trial
from adhere.runner._attempts import start_attempt
from adhere.store import FileStore
from tests.unit.test_store import result

TRIAL = Trial(rollout="r", model="m", scaffold="chat", instance="i", repeat=0)


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(proc.stdout)


def test_archiving_never_overwrites_an_archived_attempt(tmp_path: Path) -> None:
    rs = RolloutStore(FileStore(tmp_path), "r")
    rs.write_calls(TRIAL, [{"first": True}])
    rs.write_result(result(TRIAL, "upstream_fault", attempt=1))
    assert rs.archive_attempt(TRIAL, 1) == 1
    # What the old numbering did after a restart: attempt 1 again, archived as 1 again.
    rs.write_calls(TRIAL, [{"second": True}])
    rs.write_result(result(TRIAL, "upstream_fault", attempt=1))
    assert rs.archive_attempt(TRIAL, 1) == 2
    assert rs.archived_attempts(TRIAL) == [1, 2]
    first = rs.store.read_bytes(rs.trial_key(TRIAL, "attempt-1/calls.jsonl"))
    assert b"first" in first
    assert b"second" in rs.store.read_bytes(rs.trial_key(TRIAL, "attempt-2/calls.jsonl"))


def test_start_attempt_archives_an_interrupted_attempt_and_runs_the_next(tmp_path: Path) -> None:
    rs = RolloutStore(FileStore(tmp_path), "r")
    assert start_attempt(rs, TRIAL, None).attempt == 1  # nothing stored
    rs.write_calls(TRIAL, [{"n": 1}])
    rs.write_interrupted(TRIAL, 1, {"calls": 1})
    assert rs.read_interrupted(TRIAL) == 1
    decision = start_attempt(rs, TRIAL, None)
    assert (decision.action, decision.attempt, decision.archive) == ("run", 2, 1)
    assert not rs.has_files(TRIAL)
    assert rs.store.exists(rs.trial_key(TRIAL, "attempt-1/interrupted.json"))
    # killed (no marker, no result) during attempt 2 after writing its calls
    rs.write_calls(TRIAL, [{"n": 2}])
    assert start_attempt(rs, TRIAL, None).attempt == 3
    assert rs.archived_attempts(TRIAL) == [1, 2]
    # killed during attempt 3 before writing anything: attempt 3 runs again
    assert start_attempt(rs, TRIAL, None).attempt == 3
    rs.write_result(result(TRIAL, "ok", attempt=3))
    assert start_attempt(rs, TRIAL, None).action == "skip"


def test_stale_temp_files_of_dead_writers_are_removed_and_live_ones_kept(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    store.write_bytes("r/a.json", b"{}")
    folder = tmp_path / "r" / "trials"
    folder.mkdir(parents=True)
    dead = folder / f".result.json.{dead_pid()}-abc123.tmp"
    mine = folder / f".calls.jsonl.{os.getpid()}-def456.tmp"
    live_other = folder / f".verdicts.json.{os.getppid()}-x1.tmp"
    old_style = folder / ".trajectory.json.q9z.tmp"
    fresh_old_style = folder / ".scaffold.json.k2m.tmp"
    for path in (dead, mine, live_other, old_style, fresh_old_style):
        path.write_bytes(b"half")
    hours_ago = time.time() - 2 * 3600
    os.utime(old_style, (hours_ago, hours_ago))
    removed = store.remove_stale_temp_files("r")
    assert set(removed) == {str(dead), str(old_style)}
    assert mine.exists() and live_other.exists() and fresh_old_style.exists()
    assert store.read_bytes("r/a.json") == b"{}"


def test_a_write_names_its_temp_file_after_the_writer(tmp_path: Path, monkeypatch) -> None:
    """A write's temp file carries the writer's pid (what the cleanup goes by)."""
    store = FileStore(tmp_path)
    seen = []
    real_replace = os.replace

    def spy(src: str, dst: str) -> None:
        seen.append(Path(src).name)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    store.write_bytes("x/result.json", b"{}")
    assert seen and seen[0].startswith(f".result.json.{os.getpid()}-") and seen[0].endswith(".tmp")


def test_append_adds_whole_lines_without_rewriting(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    store.append_bytes("r/judge_calls.jsonl", b'{"a": 1}\n')
    inode = (tmp_path / "r" / "judge_calls.jsonl").stat().st_ino
    store.append_bytes("r/judge_calls.jsonl", b'{"a": 2}\n')
    assert store.read_bytes("r/judge_calls.jsonl") == b'{"a": 1}\n{"a": 2}\n'
    assert (tmp_path / "r" / "judge_calls.jsonl").stat().st_ino == inode  # appended in place
