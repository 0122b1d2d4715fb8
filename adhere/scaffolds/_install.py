"""Installing a pinned agent CLI from npm into the scaffold cache, once per machine.

Layout: ``<cache>/<name>-<version>/`` holds ``node_modules`` (``npm install
--prefix``) and a marker file written last, so a directory without a marker is an
interrupted install and is redone. A lock file beside it (``fcntl.flock``) makes
concurrent installers — two test sessions, two runner processes — wait for each
other instead of racing. The cache lives outside the repository: by default
``~/.cache/adhere/scaffolds``, or wherever ``ADHERE_SCAFFOLD_CACHE`` points.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from adhere.errors import AdhereError

__all__ = [
    "CACHE_ENV",
    "InstallError",
    "NpmTool",
    "default_cache_dir",
    "install_npm_tool",
    "is_installed",
]

CACHE_ENV = "ADHERE_SCAFFOLD_CACHE"
"""Environment variable overriding the scaffold cache directory."""

MARKER = ".adhere-installed.json"
_NPM_TIMEOUT = 900.0
_CHECK_TIMEOUT = 120.0


class InstallError(AdhereError):
    """A scaffold's CLI could not be installed (npm missing or failing, binary broken)."""


@dataclass(frozen=True)
class NpmTool:
    """A CLI pinned to npm packages.

    Attributes:
        name: Scaffold name, used in the cache directory name.
        version: The CLI's version, used in the cache directory name.
        packages: ``name@version`` specs handed to ``npm install``.
        bin: Executable name under ``node_modules/.bin``.
        postinstall: Package-relative scripts to run with ``node`` when the binary
            does not work after ``npm install`` (npm may skip install scripts):
            ``{package: script}``.
    """

    name: str
    version: str
    packages: tuple[str, ...]
    bin: str
    postinstall: Mapping[str, str] = field(default_factory=dict)

    def directory(self, cache_dir: Path) -> Path:
        """Where this tool is installed under ``cache_dir``."""
        return cache_dir / f"{self.name}-{self.version}"

    def executable(self, cache_dir: Path) -> Path:
        """The CLI's executable under ``cache_dir``."""
        return self.directory(cache_dir) / "node_modules" / ".bin" / self.bin


def default_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$ADHERE_SCAFFOLD_CACHE``, else ``~/.cache/adhere/scaffolds``."""
    environ = os.environ if env is None else env
    configured = environ.get(CACHE_ENV, "").strip()
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "adhere" / "scaffolds"


def is_installed(tool: NpmTool, cache_dir: Path) -> bool:
    """Whether a finished install of ``tool`` is in ``cache_dir`` (its marker exists)."""
    return (tool.directory(cache_dir) / MARKER).is_file()


Progress = Callable[[str], None]


def install_npm_tool(tool: NpmTool, cache_dir: Path, progress: Progress | None = None) -> Path:
    """Install ``tool`` under ``cache_dir`` unless already there; return its executable.

    Blocking (run it in a thread from async code). Safe to call from several
    processes at once: they take turns through a lock file.

    Raises:
        InstallError: npm or node is missing, npm failed, or the installed binary
            does not run. The message names the tool and ends with npm's output.
    """
    say = progress or (lambda message: None)
    target = tool.directory(cache_dir)
    if is_installed(tool, cache_dir):
        return tool.executable(cache_dir)
    npm = shutil.which("npm")
    node = shutil.which("node")
    if npm is None or node is None:
        raise InstallError(
            f"cannot install scaffold {tool.name!r}: "
            f"{'npm' if npm is None else 'node'} is not on PATH (install Node.js 20 or later)"
        )
    cache_dir.mkdir(parents=True, exist_ok=True)
    with _locked(cache_dir / f".{tool.name}-{tool.version}.lock"):
        if is_installed(tool, cache_dir):  # another process finished while we waited
            return tool.executable(cache_dir)
        if target.exists():
            say(f"{tool.name}: removing an unfinished install in {target}")
            shutil.rmtree(target)
        target.mkdir(parents=True)
        say(f"{tool.name}: npm install {' '.join(tool.packages)} into {target}")
        _run(
            tool,
            [npm, "install", "--prefix", str(target), "--no-audit", "--no-fund", *tool.packages],
            cwd=target,
            timeout=_NPM_TIMEOUT,
        )
        version = _check(tool, cache_dir, node)
        marker = {"name": tool.name, "version": tool.version, "packages": list(tool.packages)}
        marker["reported_version"] = version
        (target / MARKER).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
        say(f"{tool.name}: installed ({version})")
    return tool.executable(cache_dir)


def _check(tool: NpmTool, cache_dir: Path, node: str) -> str:
    """Run ``<bin> --version``; run the postinstall scripts and retry once if it fails."""
    executable = tool.executable(cache_dir)
    first = _version(executable)
    if first is not None:
        return first
    modules = tool.directory(cache_dir) / "node_modules"
    for package, script in tool.postinstall.items():
        package_dir = modules / package
        if (package_dir / script).is_file():
            _run(tool, [node, script], cwd=package_dir, timeout=_CHECK_TIMEOUT)
    second = _version(executable)
    if second is None:
        raise InstallError(
            f"scaffold {tool.name!r}: {executable} does not run after npm install "
            f"(`{tool.bin} --version` failed); remove {tool.directory(cache_dir)} and retry"
        )
    return second


def _version(executable: Path) -> str | None:
    if not executable.exists():
        return None
    with tempfile.TemporaryDirectory(prefix="adhere-version-") as home:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home}
        try:
            done = subprocess.run(
                [str(executable), "--version"],
                capture_output=True,
                text=True,
                timeout=_CHECK_TIMEOUT,
                env=env,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return None
    return lines[-1].strip()


def _run(tool: NpmTool, argv: list[str], *, cwd: Path, timeout: float) -> None:
    try:
        done = subprocess.run(
            argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        raise InstallError(
            f"installing scaffold {tool.name!r}: `{' '.join(argv[:2])}` timed out after "
            f"{timeout:g} s"
        ) from None
    except OSError as exc:
        raise InstallError(
            f"installing scaffold {tool.name!r}: cannot run {argv[0]}: {exc}"
        ) from None
    if done.returncode != 0:
        output = (done.stdout + done.stderr).strip()[-3000:]
        raise InstallError(
            f"installing scaffold {tool.name!r} failed: `{' '.join(argv[:2])} "
            f"{' '.join(tool.packages)}` exited with {done.returncode}:\n{output}"
        )


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
