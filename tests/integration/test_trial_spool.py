"""A trial pod's stage / trial / upload hand-over, at its edges (``adhere.runner._spool``).

The happy path and the credentials are in
``tests/integration/operator/test_operator_pod_credentials.py``; here: a trial process
that dies without saying it is done, a store that refuses the upload, and a spool
the agent tampered with.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from adhere.runner import Spool, stage_trial, upload_trial
from tests.helpers import ROOT, run_cli, wait_until
from tests.integration.operator._operator_parts import scripted_model, stored_rollout

CRASH = """\
import os, sys
from adhere.runner import Spool
spool = Spool(__import__("pathlib").Path(sys.argv[1]))
spool.hold()
target = __import__("pathlib").Path(sys.argv[2])
target.mkdir(parents=True, exist_ok=True)
(target / "calls.jsonl").write_text('{"seq": 0}\\n')
os._exit(137)  # killed: no done.json, the lock goes with the process
"""


class Uploader:
    """``adhere trial upload``'s loop in a thread, stopped like a sidecar."""

    def __init__(
        self, uri: str, trial_id: str, spool: Path, state: Path, poll: float = 0.2
    ) -> None:
        self.stop = threading.Event()
        self.thread = threading.Thread(
            target=lambda: upload_trial(
                uri,
                trial_id,
                spool=spool,
                state=state,
                stop=self.stop,
                poll_seconds=poll,
                retry_seconds=0.01,
            )
        )
        self.thread.start()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=60)
        assert not self.thread.is_alive()


@pytest.fixture
def uploaders() -> Iterator[list[Uploader]]:
    started: list[Uploader] = []
    yield started
    for uploader in started:
        if uploader.thread.is_alive():
            uploader.close()


def test_a_trial_killed_without_a_word_still_has_its_files_uploaded(
    tmp_path: Path, uploaders: list[Uploader]
) -> None:
    store, trials = stored_rollout(tmp_path, models=[scripted_model()])
    trial = trials[0]
    spool, state = tmp_path / "spool", tmp_path / "state"
    stage_trial(store.uri, trial.id, attempt=1, spool=spool, state=state)
    uploader = Uploader(store.uri, trial.id, spool, state)
    uploaders.append(uploader)
    local = Spool(spool).store(store.rollout)
    trial_dir = spool / "store" / local.trial_key(trial, "")
    crashed = subprocess.run(
        [sys.executable, "-c", CRASH, str(spool), str(trial_dir)], cwd=ROOT, timeout=60
    )
    assert crashed.returncode == 137
    # The uploader notices the lock is free (the process is gone) and uploads what is there.
    acknowledged = Spool(spool).acknowledgement
    wait_until(lambda: acknowledged() is not None, "the uploader's acknowledgement", timeout=30)
    answer = {"ok": True, "files": 1, "error": None, "done": None}
    assert Spool(spool).acknowledgement() == answer
    uploader.close()
    assert store.store.exists(store.trial_key(trial, "calls.jsonl"))
    assert store.read_result(trial) is None
    # The next pod archives the dead attempt's files and runs attempt 2.
    again = stage_trial(
        store.uri, trial.id, attempt=2, spool=tmp_path / "s2", state=tmp_path / "t2"
    )
    assert again.attempt == 2
    assert store.archived_attempts(trial) == [1]


def test_a_store_that_refuses_the_files_fails_the_trial_container(
    tmp_path: Path, uploaders: list[Uploader]
) -> None:
    store, trials = stored_rollout(tmp_path, models=[scripted_model()])
    trial = trials[0]
    spool, state = tmp_path / "spool", tmp_path / "state"
    stage_trial(store.uri, trial.id, attempt=1, spool=spool, state=state)
    # The trial's directory in the store cannot be created: a file stands in its way.
    blocked = Path(store.store.local_path(store.trial_key(trial, "x")) or "").parent
    blocked.parent.mkdir(parents=True, exist_ok=True)
    blocked.write_text("in the way")
    uploaders.append(Uploader(store.uri, trial.id, spool, state))
    ran = run_cli("trial", "run", "--spool", str(spool), "--trial", trial.id, timeout=300)
    assert ran.returncode == 3, ran.stderr
    assert "attempt 1: ok" in ran.stderr  # the trial itself went well …
    assert "did not reach the store" in ran.stderr  # … but its files are not stored
    answer = Spool(spool).acknowledgement()
    assert answer is not None and answer["ok"] is False and "cannot write" in answer["error"]


def test_the_uploader_trusts_the_state_not_the_spool(
    tmp_path: Path, uploaders: list[Uploader]
) -> None:
    store, trials = stored_rollout(tmp_path, models=[scripted_model()])
    trial, other = trials[0], trials[1]
    spool, state = tmp_path / "spool", tmp_path / "state"
    stage_trial(store.uri, trial.id, attempt=1, spool=spool, state=state)
    # The agent rewrites trial.json to name another trial and writes files for it, and
    # swaps its own trial's directory for a link to a directory outside the spool.
    staged = Spool(spool)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "result.json").write_text("{}")
    local = staged.store(store.rollout)
    other_dir = spool / "store" / local.trial_key(other, "")
    other_dir.mkdir(parents=True)
    (other_dir / "result.json").write_text("{}")
    own_dir = spool / "store" / local.trial_key(trial, "")
    own_dir.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, own_dir)
    (spool / "trial.json").write_text(
        (spool / "trial.json").read_text().replace(trial.id, other.id)
    )
    (spool / "done.json").write_text('{"status": "ok", "exit_status": 0, "nonce": "forged"}')
    uploader = Uploader(store.uri, trial.id, spool, state)
    uploaders.append(uploader)
    wait_until(lambda: staged.acknowledgement() is not None, "the acknowledgement", timeout=30)
    uploader.close()
    assert not store.store.exists(store.trial_key(other, "result.json"))
    assert not store.store.exists(store.trial_key(trial, "result.json"))
    assert staged.acknowledgement() == {"ok": True, "files": 0, "error": None, "done": "forged"}


def test_trial_run_needs_the_store_or_the_spool(tmp_path: Path) -> None:
    neither = run_cli("trial", "run", "--trial", "x")
    assert neither.returncode == 2 and "exactly one of --rollout-uri and --spool" in neither.stderr
    empty = run_cli("trial", "run", "--spool", str(tmp_path), "--trial", "x")
    assert empty.returncode == 2 and "did the stage init container run?" in empty.stderr
    lost = run_cli(
        "trial", "upload", "--rollout-uri", f"{tmp_path.as_uri()}/r", "--trial", "x",
        "--spool", str(tmp_path), "--state", str(tmp_path / "nothing"),
    )  # fmt: skip
    assert lost.returncode == 2 and "the uploader's handoff is missing" in lost.stderr


def test_the_trial_s_files_are_readable_by_the_uploader_s_user(tmp_path: Path) -> None:
    """The store writes 0600; a root trial container's files must still be readable."""
    store, trials = stored_rollout(tmp_path, models=[scripted_model()])
    spool = Spool(tmp_path / "spool")
    stage_trial(store.uri, trials[0].id, attempt=1, spool=spool.root, state=tmp_path / "st")
    local = spool.store(store.rollout)
    local.store.write_bytes(local.trial_key(trials[0], "calls.jsonl"), b"{}\n")
    written = spool.root / "store" / local.trial_key(trials[0], "calls.jsonl")
    assert written.stat().st_mode & 0o777 == 0o600
    spool.finish("ok", 0)
    assert written.stat().st_mode & 0o777 == 0o644


def test_an_answer_to_a_forged_done_does_not_release_the_trial(
    tmp_path: Path, uploaders: list[Uploader]
) -> None:
    """The agent writes done.json early; trial run still waits for its own to be answered."""
    store, trials = stored_rollout(tmp_path, models=[scripted_model()])
    trial = trials[0]
    spool, state = tmp_path / "spool", tmp_path / "state"
    stage_trial(store.uri, trial.id, attempt=1, spool=spool, state=state)
    # An uploader that looks only every 4 s: a trial run released by the forged answer
    # would exit (almost always) before its own done.json is answered and its files stored.
    uploaders.append(Uploader(store.uri, trial.id, spool, state, poll=4.0))
    forged = {"status": "ok", "exit_status": 0, "nonce": "forged"}
    (spool / "done.json").write_text(json.dumps(forged))
    wait_until(lambda: Spool(spool).acknowledgement() is not None, "the forged answer")
    ran = run_cli("trial", "run", "--spool", str(spool), "--trial", trial.id, timeout=300)
    assert ran.returncode == 0, ran.stderr
    # When trial run exits, its files are in the store — not only after the uploader stops.
    result = store.read_result(trial)
    assert result is not None and result.status == "ok"
    answer = Spool(spool).acknowledgement()
    assert answer is not None and answer["done"] != "forged" and answer["files"] == 5


def test_the_uploader_reads_no_link_and_no_fifo_the_agent_planted(tmp_path: Path) -> None:
    """done.json as a link to the uploader's own files, or a FIFO that would block a read."""
    spool = Spool(tmp_path)
    secret = tmp_path / "elsewhere.json"
    secret.write_text('{"nonce": "read-through-a-link"}')
    os.symlink(secret, tmp_path / "done.json")
    assert spool.done() is None and not spool.is_done()
    (tmp_path / "done.json").unlink()
    os.mkfifo(tmp_path / "done.json")
    assert spool.done() is None  # returns at once: opened without blocking, not a file
    (tmp_path / "done.json").unlink()
    (tmp_path / "done.json").write_text('{"nonce": "' + "x" * 5000 + '"}')
    assert spool.done() is None  # oversized
    (tmp_path / "done.json").write_text('{"nonce": "abc"}')
    assert spool.done() == "abc"
    # An answer is written under a fresh temporary name: a planted link is not followed.
    target = tmp_path / "target"
    target.write_text("untouched")
    os.symlink(target, tmp_path / f".uploaded.json.{os.getpid()}.tmp")  # a guessable name
    spool.acknowledge(ok=True, files=0, done="abc")
    assert target.read_text() == "untouched"
    assert spool.acknowledgement() == {"ok": True, "files": 0, "error": None, "done": "abc"}
