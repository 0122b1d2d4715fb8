"""The npm installer with local packages (no registry needed): marker, lock, errors."""

import json
import shutil
import threading
from pathlib import Path

import pytest

from adhere.scaffolds import CACHE_ENV, InstallError, default_cache_dir
from adhere.scaffolds._install import MARKER, NpmTool, install_npm_tool, is_installed
from adhere.scaffolds.install import main


@pytest.fixture(autouse=True)
def _npm_is_part_of_the_toolchain() -> None:
    assert shutil.which("npm") is not None, "npm (stock toolchain) is needed by the installer"


def local_cli(tmp_path: Path, version: str = "1.2.3") -> Path:
    """A tiny npm package with a ``fake-cli`` binary, as a local directory."""
    package = tmp_path / "fake-cli"
    package.mkdir()
    (package / "package.json").write_text(
        json.dumps({"name": "fake-cli", "version": version, "bin": {"fake-cli": "cli.js"}})
    )
    script = package / "cli.js"
    script.write_text(f"#!/usr/bin/env node\nconsole.log('fake-cli {version}');\n")
    script.chmod(0o755)
    return package


def test_default_cache_dir(monkeypatch):
    monkeypatch.delenv(CACHE_ENV, raising=False)
    assert default_cache_dir() == Path.home() / ".cache" / "adhere" / "scaffolds"
    assert default_cache_dir({CACHE_ENV: "/data/cache"}) == Path("/data/cache")
    assert default_cache_dir({CACHE_ENV: "  "}) == Path.home() / ".cache" / "adhere" / "scaffolds"


def test_installs_once_even_when_two_threads_race(tmp_path):
    tool = NpmTool("fake", "1.2.3", (f"file:{local_cli(tmp_path)}",), "fake-cli")
    cache = tmp_path / "cache"
    messages: list[str] = []
    results: list[Path] = []

    def install():
        results.append(install_npm_tool(tool, cache, messages.append))

    threads = [threading.Thread(target=install) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert results == [tool.executable(cache)] * 2
    assert is_installed(tool, cache)
    assert sum("npm install" in message for message in messages) == 1
    marker = json.loads((tool.directory(cache) / MARKER).read_text())
    assert marker["reported_version"] == "fake-cli 1.2.3"
    messages.clear()
    assert install_npm_tool(tool, cache, messages.append) == tool.executable(cache)
    assert messages == []


def test_an_unfinished_install_is_redone(tmp_path):
    tool = NpmTool("fake", "1.2.3", (f"file:{local_cli(tmp_path)}",), "fake-cli")
    cache = tmp_path / "cache"
    (tool.directory(cache) / "junk").mkdir(parents=True)
    messages: list[str] = []
    install_npm_tool(tool, cache, messages.append)
    assert any("unfinished" in message for message in messages)
    assert not (tool.directory(cache) / "junk").exists()
    assert is_installed(tool, cache)


def test_npm_failure_is_a_clear_error(tmp_path):
    tool = NpmTool("broken", "0.0.1", (f"file:{tmp_path / 'missing-package'}",), "broken")
    with pytest.raises(InstallError, match=r"installing scaffold 'broken' failed: `.*npm install"):
        install_npm_tool(tool, tmp_path / "cache")
    assert not is_installed(tool, tmp_path / "cache")


def test_a_binary_that_does_not_run_is_an_error(tmp_path):
    tool = NpmTool("nobin", "1.2.3", (f"file:{local_cli(tmp_path)}",), "not-the-binary")
    with pytest.raises(InstallError, match="does not run after npm install"):
        install_npm_tool(tool, tmp_path / "cache")


def test_command_line_rejects_bad_requests(capsys):
    with pytest.raises(SystemExit) as excinfo:
        main([])
    assert excinfo.value.code == 2
    with pytest.raises(SystemExit):
        main(["chat"])
    assert "not installable: chat" in capsys.readouterr().err
