"""Writing new coding samples from a problem set, with knobs.

Problems come from a ManyIH coding file (its tasks, reference code and tests; one
problem per ``task_id``) or from an MBPP-style file (JSON list or JSONL of
``{task_id, text|prompt, code, test_list, test_setup_code}``). For each problem the
generator draws, seeded by ``(seed, task_id)``:

1. ``groups`` style groups out of the 12;
2. ``instructions`` styles among them (each group at least one, at most all of its
   styles);
3. ``tiers`` distinct privilege values in 1–100, each used at least once (fewer tiers
   than instructions means ties, decided by position);
4. the order the instructions are shown in;

and keeps the first draw whose conflicting pairs fall in ``conflicts`` and whose
winners number ``winners``; a problem with no such draw in ``max_tries`` is skipped
(and counted). Output has the published file's shape, so ``load_coding`` reads it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from adhere.errors import SpecError
from adhere.spec import parse_json, read_text
from adhere.suites.manyih._hierarchy import (
    Tagged,
    render_prompt,
    resolve,
    strongest_first,
)
from adhere.suites.manyih._sample import CodingSample, load_coding
from adhere.suites.manyih._styles import GROUPS, STYLES, conflicts
from adhere.suites.manyih._variants import perturb, rng_for, tier_variant

__all__ = [
    "GenerateParams",
    "Generated",
    "Problem",
    "generate",
    "load_problems",
    "variant_document",
]


@dataclass(frozen=True)
class Problem:
    """A programming task with its reference solution and tests."""

    task_id: int | str
    text: str
    code: str
    tests: str


@dataclass(frozen=True)
class GenerateParams:
    """The generator's knobs (see the module docstring)."""

    n: int | None = None
    """Problems to use, from the start of the set (default: all)."""
    groups: int = 4
    instructions: int = 12
    tiers: int | None = None
    """Distinct privilege values (default: one per instruction, no ties)."""
    conflicts: tuple[int, int] = (7, 11)
    winners: int = 6
    seed: int = 0
    max_tries: int = 500

    def validate(self) -> None:
        """SpecError naming the knob when the values cannot work together."""
        sizes = sorted((len(v) for v in GROUPS.values()), reverse=True)
        if not 1 <= self.groups <= len(GROUPS):
            raise SpecError(f"between 1 and {len(GROUPS)} groups", field="groups")
        if not self.groups <= self.instructions <= sum(sizes[: self.groups]):
            raise SpecError(
                f"with {self.groups} groups, between {self.groups} and "
                f"{sum(sizes[: self.groups])} instructions",
                field="instructions",
            )
        tiers = self.tiers if self.tiers is not None else self.instructions
        if not 1 <= tiers <= min(self.instructions, 100):
            raise SpecError("between 1 and the number of instructions (at most 100)", field="tiers")
        low, high = self.conflicts
        if not 0 <= low <= high:
            raise SpecError("a range [low, high] with 0 <= low <= high", field="conflicts")
        if not self.groups <= self.winners <= self.instructions:
            raise SpecError("between the number of groups and of instructions", field="winners")
        if self.n is not None and self.n < 1:
            raise SpecError("a positive number of problems", field="n")
        if self.max_tries < 1:
            raise SpecError("at least 1", field="max_tries")


@dataclass
class Generated:
    """The samples written and the problems skipped."""

    samples: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[int | str] = field(default_factory=list)

    def document(self, params: GenerateParams) -> dict[str, Any]:
        """The file's content: config, statistics and data (the published shape)."""
        conflicts_seen = [s["metadata"]["n_conflicts"] for s in self.samples]
        return {
            "config": {"generator": "adhere", **asdict(params)},
            "statistics": {
                "n_samples": len(self.samples),
                "skipped_problems": self.skipped,
                "n_conflicts": dict(sorted(Counter(conflicts_seen).items())),
            },
            "data": self.samples,
        }


def load_problems(path: Path) -> list[Problem]:
    """Problems from a ManyIH coding file or an MBPP-style JSON/JSONL file."""
    if not path.is_file():
        raise SpecError("no such file", file=str(path))
    text = read_text(path)
    try:
        raw: Any = parse_json(text, file=str(path))
    except SpecError:
        raw = [
            parse_json(line, file=str(path), line=number)
            for number, line in enumerate(text.splitlines(), start=1)
            if line.strip()
        ]
    if isinstance(raw, dict):  # a data file, or a JSONL file of one problem
        raw = raw["data"] if "data" in raw else [raw]
    records = raw
    if isinstance(records, list) and records and "instructions" in records[0]:
        seen: dict[int | str, Problem] = {}
        for sample in load_coding(path):
            seen.setdefault(
                sample.task_id,
                Problem(sample.task_id, sample.original_prompt, sample.reference_code,
                        sample.test_code),
            )  # fmt: skip
        return list(seen.values())
    if not isinstance(records, list):
        raise SpecError("expected a list of problems", file=str(path))
    out = []
    for index, record in enumerate(records):
        try:
            tests = record.get("test_list") or record["test_code"]
            if isinstance(tests, list):
                tests = "\n".join(tests)
            setup = record.get("test_setup_code") or ""
            out.append(
                Problem(
                    task_id=record.get("task_id", index),
                    text=record.get("text") or record.get("prompt") or record["original_prompt"],
                    code=record["code"] if "code" in record else record["reference_code"],
                    tests=(repr([setup]) + "\n" if setup else "") + tests,
                )
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise SpecError(f"missing field {exc}", file=str(path), field=f"[{index}]") from None
    return out


def _draw(problem: Problem, params: GenerateParams, attempt: int) -> dict[str, Any] | None:
    rng = rng_for("generate", params.seed, problem.task_id, attempt)
    chosen = sorted(rng.sample(sorted(GROUPS), params.groups))
    counts = dict.fromkeys(chosen, 1)
    while sum(counts.values()) < params.instructions:
        open_groups = [g for g in chosen if counts[g] < len(GROUPS[g])]
        counts[rng.choice(open_groups)] += 1
    styles = [sid for g in chosen for sid in rng.sample(GROUPS[g], counts[g])]
    tiers = params.tiers if params.tiers is not None else params.instructions
    values = rng.sample(range(1, 101), tiers)
    values += [rng.choice(values) for _ in range(params.instructions - tiers)]
    rng.shuffle(values)
    positions = list(range(params.instructions))
    rng.shuffle(positions)
    pairs = sum(1 for i, a in enumerate(styles) for b in styles[i + 1 :] if conflicts(a, b))
    low, high = params.conflicts
    if not low <= pairs <= high:
        return None
    items = [
        Tagged(key=i + 1, value=values[i], position=positions[i], text=STYLES[sid].description)
        for i, sid in enumerate(styles)
    ]
    ordered = strongest_first(((t.key, t.value, t.position) for t in items), "scalar")
    kept = resolve(ordered, lambda a, b: conflicts(styles[a - 1], styles[b - 1]))
    if len(kept) != params.winners:
        return None
    expected: dict[str, list[str]] = {}
    for key in kept:
        expected.setdefault(STYLES[styles[key - 1]].group, []).append(styles[key - 1])
    instructions = [
        {
            "id": i + 1,
            "privilege": values[i],
            "description": STYLES[sid].description,
            "style_key": STYLES[sid].group,
            "style_id": sid,
            "category": STYLES[sid].category,
            "conflicts_with": [j + 1 for j, other in enumerate(styles) if conflicts(sid, other)],
        }
        for i, sid in enumerate(styles)
    ]
    return {
        "task_id": problem.task_id,
        "prompt": render_prompt(problem.text, items, "ordinal"),
        "original_prompt": problem.text,
        "reference_code": problem.code,
        "test_code": problem.tests,
        "instructions": instructions,
        "metadata": {
            "n_instructions": params.instructions,
            "n_conflicts": pairs,
            "n_style_groups": params.groups,
            "expected_styles": {g: sorted(v) for g, v in sorted(expected.items())},
            "tiers": tiers,
            "attempt": attempt,
        },
    }


def generate(problems: list[Problem], params: GenerateParams) -> Generated:
    """New samples for ``problems`` (the first ``params.n``), reproducible by seed."""
    params.validate()
    out = Generated()
    for problem in problems[: params.n]:
        for attempt in range(params.max_tries):
            sample = _draw(problem, params, attempt)
            if sample is not None:
                out.samples.append({"id": len(out.samples), **sample})
                break
        else:
            out.skipped.append(problem.task_id)
    return out


def variant_document(
    samples: list[CodingSample], *, tiers: int | None = None, perturbations: int = 0, seed: int = 0
) -> dict[str, Any]:
    """A coding file of tier variants and/or scalar perturbations of ``samples``.

    With ``tiers``, each sample's tier variant (id ``<id>-t<tiers>``); with
    ``perturbations`` K, each (variant) sample followed by its K perturbations (ids
    ``…-p1`` … ``…-pK``). The result loads with ``load_coding``.
    """
    out: list[dict[str, Any]] = []
    for sample in samples:
        stem = f"{sample.id:04d}" if isinstance(sample.id, int) else str(sample.id)
        variant = sample
        if tiers is not None and tiers != len(sample.instructions):
            variant = tier_variant(sample, tiers, seed=seed)
            stem = f"{stem}-t{tiers}"
        out.append(variant.model_copy(update={"id": stem}).model_dump(mode="json"))
        for k in range(1, perturbations + 1):
            moved = perturb(variant, k, seed=seed)
            out.append(moved.model_copy(update={"id": f"{stem}-p{k}"}).model_dump(mode="json"))
    conflicts_seen = Counter(int(s["metadata"]["n_conflicts"]) for s in out)
    return {
        "config": {"variants_of": "published or generated samples", "tiers": tiers,
                   "perturbations": perturbations, "seed": seed},
        "statistics": {"n_samples": len(out), "n_conflicts": dict(sorted(conflicts_seen.items()))},
        "data": out,
    }  # fmt: skip
