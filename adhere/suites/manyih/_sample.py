"""The ManyIH coding sample format, its loader, and what is derived from a sample.

A data file (the published ``coding.json``, or a file written by ``adhere generate
manyih``) is ``{"config": …, "statistics": …, "data": [sample, …]}`` or a bare list
of samples. A sample::

    {"id": 0, "task_id": 594, "prompt": "…", "original_prompt": "…",
     "reference_code": "def …", "test_code": "assert …",
     "instructions": [{"id": 1, "privilege": 91, "description": "…",
                       "style_key": "internal_blank_lines",
                       "style_id": "blank_internal_required", "category": "formatting",
                       "conflicts_with": [5]}, …],
     "metadata": {"n_conflicts": 10, "expected_styles": {group: [style ids]}, …}}

``privilege`` is the scalar value (larger wins). The order in which the instructions
are shown is the order of their tags in ``prompt`` (either interface). Loading checks
every sample and names the file, the sample and the field on error: unknown style
ids or groups, conflicts that point nowhere or are one-sided, a prompt whose tags do
not list every instruction once with its level, and ``expected_styles`` that differ
from the winners this module resolves.

Data quirks handled here (each named in a test):

- ``import-list line``: 13 published samples' test code begins with the line
  ``['import math']`` — a list holding an import statement, which as Python is an
  expression that imports nothing. The 10 of them whose reference code does not
  import ``math`` itself fail with ``NameError`` when the tests run as written. The
  line is read as setup: its statements run before the code.
- ``slow test``: the tests of task 123 (sample 103, amicable numbers below 9,999)
  need several seconds of CPU (over 5 s on a loaded 2-core machine), so the default
  test timeout is 30 s, not the public evaluator's 5 s.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from adhere.errors import SpecError
from adhere.spec import format_location, parse_json, read_text
from adhere.suites.manyih._code import parse_quietly
from adhere.suites.manyih._hierarchy import (
    Tagged,
    ordinal_ranks,
    parse_tags,
    resolve,
    strongest_first,
)
from adhere.suites.manyih._styles import STYLES

__all__ = [
    "SLOW_TASKS",
    "CodingSample",
    "InstructionRecord",
    "entry_point",
    "grouped",
    "load_coding",
    "n_conflicts",
    "prompt_order",
    "split_tests",
    "tagged",
    "winners",
]

SLOW_TASKS: dict[int, str] = {123: "amicable numbers below 9,999: several seconds of CPU"}
"""Published tasks whose tests are known to need more than the public 5 s limit."""

_IMPORT_LIST = re.compile(r"\[\s*(['\"])(?:import|from)\b.*\1\s*(,\s*(['\"]).*\3\s*)*\]\Z")


class InstructionRecord(BaseModel):
    """One privilege-tagged style instruction of a sample."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: int
    privilege: int = Field(description="Scalar privilege: the larger wins.")
    description: str = Field(min_length=1)
    style_key: str
    style_id: str
    category: str
    conflicts_with: list[int] = Field(default_factory=list)

    @model_validator(mode="after")
    def _known_style(self) -> InstructionRecord:
        known = STYLES.get(self.style_id)
        if known is None:
            raise ValueError(f"unknown style_id {self.style_id!r}")
        if known.group != self.style_key:
            raise ValueError(
                f"style {self.style_id!r} belongs to group {known.group!r}, not {self.style_key!r}"
            )
        return self


class CodingSample(BaseModel):
    """One coding sample: an MBPP task, its tests and its privilege-tagged styles."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: int | str
    task_id: int | str
    prompt: str = Field(min_length=1)
    original_prompt: str = Field(min_length=1)
    reference_code: str = Field(min_length=1)
    test_code: str = Field(min_length=1)
    instructions: list[InstructionRecord] = Field(min_length=1)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> CodingSample:
        ids = [i.id for i in self.instructions]
        if len(set(ids)) != len(ids):
            raise ValueError("instruction ids are not unique")
        by_id = {i.id: i for i in self.instructions}
        for item in self.instructions:
            for other in item.conflicts_with:
                if other not in by_id:
                    raise ValueError(f"instruction {item.id} conflicts with unknown id {other}")
                if item.id not in by_id[other].conflicts_with:
                    raise ValueError(
                        f"instruction {item.id} conflicts with {other} but not the reverse"
                    )
        return self


def prompt_order(sample: CodingSample) -> list[int]:
    """Instruction ids in the order the prompt shows them (checked against privileges).

    Raises:
        ValueError: the prompt's tags do not list every instruction exactly once with
            its level.
    """
    tags = parse_tags(sample.prompt)
    by_text: dict[str, list[InstructionRecord]] = {}
    for item in sample.instructions:
        by_text.setdefault(item.description.strip(), []).append(item)
    ranks = ordinal_ranks(i.privilege for i in sample.instructions)
    order: list[int] = []
    for found in tags:
        candidates = [i for i in by_text.get(found.text.strip(), []) if i.id not in order]
        if not candidates:
            raise ValueError(f"tag {found.position + 1} matches no instruction: {found.text!r}")
        item = candidates[0]
        expected = ranks[item.privilege] if found.interface == "ordinal" else item.privilege
        if found.level != expected:
            raise ValueError(
                f"instruction {item.id} is tagged {found.level} but its privilege "
                f"{item.privilege} gives {expected} ({found.interface})"
            )
        order.append(item.id)
    missing = sorted({i.id for i in sample.instructions} - set(order))
    if missing:
        raise ValueError(f"instructions {missing} have no tag in the prompt")
    return order


def tagged(sample: CodingSample) -> list[Tagged]:
    """The instructions with their scalar values and prompt positions."""
    position = {key: index for index, key in enumerate(prompt_order(sample))}
    return [
        Tagged(key=i.id, value=i.privilege, position=position[i.id], text=i.description)
        for i in sorted(sample.instructions, key=lambda i: position[i.id])
    ]


def winners(sample: CodingSample) -> list[str]:
    """Winning style ids, strongest first, under the sample's own conflict relation."""
    items = tagged(sample)
    by_id = {i.id: i for i in sample.instructions}
    ordered = strongest_first(((t.key, t.value, t.position) for t in items), "scalar")
    kept = resolve(ordered, lambda a, b: b in by_id[a].conflicts_with)
    return [by_id[k].style_id for k in kept]


def grouped(style_ids: list[str]) -> dict[str, list[str]]:
    """Style ids by group (groups and ids sorted)."""
    out: dict[str, list[str]] = {}
    for sid in style_ids:
        out.setdefault(STYLES[sid].group, []).append(sid)
    return {group: sorted(ids) for group, ids in sorted(out.items())}


def n_conflicts(sample: CodingSample) -> int:
    """Number of conflicting instruction pairs."""
    return sum(len(i.conflicts_with) for i in sample.instructions) // 2


def split_tests(test_code: str) -> tuple[str, str, list[str]]:
    """(setup, test statements, quirks) of a sample's test code.

    A leading line that is a list of import statements as strings (``['import math']``)
    becomes setup code; the quirk is named ``import-list line``.
    """
    lines = test_code.strip("\n").split("\n")
    setup: list[str] = []
    quirks: list[str] = []
    while lines and _IMPORT_LIST.match(lines[0].strip()):
        statements = ast.literal_eval(lines.pop(0).strip())
        setup += [str(s) for s in statements]
        quirks = ["import-list line"]
    return "\n".join(setup), "\n".join(lines), quirks


_CALL = re.compile(r"`([A-Za-z_]\w*)\s*\(")


def entry_point(sample: CodingSample) -> str:
    """The function the tests call: named in the task text, defined by the reference code."""
    defined = [
        n.name
        for n in parse_quietly(sample.reference_code).body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    _setup, tests, _quirks = split_tests(sample.test_code)
    called = set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", tests))
    named = _CALL.findall(sample.original_prompt)
    for name in [*named, *defined]:
        if name in defined and name in called:
            return str(name)
    return str(named[0]) if named else (defined[0] if defined else "")


def load_coding(path: Path) -> list[CodingSample]:
    """Every sample of a coding data file, validated (see the module docstring)."""
    raw = parse_json(read_text(path), file=str(path))
    if isinstance(raw, dict) and "data" in raw:
        records, prefix = raw["data"], "data"
    elif isinstance(raw, list):
        records, prefix = raw, ""
    else:
        raise SpecError(
            "expected a list of samples or an object with a 'data' list", file=str(path)
        )
    if not isinstance(records, list) or not records:
        raise SpecError("no samples", file=str(path), field=prefix or None)
    out = []
    seen: set[str] = set()
    for index, record in enumerate(records):
        where = f"{prefix}[{index}]"
        out.append(parse_sample(record, file=str(path), where=where))
        key = str(out[-1].id)
        if key in seen:
            raise SpecError(f"duplicate sample id {key!r}", file=str(path), field=f"{where}.id")
        seen.add(key)
    return out


def parse_sample(record: Any, *, file: str = "", where: str = "") -> CodingSample:
    """One sample from its JSON record, with every consistency check of the loader."""
    try:
        sample = CodingSample.model_validate(record)
    except ValidationError as exc:
        err = exc.errors()[0]
        location = format_location(err["loc"])
        field = f"{where}.{location}" if location else where
        raise SpecError(err["msg"], file=file, field=field) from None
    try:
        prompt_order(sample)
    except ValueError as exc:
        raise SpecError(str(exc), file=file, field=f"{where}.prompt") from None
    expected = sample.metadata.get("expected_styles")
    if expected is not None:
        mine = grouped(winners(sample))
        theirs = {g: sorted(v) for g, v in sorted(dict(expected).items())}
        if mine != theirs:
            raise SpecError(
                f"expected_styles {theirs} differ from the resolved winners {mine}",
                file=file,
                field=f"{where}.metadata.expected_styles",
            )
    return sample
