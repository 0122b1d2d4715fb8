"""Sandbox environments: a locked set of libraries in a virtualenv the sandbox runs.

A suite whose tests import third-party libraries (BigCodeBench-style tasks import
about 70) names an :class:`Environment`: a requirements lock and a Python version.
``adhere setup <suite>`` installs it once with uv into the cache
(``$ADHERE_ENV_HOME``, else ``~/.cache/adhere/envs``), in a directory named after the
lock's hash, so a changed lock installs afresh and an unchanged one is reused. The
sandbox then runs the environment's interpreter (``python=`` of the run functions):
the same limits and isolation, only other site-packages.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from adhere.errors import AdhereError

__all__ = ["EnvError", "Environment", "env_home", "install_environment"]

_DONE = "adhere-env.ok"


class EnvError(AdhereError):
    """An environment cannot be found or installed."""


@dataclass(frozen=True)
class Environment:
    """A named, locked environment.

    Attributes:
        name: Its name (a suite's, e.g. ``vericode``).
        requirements: The lock: a requirements file with every version pinned.
        python: The Python version uv installs it for (``""``: the evaluator's own).
    """

    name: str
    requirements: Path
    python: str = ""

    def directory(self, home: Path | None = None) -> Path:
        """Where it lives: ``<home>/<name>-<hash of the lock>``.

        An install with another Python (``adhere setup --python``) takes the same place.
        """
        digest = hashlib.sha256(self.requirements.read_bytes())
        return (home or env_home()) / f"{self.name}-{digest.hexdigest()[:16]}"

    def interpreter(self, home: Path | None = None) -> Path | None:
        """Its ``python`` when installed (``None``: run ``adhere setup`` first)."""
        where = self.directory(home)
        python = where / "bin" / "python"
        return python if (where / _DONE).is_file() and python.exists() else None


def env_home() -> Path:
    """The cache of environments (``$ADHERE_ENV_HOME``, else ``~/.cache/adhere/envs``)."""
    configured = os.environ.get("ADHERE_ENV_HOME")
    return Path(configured) if configured else Path.home() / ".cache" / "adhere" / "envs"


def install_environment(env: Environment, *, home: Path | None = None) -> Path:
    """Install ``env`` (no-op when installed) and return its interpreter.

    Builds the virtualenv beside its final place and renames it there when every
    package installed, so an interrupted install leaves nothing that looks usable.

    Raises:
        EnvError: uv is missing, or creating the environment or installing fails
            (the message carries uv's last lines).
    """
    found = env.interpreter(home)
    if found is not None:
        return found
    uv = shutil.which("uv")
    if uv is None:
        raise EnvError("uv is not on PATH: it installs sandbox environments")
    final = env.directory(home)
    building = final.with_name(final.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    building.parent.mkdir(parents=True, exist_ok=True)
    python = env.python or _own_python()
    _uv([uv, "venv", "--quiet", "--python", python, str(building)], env.name)
    target = building / "bin" / "python"
    _uv([uv, "pip", "install", "--quiet", "--python", str(target), "-r",
         str(env.requirements)], env.name)  # fmt: skip
    (building / _DONE).write_text(env.requirements.name + "\n", encoding="utf-8")
    shutil.rmtree(final, ignore_errors=True)
    building.rename(final)
    # the virtualenv's scripts name the building path; the interpreter link does not
    return final / "bin" / "python"


def _own_python() -> str:
    return sys.executable


def _uv(command: list[str], name: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
        raise EnvError(f"installing the {name} environment failed: {' '.join(command[:3])}: {tail}")
