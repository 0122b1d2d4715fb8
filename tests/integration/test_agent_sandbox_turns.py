"""The agent sandbox with real bubblewrap and socat, around plain commands (no agent CLI).

A "turn" here is what :class:`~adhere.scaffolds._cli.CliScaffold` runs: the command
line of :func:`sandbox_argv` under the guard, through :func:`run_process`, with the
proxy bridge open. The commands stand in for an agent's shell tool.
"""

import asyncio
import os
import uuid
from pathlib import Path

import pytest

from adhere.scaffolds import SandboxLimits
from adhere.scaffolds._process import run_process
from adhere.scaffolds._sandbox import sandbox_argv
from adhere.scaffolds._sandbox_host import DiskWatch, ProxyBridge, host_layout
from tests.e2e.pipeline.test_observed_runs import model, write_rollout, write_suite
from tests.helpers import run_cli


class Server:
    """A tiny HTTP server on 127.0.0.1 answering ``OK-<name>``; counts connections."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.hits = 0
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> "Server":
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.hits += 1
            await reader.readuntil(b"\r\n\r\n")
            body = f"OK-{self.name}".encode()
            writer.write(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            await writer.drain()
            writer.close()

        self.server = await asyncio.start_server(handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()


async def turn(
    tmp_path: Path, script: str, port: int, limits: SandboxLimits | None = None, watch=None
):
    work, home, install = tmp_path / "work", tmp_path / "home", tmp_path / "install"
    for d in (work, home, install):
        d.mkdir(exist_ok=True)
    limits = limits or SandboxLimits()
    async with ProxyBridge("127.0.0.1", port) as bridge:
        argv = sandbox_argv(
            host_layout(),
            limits,
            ["/bin/bash", "-c", script],
            workdir=str(work),
            home=str(home),
            install_dir=str(install),
            bridge_dir=str(bridge.directory),
            port=port,
        )
        env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
        checks = None if watch is None else watch(work, home, limits)
        return await run_process(
            argv,
            cwd=work,
            env=env,
            timeout=120,
            log_prefix=tmp_path / "logs" / "turn",
            watch=None if checks is None else checks.check,
            watch_interval=lambda: 0.2,
        )


async def test_the_proxy_port_is_reachable_and_nothing_else(tmp_path: Path) -> None:
    async with Server("proxy") as proxy, Server("other") as other:
        script = (
            f"curl -s -m 5 http://127.0.0.1:{proxy.port}/x; echo; "
            f'curl -s -m 5 http://127.0.0.1:{other.port}/x; echo "other: $?"; '
            f"curl -s -m 5 http://localhost:{proxy.port}/x; echo"
        )
        done = await turn(tmp_path, script, proxy.port)
    out = done.stdout
    assert done.outcome.exit_code == 0, done.outcome.stderr_tail
    assert out.count("OK-proxy") == 2
    assert "OK-other" not in out and "other: 7" in out  # curl: could not connect
    assert other.hits == 0


async def test_processes_and_files_of_the_host_are_out_of_sight(tmp_path: Path) -> None:
    (tmp_path / "beside").mkdir()
    (tmp_path / "beside" / "secret").write_text("beside-secret")
    script = (
        "ls -d /proc/[0-9]* | wc -l; "
        f"cat {tmp_path}/beside/secret 2>&1; "
        "cat /etc/shadow 2>/dev/null | wc -c; "
        "ls -d /root /home /var /work /srv 2>&1 | grep -c 'No such file'; "
        "ls -A /run; "
        "touch /usr/x /etc/x /x 2>&1 | grep -c 'Read-only'; "
        "echo written > written; "
        "unshare -U true 2>/dev/null && echo userns-made || echo userns-refused; "
        "sleep 100 & setsid sleep 100 & echo started"
    )
    async with Server("proxy") as proxy:
        done = await turn(tmp_path, script, proxy.port)
    lines = done.stdout.splitlines()
    assert done.outcome.exit_code == 0, done.outcome.stderr_tail
    assert int(lines[0]) <= 6  # bwrap, sh/bash, socat, ls…: only the turn's own processes
    assert "beside-secret" not in done.stdout and "No such file" in lines[1]
    assert lines[2] == "0"  # /etc/shadow: an empty file
    assert lines[3] == "5"  # /root, /home, /var, /work, /srv: not there
    assert lines[4] == "adhere"  # /run holds only the bridge's socket directory
    assert lines[5] == "3"  # /usr, /etc and / are read-only
    assert (tmp_path / "work" / "written").read_text() == "written\n"
    assert lines[6] == "userns-refused"  # no capabilities in a user namespace of its own
    assert not _sleepers("sleep 100", tmp_path)


def _sleepers(command: str, tmp_path: Path) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                environ = Path(f"/proc/{entry}/environ").read_bytes()
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if f"HOME={tmp_path}".encode() in environ and command.encode() in cmdline.replace(
                b"\0", b" "
            ):
                found.append(int(entry))
    return found


async def test_growth_past_the_limit_stops_the_turn(tmp_path: Path) -> None:
    limits = SandboxLimits(growth_mb=8, file_mb=4)
    script = "i=0; while [ $i -lt 4000 ]; do head -c 1048576 /dev/zero > f.$i; i=$((i+1)); done"
    async with Server("proxy") as proxy:
        done = await turn(
            tmp_path, script, proxy.port, limits, watch=lambda w, h, lim: DiskWatch((w, h), lim)
        )
    assert done.outcome.exit_code is None and not done.outcome.timed_out
    assert "past the sandbox's limit of 8 MiB" in done.outcome.stderr_tail
    written = len(list((tmp_path / "work").glob("f.*")))
    assert 8 < written < 4000


async def test_one_file_is_cut_at_the_file_limit(tmp_path: Path) -> None:
    script = 'dd if=/dev/zero of=big bs=1M count=50 2>/dev/null; echo "exit $?"'
    async with Server("proxy") as proxy:
        done = await turn(tmp_path, script, proxy.port, SandboxLimits(file_mb=4))
    assert "exit 153" in done.stdout  # killed by SIGXFSZ
    assert (tmp_path / "work" / "big").stat().st_size == 4 * 1024 * 1024


def test_a_run_stops_at_start_when_bwrap_is_missing(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    write_suite(tmp_path, [{"instance_id": "i1", "user_query": ["hello"]}], {"a.txt": "a\n"})
    write_rollout(tmp_path, model("m", "agent:answer"), "[claude-code]")
    marker = uuid.uuid4().hex
    done = run_cli(
        "run",
        str(tmp_path / "benchmark.yaml"),
        str(tmp_path / "rollout.yaml"),
        "--quiet",
        env={"PATH": str(tmp_path / "bin"), "ADHERE_WORK_DIR": str(tmp_path / marker)},
    )
    assert done.returncode == 2, done.stderr
    message = " ".join(done.stderr.split())
    assert "spec.sandbox" in message and "bubblewrap (bwrap) is not installed" in message
    assert "apt-get install bubblewrap socat" in message and "sandbox: off" in message
    assert not (tmp_path / marker).exists()  # no trial started
    assert "Traceback" not in done.stderr


@pytest.fixture(autouse=True)
def _fresh_layout():
    host_layout.cache_clear()
    yield
    host_layout.cache_clear()


def test_a_run_of_in_process_scaffolds_needs_no_bwrap(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    write_suite(tmp_path, [{"instance_id": "i1", "user_query": ["hello"]}], {"a.txt": "a\n"})
    write_rollout(tmp_path, model("m", "agent:answer"), "[chat]")
    done = run_cli(
        "run",
        str(tmp_path / "benchmark.yaml"),
        str(tmp_path / "rollout.yaml"),
        "--quiet",
        "--no-report",
        "--allow-incomplete",
        env={"PATH": str(tmp_path / "bin"), "ADHERE_WORK_DIR": str(tmp_path / "work")},
    )
    assert done.returncode == 0, done.stderr
    assert "1 ran (1 ok, 0 failed)" in done.stderr
    assert "sandbox" not in done.stderr  # neither the check nor a warning: no agent CLI
