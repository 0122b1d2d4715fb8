"""The agent sandbox's pure parts: the bwrap command line, the proxy URL inside, the switch."""

import os
import stat

import pytest
import yaml

from adhere.errors import SpecError
from adhere.scaffolds import SandboxLimits, get_scaffold, runs_in_sandbox
from adhere.scaffolds._sandbox import (
    BRIDGE_DIR,
    INNER_SCRIPT,
    OFFLINE_SCRIPT,
    Layout,
    inside_url,
    sandbox_argv,
)
from adhere.scaffolds._sandbox_host import private_entries
from adhere.spec import load_resources

LAYOUT = Layout(
    bwrap="/usr/bin/bwrap",
    socat="/usr/bin/socat",
    system=(("/usr", None), ("/bin", "usr/bin"), ("/etc", None)),
    private_files=("/etc/shadow",),
    private_dirs=("/etc/ssl/private",),
    extra_ro=("/opt/node",),
    is_root=True,
)
CLI = ["/cache/claude/node_modules/.bin/claude", "-p", "--", "hello"]


def argv(layout: Layout = LAYOUT, limits: SandboxLimits | None = None, **kw) -> list[str]:
    options = {
        "workdir": "/w/trial/work",
        "home": "/w/trial/home",
        "install_dir": "/cache/claude",
        "bridge_dir": "/tmp/adhere-bridge-x",
        "port": 8123,
        **kw,
    }
    return sandbox_argv(layout, limits or SandboxLimits(), CLI, **options)


def mounts(command: list[str]) -> list[tuple[str, ...]]:
    """The (option, args…) mount operations of a bwrap command line, in order."""
    takes = {"--ro-bind": 2, "--bind": 2, "--symlink": 2, "--tmpfs": 1, "--proc": 1, "--dev": 1}
    found, i = [], 0
    end = command.index("--")
    while i < end:
        n = takes.get(command[i])
        if n is None:
            i += 1
            continue
        found.append((command[i], *command[i + 1 : i + 1 + n]))
        i += 1 + n
    return found


def test_every_namespace_is_new_and_the_turn_dies_with_its_parent() -> None:
    command = argv()
    assert command[0] == "/usr/bin/bwrap"
    for flag in ("--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"):
        assert flag in command
    assert "--die-with-parent" in command and "--new-session" in command
    assert "--as-pid-1" not in command  # bwrap stays PID 1: the namespace dies with the CLI


def test_only_the_system_the_install_and_the_trial_are_mounted() -> None:
    found = mounts(argv())
    assert ("--ro-bind", "/", "/") not in found  # the host's root is never shown
    binds = {m[1]: m for m in found if m[0] in ("--ro-bind", "--bind")}
    assert binds["/usr"] == ("--ro-bind", "/usr", "/usr")
    assert ("--symlink", "usr/bin", "/bin") in found
    assert binds["/cache/claude"][0] == "--ro-bind"  # the CLI's install: read-only
    assert binds["/opt/node"][0] == "--ro-bind"
    assert binds["/w/trial/work"] == ("--bind", "/w/trial/work", "/w/trial/work")
    assert binds["/w/trial/home"] == ("--bind", "/w/trial/home", "/w/trial/home")
    assert ("--ro-bind", "/tmp/adhere-bridge-x", BRIDGE_DIR) in found
    writable = {m[2] for m in found if m[0] == "--bind"}
    assert writable == {"/w/trial/work", "/w/trial/home"}
    # nothing else of the host: exactly these mount points
    assert {m[-1] for m in found} == {
        "/usr", "/bin", "/etc", "/etc/shadow", "/etc/ssl/private", "/proc", "/dev", "/tmp",
        "/dev/shm", "/opt/node", "/cache/claude", "/w/trial/home", "/w/trial/work", BRIDGE_DIR,
    }  # fmt: skip


def test_private_etc_entries_are_hidden_after_etc_is_mounted() -> None:
    found = mounts(argv())
    etc = found.index(("--ro-bind", "/etc", "/etc"))
    assert found.index(("--ro-bind", "/dev/null", "/etc/shadow")) > etc
    assert found.index(("--tmpfs", "/etc/ssl/private")) > etc


def test_tmp_and_shm_are_sized_and_the_root_is_read_only_last() -> None:
    command = argv(limits=SandboxLimits(tmp_mb=8))
    for path in ("/tmp", "/dev/shm"):
        at = command.index(path)
        assert command[at - 1] == "--tmpfs" and command[at - 3 : at - 1] == ["--size", "8388608"]
    remount = command.index("--remount-ro")
    assert command[remount + 1] == "/"
    last_mount = max(i for i, a in enumerate(command[: command.index("--")]) if a == "--bind")
    assert remount > last_mount
    assert command[command.index("--chdir") + 1] == "/w/trial/work"


def test_the_inner_script_gets_the_limits_bridge_and_the_cli() -> None:
    command = argv(limits=SandboxLimits(file_mb=16))
    inner = command[command.index("--") + 1 :]
    assert inner[:3] == ["/bin/sh", "-c", INNER_SCRIPT]
    # sh BLOCKS SOCAT PORT SOCKET FIFO CLI…: ulimit -f counts 512-byte blocks
    assert inner[3:9] == [
        "sh",
        str(16 * 2048),
        "/usr/bin/socat",
        "8123",
        f"{BRIDGE_DIR}/proxy.sock",
        f"{BRIDGE_DIR}/ready",
    ]
    assert inner[9:] == CLI


def test_new_user_namespaces_are_forbidden_where_bwrap_can() -> None:
    import dataclasses

    command = argv(dataclasses.replace(LAYOUT, no_userns=True))
    at = command.index("--disable-userns")
    assert command[at - 1] == "--unshare-user" and at < command.index("--")
    assert "--disable-userns" not in argv()  # an older bwrap: not asked


def test_capabilities_are_dropped_only_for_root() -> None:
    assert "--cap-drop" in argv()
    unprivileged = Layout(bwrap="/usr/bin/bwrap", socat="/usr/bin/socat", is_root=False)
    assert "--cap-drop" not in argv(unprivileged)


def test_masked_directories_get_a_small_private_tmpfs_after_home() -> None:
    found = mounts(argv(masked=("/w/trial/home/.adhere",)))
    home = found.index(("--bind", "/w/trial/home", "/w/trial/home"))
    assert found.index(("--tmpfs", "/w/trial/home/.adhere")) > home


def test_the_cli_reaches_the_proxy_at_loopback_on_the_same_port() -> None:
    assert inside_url("http://127.0.0.1:8123/t/abc/m") == (
        "http://127.0.0.1:8123/t/abc/m",
        "127.0.0.1",
        8123,
    )
    assert inside_url("http://localhost:9000/t/x") == (
        "http://127.0.0.1:9000/t/x",
        "localhost",
        9000,
    )
    assert inside_url("http://[::1]:9000/t/x")[1:] == ("::1", 9000)
    for bad in ("https://127.0.0.1:8123/t", "http://127.0.0.1/t", "unix:///x"):
        with pytest.raises(ValueError, match="http://HOST:PORT"):
            inside_url(bad)


def test_agents_run_in_the_sandbox_and_the_chat_scaffold_does_not() -> None:
    """The six CLIs' turns and the reference agent's Bash commands; chat runs no command."""
    for name in ("claude-code", "kilo", "droid", "codex", "qwen-code", "gemini-cli", "reference"):
        assert runs_in_sandbox(get_scaffold(name)), name
    assert not runs_in_sandbox(get_scaffold("chat"))


def test_without_a_bridge_the_command_has_no_network_and_no_socat() -> None:
    """The reference agent's Bash commands: no bridge mount, no socat, the file limit kept."""
    argv = sandbox_argv(
        LAYOUT, SandboxLimits(file_mb=2), ["/bin/bash", "-c", "true"], workdir="/w",
        home="/h", install_dir=None, bridge_dir=None, port=None,
    )  # fmt: skip
    assert "--unshare-net" in argv
    assert BRIDGE_DIR not in argv and LAYOUT.socat not in argv
    tail = argv[argv.index("--") + 1 :]
    assert tail == ["/bin/sh", "-c", OFFLINE_SCRIPT, "sh", str(2 * 2048), "/bin/bash", "-c", "true"]


def test_private_entries_are_those_not_world_readable(tmp_path) -> None:
    (tmp_path / "open").write_text("x")
    (tmp_path / "secret").write_text("x")
    os.chmod(tmp_path / "secret", 0o600)
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "k").write_text("x")
    os.chmod(tmp_path / "keys", 0o700)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "shadow").write_text("x")
    os.chmod(tmp_path / "sub" / "shadow", stat.S_IRUSR)
    files, dirs = private_entries(str(tmp_path))
    assert files == [str(tmp_path / "secret"), str(tmp_path / "sub" / "shadow")]
    assert dirs == [str(tmp_path / "keys")]  # and not descended into


ROLLOUT = """\
apiVersion: adhere.dev/v1alpha1
kind: Rollout
metadata: {{name: r}}
spec:
  benchmark: b
  models: [{{name: m, endpoint: {{baseUrl: scripted, model: x}}}}]
{extra}"""


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("", "on"),
        ("  sandbox: off\n", "off"),
        ('  sandbox: "off"\n', "off"),
        ("  sandbox: on\n", "on"),
    ],
)
def test_the_rollout_switch_defaults_on_and_reads_bare_yaml(tmp_path, extra, expected) -> None:
    path = tmp_path / "rollout.yaml"
    path.write_text(ROLLOUT.format(extra=extra))
    (rollout,) = load_resources(path)
    assert rollout.spec.sandbox == expected
    assert rollout.spec.sandbox_limits.tmp_mb == SandboxLimits().tmp_mb


def test_a_bad_switch_names_the_file_and_field(tmp_path) -> None:
    path = tmp_path / "rollout.yaml"
    path.write_text(ROLLOUT.format(extra="  sandbox: maybe\n"))
    with pytest.raises(SpecError) as caught:
        load_resources(path)
    assert "rollout.yaml" in str(caught.value) and "sandbox" in str(caught.value)


def test_the_limits_are_read_from_the_rollout(tmp_path) -> None:
    path = tmp_path / "rollout.yaml"
    path.write_text(ROLLOUT.format(extra="  sandboxLimits: {tmpMb: 8, growthFiles: 10}\n"))
    (rollout,) = load_resources(path)
    assert yaml.safe_load(rollout.model_dump_json(by_alias=True))["spec"]["sandboxLimits"] == {
        "tmpMb": 8,
        "fileMb": 1024,
        "growthMb": 2048,
        "growthFiles": 10,
    }


def test_bridge_directories_of_dead_runners_are_removed(tmp_path) -> None:
    from adhere.scaffolds._sandbox_host import remove_stale_bridges

    dead = 2**22 + 12345  # above the kernel's pid limit: never a live process
    for name in (f"adhere-bridge-{dead}-abc", f"adhere-bridge-{os.getpid()}-def", "other-1-x"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "proxy.sock").write_text("")
    removed = remove_stale_bridges(tmp_path)
    assert removed == [tmp_path / f"adhere-bridge-{dead}-abc"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"adhere-bridge-{os.getpid()}-def",
        "other-1-x",
    ]
