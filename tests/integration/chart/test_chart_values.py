"""The chart's values: documented line by line, described by values.schema.json, versioned
with adhere."""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

import jsonschema
import yaml

from tests.integration.chart._helm_parts import CHART, ROOT

VALUES_TEXT = (CHART / "values.yaml").read_text(encoding="utf-8")
VALUES = yaml.safe_load(VALUES_TEXT)
SCHEMA = json.loads((CHART / "values.schema.json").read_text(encoding="utf-8"))
# Kubernetes objects written as they are in a pod spec: their keys are not documented one
# by one (the comment above the object says what it is).
LITERALS = {
    "resources",
    "proxyResources",
    "workerResources",
    "podSecurityContext",
    "securityContext",
    "to",  # NetworkPolicy peers and ports of trials.networkPolicy's rules
    "ports",
}
KEY = re.compile(r"^(?P<indent> *)(?P<key>[A-Za-z0-9_-]+):")


def test_every_key_is_documented() -> None:
    undocumented = []
    stack: list[tuple[int, str]] = []
    previous = ""
    for number, line in enumerate(VALUES_TEXT.splitlines(), start=1):
        match = KEY.match(line)
        if match:
            indent = len(match["indent"])
            while stack and stack[-1][0] >= indent:
                stack.pop()
            inside_literal = any(key in LITERALS for _, key in stack)
            if not inside_literal and not previous.lstrip().startswith("#"):
                undocumented.append(f"values.yaml:{number}: {match['key']}")
            stack.append((indent, match["key"]))
        if line.strip():
            previous = line
    assert undocumented == []


def test_schema_is_draft7_and_accepts_the_defaults() -> None:
    jsonschema.Draft7Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "http://json-schema.org/draft-07/schema#"
    jsonschema.Draft7Validator(SCHEMA).validate(VALUES)


def test_schema_describes_every_value() -> None:
    """additionalProperties: false down every documented section, so typos fail."""

    def walk(schema: dict[str, Any], values: Any, path: str) -> list[str]:
        if not isinstance(values, dict) or "properties" not in schema:
            return []
        missing = [f"{path}.{k}".lstrip(".") for k in values if k not in schema["properties"]]
        if schema.get("additionalProperties") is not False:
            missing.append(f"{path or '<root>'}: additionalProperties is not false")
        for key, value in values.items():
            if key in schema["properties"]:
                missing += walk(schema["properties"][key], value, f"{path}.{key}")
        return missing

    assert walk(SCHEMA, VALUES, "") == []


def test_chart_versions() -> None:
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text(encoding="utf-8"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert chart["apiVersion"] == "v2" and chart["name"] == "adhere"
    assert chart["appVersion"] == project["version"]


def test_the_documented_values_file_fits_the_schema() -> None:
    """docs/kubernetes.md's my-values.yaml (MinIO, its NetworkPolicy peer) is accepted."""
    text = (ROOT / "docs" / "kubernetes.md").read_text(encoding="utf-8")
    block = text.split("# my-values.yaml\n", 1)[1].split("```", 1)[0]
    documented = yaml.safe_load(block)
    assert documented["trials"]["networkPolicy"]["store"]["ports"] == [
        {"protocol": "TCP", "port": 9000}
    ]

    def merged(base: Any, over: Any) -> Any:  # as Helm merges a values file on the defaults
        if isinstance(base, dict) and isinstance(over, dict):
            return {k: merged(base.get(k), over[k]) if k in over else base[k]
                    for k in {**base, **over}}  # fmt: skip
        return over

    jsonschema.Draft7Validator(SCHEMA).validate(merged(VALUES, documented))
