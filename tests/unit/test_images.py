"""The Dockerfiles in images/, read without a Docker engine: pinned bases, a non-root user,
the agent CLIs at the versions pinned in code, and names that match the chart's values."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from adhere.scaffolds import get_scaffold, installable, scaffold_names

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "images"
VALUES = yaml.safe_load((ROOT / "charts" / "adhere" / "values.yaml").read_text(encoding="utf-8"))
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
REGISTRY = VALUES["images"]["registry"]
DOCKERFILES = sorted(IMAGES.glob("*/Dockerfile"))


@dataclass
class Stage:
    image: str
    name: str | None
    args: dict[str, str] = field(default_factory=dict)
    instructions: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Dockerfile:
    global_args: dict[str, str]
    stages: list[Stage]

    @property
    def final(self) -> Stage:
        return self.stages[-1]


_VAR = re.compile(r"\$\{(\w+)\}|\$(\w+)")


def parse(text: str) -> Dockerfile:
    """Instructions with continuations joined and comments dropped; ARG defaults applied."""
    lines: list[str] = []
    pending = ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1].rstrip() + " "
            continue
        lines.append(pending + stripped)
        pending = ""
    assert not pending, "a continuation runs off the end of the file"
    global_args: dict[str, str] = {}
    stages: list[Stage] = []
    for line in lines:
        keyword, _, rest = line.partition(" ")
        keyword = keyword.upper()
        rest = rest.strip()
        if keyword == "ARG":
            name, _, default = rest.partition("=")
            (stages[-1].args if stages else global_args)[name] = default
        elif keyword == "FROM":
            words = rest.split()
            image = _VAR.sub(lambda m: global_args[m.group(1) or m.group(2)], words[0])
            alias = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            stages.append(Stage(image=image, name=alias))
        else:
            assert stages, f"{keyword} before FROM"
            stages[-1].instructions.append((keyword, rest))
    return Dockerfile(global_args, stages)


def pinned(image: str) -> bool:
    """A tag other than latest, or a digest."""
    if "@sha256:" in image:
        return True
    name = image.rsplit("/", 1)[-1]
    return ":" in name and name.split(":", 1)[1] not in ("", "latest")


def read(path: Path) -> Dockerfile:
    return parse(path.read_text(encoding="utf-8"))


def test_parser_joins_continuations_and_resolves_args() -> None:
    parsed = parse(
        "ARG BASE=python:3.11.11-slim\n"
        "FROM ${BASE} AS build\n"
        "# a comment\n"
        "RUN a \\\n"
        "  && b\n"
        "FROM build\n"
        "ARG X=1\n"
        "USER 1000\n"
    )
    assert [s.image for s in parsed.stages] == ["python:3.11.11-slim", "build"]
    assert parsed.stages[0].instructions == [("RUN", "a && b")]
    assert parsed.final.args == {"X": "1"} and parsed.final.instructions == [("USER", "1000")]
    assert not pinned("python") and not pinned("python:latest") and not pinned("host:5000/x")
    assert pinned("host:5000/x:1.2") and pinned("x@sha256:" + "0" * 64)


@pytest.mark.parametrize("path", DOCKERFILES, ids=[p.parent.name for p in DOCKERFILES])
def test_pinned_bases_and_a_non_root_user(path: Path) -> None:
    dockerfile = read(path)
    stages: set[str] = set()
    for stage in dockerfile.stages:
        assert stage.image in stages or pinned(stage.image), f"{path}: unpinned {stage.image}"
        if stage.name:
            stages.add(stage.name)
    users = [rest for keyword, rest in dockerfile.final.instructions if keyword == "USER"]
    assert users, f"{path}: the final stage sets no USER (it would run as root)"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0"), f"{path}: runs as {users[-1]}"
    assert user == str(VALUES["operator"]["podSecurityContext"]["runAsUser"])


def test_base_image_is_slim_python_synced_from_the_lock() -> None:
    dockerfile = read(IMAGES / "base" / "Dockerfile")
    python = dockerfile.global_args["PYTHON_IMAGE"]
    assert re.fullmatch(r"python:3\.11\.\d+-slim-bookworm", python), python
    runs = [
        rest
        for stage in dockerfile.stages
        for keyword, rest in stage.instructions
        if keyword == "RUN"
    ]
    assert any(re.search(r"\buv==\d+\.\d+\.\d+\b", run) for run in runs)
    syncs = [run for run in runs if run.startswith("uv sync")]
    assert syncs and all("--frozen" in run and "--no-dev" in run for run in syncs)


@pytest.mark.parametrize("path", DOCKERFILES, ids=[p.parent.name for p in DOCKERFILES])
def test_images_build_on_this_versions_base(path: Path) -> None:
    base = read(path).global_args.get("BASE_IMAGE")
    if path.parent.name == "base":
        assert base is None
    else:
        assert base == f"{REGISTRY}/base:{VERSION}"


@pytest.mark.parametrize("name", installable())
def test_scaffold_images_pin_the_cli_versions_in_code(name: str) -> None:
    dockerfile = read(IMAGES / f"scaffold-{name}" / "Dockerfile")
    tool = get_scaffold(name).tool
    assert dockerfile.final.args["CLI_VERSION"] == tool.version
    runs = " ".join(rest for keyword, rest in dockerfile.final.instructions if keyword == "RUN")
    assert f"python -m adhere.scaffolds.install {name} " in runs
    assert f"/{name}-${{CLI_VERSION}}/.adhere-installed.json" in runs
    env = " ".join(rest for keyword, rest in dockerfile.final.instructions if keyword == "ENV")
    # The CLI and Node lie in the copyable runtime, where an instance-image pod finds them.
    assert "ADHERE_SCAFFOLD_CACHE=/adhere-runtime/scaffolds" in env
    assert "--cache-dir /adhere-runtime/scaffolds" in runs
    copies = [rest for keyword, rest in dockerfile.final.instructions if keyword == "COPY"]
    assert "--from=node /adhere-runtime/node /adhere-runtime/node" in copies


def test_the_base_image_holds_the_copyable_runtime_the_operator_injects() -> None:
    from adhere.operator._instance_env import RUNTIME_ADHERE, RUNTIME_DIR

    dockerfile = read(IMAGES / "base" / "Dockerfile")
    build = dockerfile.stages[0]
    envs = " ".join(rest for keyword, rest in build.instructions if keyword == "ENV")
    assert f"UV_PROJECT_ENVIRONMENT={RUNTIME_DIR}/venv" in envs
    assert RUNTIME_ADHERE == f"{RUNTIME_DIR}/venv/bin/adhere"
    runs = " ".join(rest for keyword, rest in build.instructions if keyword == "RUN")
    assert f"{RUNTIME_DIR}/python" in runs and f"{RUNTIME_DIR}/ca-certificates.crt" in runs
    copies = [rest for keyword, rest in dockerfile.final.instructions if keyword == "COPY"]
    assert f"--from=build {RUNTIME_DIR} {RUNTIME_DIR}" in copies


def test_image_names_match_the_chart() -> None:
    images = VALUES["images"]
    repositories = {images[c]["repository"] for c in ("operator", "proxy", "rayWorker")}
    repositories |= {image["repository"] for image in images["scaffolds"].values()}
    assert {p.parent.name for p in DOCKERFILES} == repositories
    builtin = {"chat", "reference", *installable()}
    assert set(images["scaffolds"]) == builtin and builtin <= set(scaffold_names())
    for name in installable():
        assert images["scaffolds"][name]["repository"] == f"scaffold-{name}"
    assert images["scaffolds"]["chat"]["repository"] == "base"
    assert images["scaffolds"]["reference"]["repository"] == "base"
