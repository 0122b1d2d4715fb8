"""VeriCode suite options and selections files: checked, with errors naming file and field."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from adhere.errors import SpecError
from adhere.spec import parse_json, read_text
from adhere.suites.vericode._catalog import by_id
from adhere.suites.vericode._instruction import validate_params
from adhere.suites.vericode._select import Selection

__all__ = ["ENVIRONMENTS", "FORMATS", "PROTOCOLS", "RULES", "check_options", "read_selections"]

PROTOCOLS = ("single", "multi")
FORMATS = ("auto", "native", "bigcodebench", "livecodebench")
RULES = ("adhere", "paper")
"""``protocol``: adhere's rules (the default) or the paper's (docs/vericode.md's table)."""
ENVIRONMENTS = ("auto", "none")
"""``environment``: ``auto`` runs tasks with third-party libraries in the suite's
environment (``adhere setup vericode``); ``none`` always in the evaluator's interpreter."""


def check_options(raw: Mapping[str, Any], field: str, file: str = "") -> dict[str, Any]:
    """The suite options with defaults filled in; ``SpecError`` naming the field otherwise."""
    out: dict[str, Any] = {"protocols": list(PROTOCOLS), "k": 5, "seed": 0, "format": "auto"}
    out.update(ks=None, protocol="adhere", prompts=None, environment="auto")
    for key, value in raw.items():
        where = f"{field}.{key}"
        if key == "protocols":
            values = [value] if isinstance(value, str) else value
            if (
                not isinstance(values, list)
                or not values
                or any(v not in PROTOCOLS for v in values)
            ):
                raise SpecError("expected a list of single and/or multi", file=file, field=where)
            out[key] = list(values)
        elif key == "ks":
            if not isinstance(value, list) or not all(_is_int(v, 0) for v in value):
                raise SpecError("expected a list of integers ≥ 0", file=file, field=where)
            out[key] = sorted(set(value))
        elif key in ("k", "limit"):
            if not _is_int(value, 1):
                raise SpecError("expected a positive integer", file=file, field=where)
            out[key] = value
        elif key == "seed":
            if not _is_int(value, None):
                raise SpecError("expected an integer", file=file, field=where)
            out[key] = value
        elif key in ("format", "protocol", "environment"):
            allowed = {"format": FORMATS, "protocol": RULES, "environment": ENVIRONMENTS}[key]
            if value not in allowed:
                raise SpecError(f"expected one of {', '.join(allowed)}", file=file, field=where)
            out[key] = value
        elif key == "prompts":
            if not isinstance(value, str) or not value.strip():
                raise SpecError("expected the path of a prompts file", file=file, field=where)
            out[key] = value
    return out


def _is_int(value: object, minimum: int | None) -> bool:
    ok = isinstance(value, int) and not isinstance(value, bool)
    return ok and (minimum is None or value >= minimum)  # type: ignore[operator]


def read_selections(path: Path) -> list[Selection] | None:
    """The selections of a file written by ``adhere generate vericode`` (``None``: not one)."""
    selections = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = parse_json(line, file=str(path), line=number)
        except SpecError:
            return None  # not a selections file: read as a task file, which names the line
        if not (isinstance(data, dict) and "task" in data and "instructions" in data):
            return None
        try:
            selection = Selection.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"])
            raise SpecError(err["msg"], file=f"{path}:{number}", field=loc) from None
        selections.append(_revalidated(selection, f"{path}:{number}"))
    return selections or None


def _revalidated(selection: Selection, where: str) -> Selection:
    """The selection with known instruction ids and parameters passed through the rules."""
    chosen = []
    seen: set[str] = set()
    for index, item in enumerate(selection.instructions):
        if item.id in seen:
            raise SpecError(
                f"instruction {item.id!r} is chosen twice",
                file=where,
                field=f"instructions.{index}.id",
            )
        seen.add(item.id)
        try:
            instruction = by_id(item.id)
        except KeyError as exc:
            raise SpecError(
                str(exc.args[0]), file=where, field=f"instructions.{index}.id"
            ) from None
        values = validate_params(instruction, item.params).values
        chosen.append(item.model_copy(update={"params": values}))
    return selection.model_copy(update={"instructions": chosen})
