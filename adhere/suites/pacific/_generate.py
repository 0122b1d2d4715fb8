"""The PACIFIC generator: type-consistent, length-aware chains, reproducible by seed.

Each sample draws its randomness from a hash of (seed, language, cell, index), so a
sample does not change when other cells or languages are added to a sweep.

Length-aware selection: a value's length is its bit length (integers) or character
count (strings). Each step is chosen by adhere's rule or the paper's
(``selection``; :mod:`._select` describes both). Chains whose values would leave an
instruction's domain are not generated.
"""

from __future__ import annotations

import hashlib
import random
import string
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from adhere.errors import SpecError
from adhere.suites.pacific._sample import Kind, Mode, Sample, SampleLanguage, Selection, Step
from adhere.suites.pacific._select import MAX_CHAIN_STRING, adhere_step, paper_step

CODE_LANGUAGES: tuple[SampleLanguage, ...] = ("python", "java", "cpp")


@dataclass(frozen=True)
class GeneratorParams:
    """The generator parameters (lists give a grid, one cell per combination)."""

    instructions: Sequence[int] = (3,)
    lengths: Sequence[int] = (5,)
    per_language: int = 3
    seed: int = 0
    mode: Mode = "prompt"
    kind: Kind = "code"
    languages: Sequence[SampleLanguage] = field(default=())
    selection: Selection = "adhere"

    def resolved_languages(self) -> tuple[SampleLanguage, ...]:
        """Languages actually generated: python/java/cpp for code, nl for natural language."""
        if self.kind == "nl":
            return ("nl",)
        langs = tuple(self.languages) or CODE_LANGUAGES
        for lang in langs:
            if lang not in CODE_LANGUAGES:
                raise SpecError(
                    f"expected one of {list(CODE_LANGUAGES)}, got {lang!r}", field="languages"
                )
        return langs

    def validate(self) -> None:
        """Raise SpecError naming the bad parameter."""
        if not self.instructions or any(n < 1 or n > 50 for n in self.instructions):
            raise SpecError("expected instruction counts between 1 and 50", field="instructions")
        if not self.lengths or any(n < 1 or n > 100 for n in self.lengths):
            raise SpecError("expected target lengths between 1 and 100", field="lengths")
        if self.per_language < 1:
            raise SpecError("expected at least 1 sample per language", field="per_language")
        if self.mode not in ("prompt", "chat"):
            raise SpecError(f"expected 'prompt' or 'chat', got {self.mode!r}", field="mode")
        if self.kind not in ("code", "nl"):
            raise SpecError(f"expected 'code' or 'nl', got {self.kind!r}", field="kind")
        if self.selection not in ("adhere", "paper"):
            raise SpecError(
                f"expected 'adhere' or 'paper', got {self.selection!r}", field="selection"
            )
        self.resolved_languages()


def _rng(*parts: object) -> random.Random:
    key = "\x1f".join(str(p) for p in parts).encode("utf-8")
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))


def _initial_value(rng: random.Random, target: int) -> int | str:
    if rng.random() < 0.5:
        bits = max(1, min(target, 30))
        low = 0 if bits == 1 else 1 << (bits - 1)
        return rng.randrange(low, 1 << bits)
    return "".join(rng.choice(string.ascii_letters) for _ in range(min(target, MAX_CHAIN_STRING)))


def generate_sample(
    *,
    language: SampleLanguage,
    kind: Kind,
    mode: Mode,
    instructions: int,
    length: int,
    seed: int,
    index: int,
    selection: Selection = "adhere",
) -> Sample:
    """Generate one sample deterministically from its coordinates.

    Both selection rules start from the same random stream, so a sample's initial value
    is the same under either; the paper's samples' ids start ``pacific-paper-``.
    """
    rng = _rng("pacific", seed, language, instructions, length, index)
    pick = paper_step if selection == "paper" else adhere_step
    prefix = "pacific-paper" if selection == "paper" else "pacific"
    for _attempt in range(100):
        value = _initial_value(rng, length)
        initial = value
        steps: list[Step] = []
        previous: int | None = None
        for _ in range(instructions):
            picked = pick(rng, value, length, previous)
            if picked is None:
                break
            instruction, out = picked
            steps.append(Step(paper_id=instruction.paper_id, input=value, expected=out))
            previous, value = instruction.paper_id, out
        if len(steps) == instructions:
            return Sample(
                id=f"{prefix}-{language}-n{instructions}-l{length}-{mode}-{index:03d}",
                language=language,
                kind=kind,
                mode=mode,
                instructions=instructions,
                target_length=length,
                seed=seed,
                initial=initial,
                steps=steps,
                selection=selection,
            )
    raise RuntimeError(  # pragma: no cover - every start value has a type-compatible step
        f"could not build a chain of {instructions} steps"
    )


def generate(params: GeneratorParams) -> Iterator[Sample]:
    """All samples of a grid, cell by cell, language by language."""
    params.validate()
    for count in params.instructions:
        for length in params.lengths:
            for language in params.resolved_languages():
                for index in range(params.per_language):
                    yield generate_sample(
                        language=language,
                        kind=params.kind,
                        mode=params.mode,
                        instructions=count,
                        length=length,
                        seed=params.seed,
                        index=index,
                        selection=params.selection,
                    )
