"""Attacks from inside the agent sandbox, by each of the six real agent CLIs.

One rollout runs the six CLIs (from npm, pinned) through ``adhere run``'s engine, the
real recording proxy and the scripted ``agent:run`` policy, which makes each CLI run
``bash attack.sh`` with its own shell tool in each of two user turns:

- turn 1 tries, in sequence: reading a planted secret outside the workspace (a
  "home" directory beside it, ``/etc/shadow``, the repository, ``/root``); reading
  the runner's environment (``/proc/<runner pid>/environ``, holding a planted key,
  and every ``/proc/*/environ``); writing outside (a directory beside the workspace,
  the CLI's install); reaching a 127.0.0.1 server that is not the proxy; leaving a
  daemon (``setsid nohup sleep``); filling ``/tmp``, ``/dev/shm`` and the disk with
  one large file;
- turn 2 fills the workspace with many files, until the sandbox stops the turn.

Each attack must be blocked, and the trial must still record what the agent tried:
the tool calls and (turn 1) their output are in the stored calls and trajectory.
The same script run without the sandbox (no CLI needed) succeeds at the attacks it
can safely try, so the checks below can fail.
"""

import asyncio
import json
import os
import re
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.e2e.pipeline.test_observed_runs import SCAFFOLDS, model, run, write_suite
from tests.helpers import ROOT

pytestmark = pytest.mark.slow

PLANTED_FILE = "planted-file-secret-7f3a"
PLANTED_ENV = "planted-env-key-91c2"
ENV_NAME = "ADHERE_TEST_PLANTED_KEY"

ATTACK = r"""#!/bin/bash
# Attacks on the sandbox; every line of output is recorded by the proxy.
if [ -e .turn-1-done ]; then
  echo "== disk: many files in the workspace"
  i=0
  while [ $i -lt 100000 ]; do head -c 262144 /dev/zero > fill.$i || break; i=$((i + 1)); done
  echo "wrote $i files"
  exit 0
fi
touch .turn-1-done
echo "== read planted"
cat {victim}/.aws/credentials 2>&1 | head -c 300
cat /etc/shadow 2>&1 | head -c 300
head -c 300 {repo}/pyproject.toml 2>&1
ls /root 2>&1 | head -5
echo "== environ"
tr '\0' '\n' < /proc/{runner}/environ 2>&1 | grep -a {env_name}
grep -a -h -o '{env_name}=[a-z0-9-]*' /proc/[0-9]*/environ 2>/dev/null | head -3
echo "processes seen: $(ls -d /proc/[0-9]* | wc -l)"
echo "== write outside"
echo pwned > {outside}/pwned 2>&1 && echo "WROTE-OUTSIDE"
touch {install}/pwned 2>&1 && echo "WROTE-INSTALL"
echo "== other server"
curl -s -m 5 http://127.0.0.1:{port}/hit 2>&1 && echo " REACHED-OTHER"
echo "curl exit $?"
echo "== daemon"
setsid nohup sleep {daemon} >/dev/null 2>&1 < /dev/null &
echo "daemon started"
echo "== disk: one large file, /tmp, /dev/shm"
dd if=/dev/zero of=big bs=1M count=200 2>/dev/null; echo "dd big: exit $?"
dd if=/dev/zero of=/tmp/fill bs=1M count=200 2>&1 | grep -o "No space left on device"
dd if=/dev/zero of=/dev/shm/fill bs=1M count=200 2>&1 | grep -o "No space left on device"
echo "sizes: $(du -m big /tmp/fill /dev/shm/fill 2>/dev/null | cut -f1 | tr '\n' ' ')"
rm -f /tmp/fill /dev/shm/fill
echo "== end"
"""

LIMITS = "  sandboxLimits: {tmpMb: 8, fileMb: 16, growthMb: 64, growthFiles: 100000}\n"


class OtherServer:
    """A plain TCP server on 127.0.0.1 that is not the proxy; it counts connections."""

    def __init__(self) -> None:
        self.hits = 0
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.hits += 1
            writer.write(b"HTTP/1.0 200 OK\r\nContent-Length: 6\r\n\r\nHIT-OK")
            await writer.drain()
            writer.close()

        self.server = await asyncio.start_server(handle, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


def processes_with(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline:
            found.append(int(entry))
    return found


def attack_script(tmp_path: Path, cache: Path, port: int, daemon: str) -> str:
    victim = tmp_path / "victim-home"
    (victim / ".aws").mkdir(parents=True)
    (victim / ".aws" / "credentials").write_text(f"aws_secret_access_key = {PLANTED_FILE}\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    return ATTACK.format(
        victim=victim,
        repo=ROOT,
        runner=os.getpid(),
        env_name=ENV_NAME,
        outside=outside,
        install=cache,
        port=port,
        daemon=daemon,
    )


def tool_outputs(trajectory) -> str:
    return "\n".join(m.content for m in trajectory.messages if m.role == "tool")


def test_the_script_succeeds_without_the_sandbox(tmp_path: Path, monkeypatch) -> None:
    """Baseline: run directly, the attacks that are safe to try here do succeed."""
    monkeypatch.setenv(ENV_NAME, PLANTED_ENV)
    work = tmp_path / "work"
    work.mkdir()
    script = attack_script(tmp_path, tmp_path / "no-install", 9, "0.01")
    script = script.split("== daemon")[0]  # no daemon and no disk filling outside
    done = subprocess.run(
        ["bash", "-c", script], cwd=work, capture_output=True, text=True, timeout=60
    )
    assert PLANTED_FILE in done.stdout
    assert f"{ENV_NAME}={PLANTED_ENV}" in done.stdout
    assert "WROTE-OUTSIDE" in done.stdout and (tmp_path / "outside" / "pwned").exists()


async def test_every_attack_is_blocked_and_recorded(
    tmp_path: Path, scaffold_cache: Path, monkeypatch
) -> None:
    monkeypatch.setenv(ENV_NAME, PLANTED_ENV)
    other = OtherServer()
    port = await other.start()
    daemon = f"4242.{uuid.uuid4().int % 10**6:06d}"
    try:
        write_suite(
            tmp_path,
            [
                {
                    "instance_id": "attacks",
                    "user_query": ["Run attack.sh, please.", "Run attack.sh once more."],
                }
            ],
            {"attack.sh": attack_script(tmp_path, scaffold_cache, port, daemon)},
        )
        rollout = tmp_path / "rollout.yaml"
        rollout.write_text(
            "apiVersion: adhere.dev/v1alpha1\nkind: Rollout\nmetadata: {name: r}\nspec:\n"
            "  benchmark: b\n  models:\n"
            + model("m", "agent:run,command=bash attack.sh")
            + f"  scaffolds: [{', '.join(SCAFFOLDS)}]\n"
            "  parallelism: 3\n  maxRetries: 0\n  storage: file://./runs\n" + LIMITS
        )
        prepared, summary = await run(rollout)
    finally:
        await other.stop()
    leftovers = processes_with(daemon)
    assert leftovers == [], f"daemons outlived the trials: {leftovers}"
    assert other.hits == 0, "a sandboxed agent reached a server other than the proxy"
    assert not (tmp_path / "outside" / "pwned").exists()
    assert not [p for p in scaffold_cache.glob("*/pwned")]
    assert summary.ran == len(SCAFFOLDS)
    runs = tmp_path / "runs" / "r"
    problems: dict[str, list[str]] = {}
    for trial in prepared.trials:
        name = trial.scaffold
        trajectory = prepared.store.read_trajectory(trial)
        assert trajectory is not None, name
        output = tool_outputs(trajectory)
        seen = problems.setdefault(name, [])
        # turn 1's tool call and its whole output are recorded
        for header in ("== read planted", "== environ", "== other server", "== end"):
            if header not in output:
                seen.append(f"missing {header!r} in the recorded tool output")
        for leak in (PLANTED_FILE, PLANTED_ENV, "[project]"):
            if leak in output:
                seen.append(f"leaked {leak!r}")
        if re.search(r"root:[^:\s]*:\d+:", output):
            seen.append("leaked /etc/shadow")
        for success in ("WROTE-OUTSIDE", "WROTE-INSTALL", "REACHED-OTHER", "HIT-OK"):
            if success in output:
                seen.append(f"attack succeeded: {success}")
        if "processes seen: " in output:
            count = int(output.split("processes seen: ")[1].split()[0])
            if count > 20:
                seen.append(f"{count} processes visible in /proc")
        if "dd big: exit 153" not in output:  # 128 + SIGXFSZ
            seen.append("the large file was not cut at 16 MiB (ulimit -f)")
        if output.count("No space left on device") != 2:
            disk = output.split("== disk")[-1][:600]
            seen.append(f"/tmp or /dev/shm did not fill up at its size: {disk!r}")
        sizes = output.split("sizes: ")[1].split("\n")[0].split() if "sizes: " in output else []
        limits = [16, 8, 8]  # MiB: fileMb, then tmpMb for /tmp and /dev/shm
        if len(sizes) != 3 or not all(0 < int(s) <= m for s, m in zip(sizes, limits, strict=True)):
            seen.append(f"files grew past their limits: {sizes}")
        # turn 2: the tool call is recorded; the turn was stopped by the growth limit
        calls = prepared.store.read_calls(trial)
        asked = [c for c in calls if "attack.sh" in json.dumps(c.get("response") or {})]
        if len(asked) < 2:
            seen.append(f"{len(asked)} recorded replies ask to run attack.sh, expected 2")
        outcome = prepared.store.read_json(trial, "scaffold.json")
        last = outcome["turns"][-1]["stderr_tail"]
        if "grew by" not in last and "gained" not in last:
            seen.append(f"turn 2 was not stopped by the growth limit: {last[-300:]!r}")
    # no stored file holds the planted secrets
    for path in runs.rglob("*"):
        if path.is_file():
            text = path.read_bytes()
            assert PLANTED_ENV.encode() not in text, path
            assert PLANTED_FILE.encode() not in text, path
    assert problems == {name: [] for name in SCAFFOLDS}
