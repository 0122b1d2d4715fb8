"""The uploader of a trial pod: the spool's trial files to the store, ``result.json`` last.

``adhere trial upload`` runs as a native sidecar beside the trial container (see
:mod:`adhere.runner._spool`). It holds the store's credentials; the trial container,
where the agent runs, holds none. It waits until the trial is over — ``done.json``
is written, or the trial's process is gone (its lock is free) — then copies the
files the trial wrote and acknowledges in ``uploaded.json``, echoing the
``done.json`` it answers (which carries a nonce); ``trial run`` exits only once its
own ``done.json`` is answered, so a Job succeeds only when its files are in the
store, and no earlier answer (e.g. one given to a forged ``done.json``) counts.

A native sidecar is restarted when it exits while the pod runs, so after the upload
it waits for its stop signal (the kubelet sends it once the trial container has
exited). On that signal it waits (at most ``stop_seconds``) for a trial still
writing — a pod being deleted stops both containers, and the trial records its
interruption first — and uploads whatever changed since, so an interrupted attempt's
calls and ``interrupted.json`` reach the store too.

Only regular files directly in the trial's directory of the spool are read, each
opened without following symbolic links, through directories opened the same way;
names starting with ``.`` (writes in progress) are skipped. Where the files go comes
from the state directory, which the trial container does not mount.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import stat
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from adhere.artifacts import RESULT, RolloutStore
from adhere.errors import SpecError, StoreError
from adhere.runner._spool import Handoff, Spool, local_trial_dir, read_handoff

__all__ = ["UploadReport", "upload_trial"]

log = logging.getLogger(__name__)

UPLOADED_STATE: Final = "uploaded.json"
"""In the state directory: file name → sha256 of what reached the store."""
STOP_SECONDS: Final = 30.0
POLL_SECONDS: Final = 0.2
RETRIES: Final = 4


@dataclass
class UploadReport:
    """What the uploader did.

    Attributes:
        files: Files copied to the store (each counted once per change).
        skipped: Entries of the trial's directory that were not regular files.
        error: The last store error, when a copy failed.
    """

    files: int = 0
    skipped: list[str] = field(default_factory=list)
    error: str | None = None

    def skip(self, what: str) -> None:
        """Note an entry left out (once)."""
        if what not in self.skipped:
            self.skipped.append(what)


def _open_dir(root: Path, relative: str) -> int:
    """A descriptor of ``root/relative``, no component of ``relative`` followed as a link."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in [p for p in relative.split("/") if p]:
            inner = os.open(
                part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd
            )
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def trial_files(spool: Path, handoff: Handoff, report: UploadReport) -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of the regular files the trial wrote, ``result.json`` last."""
    _, prefix = local_trial_dir(spool, handoff)
    root = spool / "store"
    try:
        dir_fd = _open_dir(root, prefix)
    except FileNotFoundError:
        return
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise StoreError(f"cannot read {prefix} in the spool: {exc.strerror}") from exc
        report.skip(f"{prefix}: {exc.strerror}")  # a link or a file where a directory belongs
        return
    try:
        names = sorted(os.listdir(dir_fd), key=lambda n: (n == RESULT, n))
        for name in names:
            if name.startswith("."):
                continue
            info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            if not stat.S_ISREG(info.st_mode):
                if not stat.S_ISDIR(info.st_mode):
                    report.skip(name)
                continue
            try:
                flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
                fd = os.open(name, flags, dir_fd=dir_fd)
            except OSError as exc:
                if exc.errno == errno.ELOOP:  # became a link since the stat
                    report.skip(name)
                    continue
                raise StoreError(f"cannot read {name} in the spool: {exc.strerror}") from exc
            with os.fdopen(fd, "rb") as handle:
                if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                    report.skip(name)
                    continue
                yield name, handle.read()
    finally:
        os.close(dir_fd)


class _Uploader:
    def __init__(self, store: RolloutStore, spool: Path, state: Path, handoff: Handoff) -> None:
        self.store = store
        self.spool = Spool(spool)
        self.state = state
        self.handoff = handoff
        self.report = UploadReport()
        try:
            self.sent: dict[str, str] = json.loads((state / UPLOADED_STATE).read_text())
        except (OSError, ValueError):
            self.sent = {}

    def sync(self, retry_seconds: float) -> bool:
        """Copy what changed since the last sync; whether everything reached the store."""
        trial = self.handoff.the_trial()
        for attempt in range(RETRIES):
            try:
                for name, data in trial_files(self.spool.root, self.handoff, self.report):
                    digest = hashlib.sha256(data).hexdigest()
                    if self.sent.get(name) == digest:
                        continue
                    durable = name == RESULT
                    self.store.store.write_bytes(
                        self.store.trial_key(trial, name), data, durable=durable
                    )
                    self.sent[name] = digest
                    self.report.files += 1
                self.report.error = None
                break
            except StoreError as exc:
                self.report.error = str(exc)
                log.warning("upload of trial %s failed: %s", trial.id, exc)
                if attempt + 1 < RETRIES:
                    time.sleep(min(retry_seconds * 2**attempt, 30.0))
        state_file = self.state / UPLOADED_STATE
        state_file.write_text(json.dumps(self.sent, sort_keys=True))
        return self.report.error is None

    def answer(self, retry_seconds: float, done: str | None) -> None:
        """Sync, then acknowledge ``done`` (the nonce of ``done.json``, or None)."""
        ok = self.handoff.skip or self.sync(retry_seconds)
        error = None if ok else self.report.error
        self.spool.acknowledge(ok=ok, files=len(self.sent), error=error, done=done)


def upload_trial(
    rollout_uri: str,
    trial_id: str,
    *,
    spool: Path,
    state: Path,
    stop: threading.Event,
    stop_seconds: float = STOP_SECONDS,
    poll_seconds: float = POLL_SECONDS,
    retry_seconds: float = 1.0,
) -> UploadReport:
    """Upload the trial's files once it is over, acknowledge, and wait for ``stop``.

    Raises:
        SpecError: The state directory holds no handoff for this trial.
    """
    from adhere.runner._trial import open_rollout_uri

    handoff = read_handoff(state)
    if handoff.the_trial().id != trial_id:
        raise SpecError(
            f"the handoff is for trial {handoff.the_trial().id}, not {trial_id}",
            field="--trial",
        )
    uploader = _Uploader(open_rollout_uri(rollout_uri), spool, state, handoff)
    answered: str | None = None  # the nonce of the done.json last answered
    crashed = False
    while not stop.is_set():
        done = uploader.spool.done()
        if done is not None and done != answered:
            uploader.answer(retry_seconds, done)
            answered = done
        elif done is None and not crashed and uploader.spool.has_started():
            if uploader.spool.lock_is_free():  # the trial's process is gone, unannounced
                uploader.answer(retry_seconds, None)
                crashed = True
        stop.wait(poll_seconds)
    # Stopping: let a trial still recording its interruption finish, then sync again.
    deadline = time.monotonic() + stop_seconds
    while time.monotonic() < deadline and not (
        uploader.spool.is_done() or uploader.spool.lock_is_free()
    ):
        time.sleep(poll_seconds)
    uploader.answer(retry_seconds, uploader.spool.done())
    return uploader.report
