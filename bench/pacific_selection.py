"""How adhere's chain selection and the paper's differ on the paper's grid.

Generates the paper's 15 benchmarks (instructions {3, 5, 8, 10, 15} × target length
{3, 5, 10}, 33 samples per language and cell, seed 2025) under each selection and
prints, per selection: how far each step's value and each sample's final value lie
from the target length (bits for integers, characters for strings), how often an
instruction follows itself, which instructions are used most and least, and the
final values' types. docs/pacific.md quotes its output.

    uv run python bench/pacific_selection.py
"""

from __future__ import annotations

from collections import Counter

from adhere.suites.pacific import GeneratorParams, by_id, generate
from adhere.suites.pacific._instructions import value_length


def main() -> None:
    for selection in ("adhere", "paper"):
        params = GeneratorParams(
            instructions=(3, 5, 8, 10, 15), lengths=(3, 5, 10), per_language=33, seed=2025,
            selection=selection,  # type: ignore[arg-type]
        )  # fmt: skip
        used: Counter[int] = Counter()
        step_gap: list[int] = []
        final_gap: list[int] = []
        repeats = pairs = 0
        finals: Counter[str] = Counter()
        for sample in generate(params):
            for a, b in zip(sample.steps, sample.steps[1:], strict=False):
                pairs += 1
                repeats += a.paper_id == b.paper_id
            for step in sample.steps:
                used[step.paper_id] += 1
                step_gap.append(abs(value_length(step.expected) - sample.target_length))
            final_gap.append(abs(value_length(sample.steps[-1].expected) - sample.target_length))
            finals[type(sample.steps[-1].expected).__name__] += 1
        steps = sum(used.values())
        print(f"selection {selection}: {len(final_gap)} samples, {steps} steps")
        print(f"  mean |length - target|: per step {sum(step_gap) / steps:.2f}, "
              f"final value {sum(final_gap) / len(final_gap):.2f}")  # fmt: skip
        print(f"  an instruction follows itself: {repeats} of {pairs} pairs")
        ranked = [(by_id(p).name, 100 * n / steps) for p, n in used.most_common()]
        print("  most used: " + ", ".join(f"{n} {s:.1f}%" for n, s in ranked[:3]))
        print("  least used: " + ", ".join(f"{n} {s:.2f}%" for n, s in ranked[-3:]))
        print(f"  final values: {dict(finals)}")


if __name__ == "__main__":
    main()
