"""``instances.jsonl``: one stored instance a line, under the documented field names.

A stored instance uses the names users write in the instance files a Benchmark reads
(``instance_id``, ``user_query``, and on each check ``check_id`` and ``check_type``)
and that the result tables use (``docs/results.md``, "Stored instances"); the other
fields keep :class:`adhere.core.Instance`'s names::

    {"instance_id": "…", "suite": "octobench", "system_prompt": "…",
     "user_query": ["…"], "workspace": {…}, "metadata": {…}, "scaffold": null,
     "checks": [{"check_id": "…", "source": "SP", "check_type": "compliance",
                 "description": "…", "verifier": null, "condition": null}]}

Stores written before this used the core type's names (``id``, ``turns``, ``id`` and
``kind`` on checks); they are read as well. A record holding both names of one field
is refused.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from adhere.core import Instance
from adhere.errors import StoreError

__all__ = ["decode_instance", "decode_instances", "encode_instance", "encode_instances"]

INSTANCE_FIELDS = {"id": "instance_id", "turns": "user_query"}
"""Core field name → stored (documented) name, on an instance."""
CHECK_FIELDS = {"id": "check_id", "kind": "check_type"}
"""Core field name → stored (documented) name, on a check."""


def _renamed(data: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    return {names.get(key, key): value for key, value in data.items()}


def encode_instance(instance: Instance) -> str:
    """One line of ``instances.jsonl`` (no newline) under the documented names."""
    data = _renamed(instance.model_dump(mode="json"), INSTANCE_FIELDS)
    data["checks"] = [_renamed(check, CHECK_FIELDS) for check in data["checks"]]
    return json.dumps(data, ensure_ascii=False)


def encode_instances(instances: Iterable[Instance]) -> bytes:
    """The bytes of ``instances.jsonl``: one instance a line, each line ended."""
    return "".join(encode_instance(i) + "\n" for i in instances).encode("utf-8")


def _core_names(data: Mapping[str, Any], names: Mapping[str, str], where: str) -> dict[str, Any]:
    out = dict(data)
    for core, stored in names.items():
        if stored in out:
            if core in out:
                raise StoreError(f"{where}: both {core!r} and {stored!r} given; keep {stored!r}")
            out[core] = out.pop(stored)
    return out


def decode_instance(line: str, *, where: str) -> Instance:
    """An instance from one stored line, under either the documented or the old names.

    Raises:
        StoreError: The line is not a valid stored instance (``where`` and the field
            are named).
    """
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise StoreError(f"{where}: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise StoreError(f"{where}: a stored instance is a JSON object")
    data = _core_names(data, INSTANCE_FIELDS, where)
    checks = data.get("checks")
    if isinstance(checks, list):
        data["checks"] = [
            _core_names(check, CHECK_FIELDS, f"{where}: checks[{n}]")
            if isinstance(check, dict)
            else check
            for n, check in enumerate(checks)
        ]
    try:
        return Instance.model_validate(data)
    except ValidationError as exc:
        problem = exc.errors()[0]
        raise StoreError(f"{where}: {_field(problem['loc'])}: {problem['msg']}") from None


def _field(loc: tuple[int | str, ...]) -> str:
    """A validation error's location under the stored names (``checks.0.check_id``)."""
    parts = [str(part) for part in loc]
    if parts:
        parts[0] = INSTANCE_FIELDS.get(parts[0], parts[0])
    if len(parts) >= 3 and parts[0] == "checks":
        parts[2] = CHECK_FIELDS.get(parts[2], parts[2])
    return ".".join(parts)


def decode_instances(raw: bytes, *, where: str) -> list[Instance]:
    """Every instance of ``instances.jsonl`` (blank lines skipped), in order."""
    return [
        decode_instance(line, where=f"{where}:{number}")
        for number, line in enumerate(raw.decode("utf-8").splitlines(), start=1)
        if line.strip()
    ]
