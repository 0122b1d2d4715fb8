"""A trial pod's spool: the agent's container runs the trial with no store credential.

In a trial pod three containers share the work of ``adhere trial run``:

- ``stage`` (an init container holding the store's credentials) reads the rollout's
  spec snapshot and instances from the store, decides the attempt (archiving an
  earlier attempt's files in the store, as :func:`~adhere.runner._attempts.start_attempt`
  does) and writes the snapshot and the trial's own instance into the **spool**, an
  emptyDir, as a ``file://`` store;
  what the uploader needs (the trial, the attempt, the store URI) goes to the
  **state** directory, an emptyDir the agent's container does not mount;
- ``trial`` (no credential: no Secret in its environment or volumes) runs the trial
  against the spool (``adhere trial run --spool``), writing its artifacts there as it
  would to the store, then waits for the uploader's acknowledgement;
- ``upload`` (a native sidecar holding the credentials) waits until the trial is over
  — it said so in ``done.json``, or its process is gone (its lock on ``trial.lock``
  is free) — and copies the trial's files to the store, ``result.json`` last.

Spool layout (every file but the trial's output written by ``stage``)::

    <spool>/
      trial.json        {"rollout", "trial", "attempt", "skip"}: what to run
      store/<rollout>/  a file:// store: rollout.yaml, instances.jsonl (the trial's
                        instance only), and
                        trials/…/<trial>/ where the trial writes its files
      trial.lock        flock()ed by ``trial run`` while it runs
      started           ``trial run`` holds the lock
      done.json         {"status", "exit_status", "nonce"}: ``trial run`` wrote everything
      uploaded.json     the uploader's acknowledgement: {"ok", "files", "error", "done"},
                        "done" echoing the nonce of the done.json it answers
                        (``trial run`` accepts only the answer to its own)

Nothing in the spool is a credential: the snapshot holds ``secretKeyRef`` names
only, the instances were redacted when the operator stored them, and the trial's
files are redacted as everywhere else. The uploader trusts nothing in the spool but
the bytes of the trial's own files: where they go comes from the state directory,
and it reads only regular files directly in the trial's directory, never following
a symbolic link (a link planted by the agent to ``/proc/self/environ`` would
otherwise upload the uploader's own environment).
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import tempfile
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

from adhere.artifacts import RESULT, SPECS, RolloutStore
from adhere.core import Instance, Trial
from adhere.errors import SpecError
from adhere.runner._check import plan_rollout
from adhere.runner._plan import TrialPlan
from adhere.runner._reuse import plan_fingerprints
from adhere.runner._trial import (
    _find_trial,
    _start_attempt,
    open_rollout_uri,
    stored_config,
)
from adhere.spec import RunConfig
from adhere.store import FileStore

__all__ = [
    "DONE",
    "LOCK",
    "STARTED",
    "TRIAL_FILE",
    "UPLOADED",
    "Handoff",
    "Spool",
    "read_handoff",
    "stage_trial",
]

HANDOFF_VERSION: Final = 1
TRIAL_FILE: Final = "trial.json"
HANDOFF_FILE: Final = "handoff.json"
"""In the state directory: the uploader's :class:`Handoff`."""
STORE_DIR: Final = "store"
LOCK: Final = "trial.lock"
STARTED: Final = "started"
DONE: Final = "done.json"
UPLOADED: Final = "uploaded.json"
MAX_SIGNAL_BYTES: Final = 4096
"""The largest done.json or uploaded.json read."""


@dataclass(frozen=True)
class Handoff:
    """What ``stage`` decided: the trial, its attempt, and where its files go.

    Attributes:
        rollout_uri: ``<store URI>/<rollout>`` of the real store.
        rollout: The rollout's directory name in the store (and in the spool).
        trial: The trial (its fields, as :class:`~adhere.core.Trial` takes them).
        attempt: The attempt to run; ``None`` when the trial is already ``ok``.
    """

    rollout_uri: str
    rollout: str
    trial: dict[str, Any]
    attempt: int | None

    @property
    def skip(self) -> bool:
        """Whether the trial finished ``ok`` before: nothing runs, nothing is uploaded."""
        return self.attempt is None

    def the_trial(self) -> Trial:
        """The trial as a :class:`~adhere.core.Trial`."""
        return Trial.model_validate(self.trial)


def _write_json(path: Path, data: Any) -> None:
    """Write atomically; the temporary name is new (O_EXCL), so no planted link is followed."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(data, sort_keys=True) + "\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read_spool_json(path: Path) -> dict[str, Any] | None:
    """A small JSON object the other side wrote; None when absent, odd, or not a plain file.

    Opened without following a link and without blocking on a FIFO: the agent can
    write the spool, and the uploader must not be led to read its own files.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        raw = handle.read(MAX_SIGNAL_BYTES + 1)
    if len(raw) > MAX_SIGNAL_BYTES:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _read_json(path: Path, what: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        missing = f"{what} is missing: did the stage init container run?"
        raise SpecError(missing, file=str(path)) from None
    except (OSError, ValueError) as exc:
        raise SpecError(f"{what} is unreadable: {exc}", file=str(path)) from None
    if not isinstance(data, dict):
        raise SpecError(f"{what}: expected a JSON object", file=str(path))
    return data


class Spool:
    """The spool directory of one trial pod (see the module doc)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, name: str) -> Path:
        """A file of the spool's top level."""
        return self.root / name

    def store(self, rollout: str) -> RolloutStore:
        """The spool's file:// store of ``rollout``."""
        return RolloutStore(FileStore(self.root / STORE_DIR), rollout)

    def rollout_uri(self) -> str:
        """``<spool store URI>/<rollout>``, the rollout ``trial run`` reads and writes."""
        found = self.what_to_run()
        return f"{(self.root / STORE_DIR).resolve().as_uri()}/{found['rollout']}"

    def what_to_run(self) -> dict[str, Any]:
        """``trial.json``: the rollout, the trial and the attempt ``stage`` decided."""
        data = _read_json(self.path(TRIAL_FILE), "the spool's trial.json")
        if not isinstance(data.get("rollout"), str) or not isinstance(data.get("trial"), str):
            raise SpecError("expected rollout and trial names", file=str(self.path(TRIAL_FILE)))
        return data

    def attempt(self) -> int | None:
        """The attempt ``stage`` decided (``None``: the trial is already ``ok``)."""
        value = self.what_to_run().get("attempt")
        return value if isinstance(value, int) and value > 0 else None

    # --- the trial's side ----------------------------------------------------------

    def hold(self) -> int:
        """Take the trial's lock (kept until the process ends); mark it started."""
        fd = os.open(self.path(LOCK), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        self.path(STARTED).touch()
        return fd

    def finish(self, status: str, exit_status: int) -> dict[str, Any]:
        """Say that every file of the trial is written (and how it ended).

        The files are made readable by others first: the store writes them ``0600``,
        and a trial container running as root (``instanceImageRunAsRoot``) is not the
        uploader's user.
        """
        for dirpath, _dirs, names in os.walk(self.root / STORE_DIR):
            for name in names:
                path = Path(dirpath) / name
                info = path.lstat()
                if stat.S_ISREG(info.st_mode) and info.st_mode & 0o044 != 0o044:
                    path.chmod(stat.S_IMODE(info.st_mode) | 0o044)
        done = {"status": status, "exit_status": exit_status, "nonce": uuid.uuid4().hex}
        _write_json(self.path(DONE), done)
        return done

    def acknowledgement(self) -> dict[str, Any] | None:
        """The uploader's answer, once it gave one."""
        return _read_spool_json(self.path(UPLOADED))

    # --- the uploader's side ---------------------------------------------------------

    def is_done(self) -> bool:
        """Whether ``trial run`` said it wrote everything."""
        return self.done() is not None

    def done(self) -> str | None:
        """The nonce of ``done.json``, once ``trial run`` wrote it.

        Only the nonce is echoed back: nothing else of a file the agent could have
        written travels through the uploader.
        """
        data = _read_spool_json(self.path(DONE))
        nonce = data.get("nonce") if data is not None else None
        return nonce if isinstance(nonce, str) and 0 < len(nonce) <= 64 else None

    def has_started(self) -> bool:
        """Whether ``trial run`` took its lock."""
        return self.path(STARTED).is_file()

    def lock_is_free(self) -> bool:
        """Whether no process holds the trial's lock (the trial's process has ended)."""
        try:
            fd = os.open(self.path(LOCK), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return True
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        finally:
            os.close(fd)  # closing the descriptor releases a lock taken here
        return True

    def acknowledge(
        self, *, ok: bool, files: int, error: str | None = None, done: str | None = None
    ) -> None:
        """Tell ``trial run`` whether its files reached the store.

        ``done`` is the nonce of the ``done.json`` answered.
        """
        answer = {"ok": ok, "files": files, "error": error, "done": done}
        _write_json(self.path(UPLOADED), answer)


def read_handoff(state: Path) -> Handoff:
    """The :class:`Handoff` ``stage`` left in the state directory."""
    path = state / HANDOFF_FILE
    data = _read_json(path, "the uploader's handoff")
    try:
        if data.get("version") != HANDOFF_VERSION:
            raise KeyError("version")
        attempt = data["attempt"]
        return Handoff(
            rollout_uri=str(data["rollout_uri"]),
            rollout=str(data["rollout"]),
            trial=dict(data["trial"]),
            attempt=attempt if isinstance(attempt, int) else None,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise SpecError(f"the uploader's handoff lacks {exc}", file=str(path)) from None


def _own_instances(
    config: RunConfig, instances: list[Instance], trial: Trial, planned: tuple[TrialPlan, Any]
) -> list[Instance]:
    """The trial's own instance alone, when that plans the same trial the same way.

    The agent's container then sees no other instance's checks. Should a plan depend
    on the whole set (it does not today), every instance is staged instead.
    """
    own = [i for i in instances if i.id == trial.instance]
    alone, scaffolds = plan_rollout(config, own)
    if not any(t.id == trial.id for t in alone.trials):
        return instances
    plan, all_scaffolds = planned
    before = plan_fingerprints(config, instances, [trial], all_scaffolds, plan)
    after = plan_fingerprints(config, own, [trial], scaffolds, alone)
    return own if before == after else instances


def stage_trial(
    rollout_uri: str, trial_id: str, *, attempt: int | None, spool: Path, state: Path
) -> Handoff:
    """Decide the attempt in the store and stage what ``trial run`` reads into ``spool``.

    The store's earlier attempt of the trial (an error, an interrupted attempt, a
    killed pod's files) is archived under ``attempt-<n>/`` here, so the trial's
    directory in the store is empty when the uploader writes the new attempt into it.

    Raises:
        SpecError: The snapshot is missing or invalid, or no planned trial has the id.
        StoreError: The store cannot be read or written.
    """
    store = open_rollout_uri(rollout_uri)
    config = stored_config(store)
    instances = store.read_instances()
    plan, scaffolds = plan_rollout(config, instances)
    trial = _find_trial(plan.trials, trial_id, store.where(SPECS))
    number = _start_attempt(store, trial, attempt)
    local = Spool(spool).store(store.rollout)
    local.store.write_bytes(local.key(SPECS), store.store.read_bytes(store.key(SPECS)))
    local.write_instances(_own_instances(config, instances, trial, (plan, scaffolds)))
    if number is None:  # already ok: trial run finds the result and stops there
        result_key = store.trial_key(trial, RESULT)
        local.store.write_bytes(local.trial_key(trial, RESULT), store.store.read_bytes(result_key))
    Spool(spool).path(LOCK).touch()
    _write_json(
        Spool(spool).path(TRIAL_FILE),
        {"rollout": store.rollout, "trial": trial.id, "attempt": number, "skip": number is None},
    )
    handoff = Handoff(
        rollout_uri=store.uri,
        rollout=store.rollout,
        trial=trial.model_dump(mode="json"),
        attempt=number,
    )
    state.mkdir(parents=True, exist_ok=True)
    _write_json(state / HANDOFF_FILE, {"version": HANDOFF_VERSION, **asdict(handoff)})
    return handoff


def local_trial_dir(spool: Path, handoff: Handoff) -> tuple[RolloutStore, str]:
    """The spool's store and the key prefix of the trial's files in it."""
    local = Spool(spool).store(handoff.rollout)
    return local, local.trial_key(handoff.the_trial(), "")
