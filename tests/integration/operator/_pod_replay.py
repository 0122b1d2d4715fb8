"""A trial pod replayed here: each container of a Job's manifest as a separate process.

There is no kubelet on these machines. :class:`PodReplay` does its part for one Job:
each volume is a directory, each container a process started with the container's
own command and environment — ``env`` values, ``valueFrom.secretKeyRef`` and
``envFrom.secretRef`` resolved from the Secrets the test gives, nothing inherited
from the test process but ``PATH`` and settings that keep this machine's AWS files
out — and paths under a container's mounts pointing at the volumes' directories.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.helpers import ROOT

BASE_ENV = {
    "LANG": "C.UTF-8",
    # Not credentials: they keep this machine's ~/.aws and instance metadata out.
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_CONFIG_FILE": "/nonexistent/adhere-test",
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/adhere-test",
}


class PodReplay:
    """The containers of one trial Job, played as processes over directory volumes."""

    def __init__(self, job: dict[str, Any], root: Path, secrets: dict[str, dict[str, str]]) -> None:
        self.pod = job["spec"]["template"]["spec"]
        self.root = root
        self.secrets = secrets
        self.volumes = {v["name"]: root / "volumes" / v["name"] for v in self.pod["volumes"]}
        for path in self.volumes.values():
            path.mkdir(parents=True, exist_ok=True)
        every = [*self.pod.get("initContainers", []), *self.pod["containers"]]
        self.containers = {c["name"]: c for c in every}
        self.logs = root / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)

    def mounts(self, name: str) -> dict[str, Path]:
        """Mount path → local directory, for container ``name``."""
        found = {}
        for mount in self.containers[name].get("volumeMounts", []):
            local = self.volumes[mount["name"]]
            if "subPath" in mount:
                local = local / mount["subPath"]
                local.mkdir(parents=True, exist_ok=True)
            found[mount["mountPath"]] = local
        return found

    def local(self, name: str, value: str) -> str:
        """``value`` with a mount path of container ``name`` replaced by its directory."""
        for path, local in sorted(self.mounts(name).items(), key=lambda m: -len(m[0])):
            if value == path or value.startswith(path + "/"):
                return str(local) + value[len(path) :]
        return value

    def env(self, name: str) -> dict[str, str]:
        """The environment the kubelet would give container ``name``."""
        container = self.containers[name]
        env = {"PATH": os.environ["PATH"], **BASE_ENV}
        for source in container.get("envFrom", []):
            env.update(self.secrets[source["secretRef"]["name"]])
        for item in container.get("env", []):
            if "value" in item:
                env[item["name"]] = self.local(name, item["value"])
            else:
                ref = item["valueFrom"]["secretKeyRef"]
                env[item["name"]] = self.secrets[ref["name"]][ref["key"]]
        return env

    def command(self, name: str) -> list[str]:
        command = [self.local(name, part) for part in self.containers[name]["command"]]
        assert command[0] == "adhere", command
        return [sys.executable, "-m", "adhere.cli", *command[1:]]

    def start(self, name: str) -> subprocess.Popen[str]:
        """Start container ``name`` (its stderr goes to ``logs/<name>.err``)."""
        err = (self.logs / f"{name}.err").open("w")
        try:
            return subprocess.Popen(
                self.command(name),
                cwd=ROOT,
                env=self.env(name),
                stdout=subprocess.DEVNULL,
                stderr=err,
                text=True,
            )
        finally:
            err.close()

    def run(self, name: str, timeout: float = 300) -> int:
        """Run container ``name`` to its end; its exit status."""
        proc = self.start(name)
        try:
            return proc.wait(timeout=timeout)
        finally:
            stop(proc)

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.err").read_text()

    def agent_volumes(self, name: str = "trial") -> list[Path]:
        """The directories container ``name`` can see through its volumes."""
        return list(self.mounts(name).values())


def stop(proc: subprocess.Popen[str], sig: int = signal.SIGTERM, timeout: float = 60) -> int:
    """Stop a process as the kubelet stops a container: ``sig``, then SIGKILL."""
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def files_under(paths: list[Path]) -> list[Path]:
    """Every regular file under ``paths`` (links are not followed)."""
    found = []
    for base in paths:
        for dirpath, _dirs, names in os.walk(base):
            for name in names:
                path = Path(dirpath) / name
                if path.is_file() and not path.is_symlink():
                    found.append(path)
    return found
