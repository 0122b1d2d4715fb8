import collections
import statistics

import pytest

from adhere.errors import SpecError
from adhere.suites.pacific import GeneratorParams, Sample, by_id, generate, render_prompt
from adhere.suites.pacific._instructions import value_length


def dump(params: GeneratorParams) -> list[str]:
    return [s.model_dump_json() for s in generate(params)]


def test_same_seed_same_samples_other_seed_other_samples() -> None:
    params = GeneratorParams(instructions=(3, 5), lengths=(3, 10), per_language=4, seed=11)
    assert dump(params) == dump(params)
    other = dump(GeneratorParams(instructions=(3, 5), lengths=(3, 10), per_language=4, seed=12))
    assert other != dump(params)


def test_a_cell_does_not_depend_on_the_rest_of_the_grid() -> None:
    alone = dump(GeneratorParams(instructions=(5,), lengths=(10,), per_language=3, seed=4))
    grid = dump(GeneratorParams(instructions=(3, 5), lengths=(3, 10), per_language=3, seed=4))
    assert set(alone) <= set(grid)


def test_counts_ids_and_languages() -> None:
    samples = list(generate(GeneratorParams(instructions=(3, 8), lengths=(5,), per_language=5)))
    assert len(samples) == 2 * 1 * 3 * 5
    assert collections.Counter(s.language for s in samples) == {"python": 10, "java": 10, "cpp": 10}
    assert len({s.id for s in samples}) == len(samples)
    assert all(len(s.steps) == s.instructions for s in samples)
    nl = list(generate(GeneratorParams(instructions=(3,), lengths=(5,), per_language=4, kind="nl")))
    assert {s.language for s in nl} == {"nl"} and len(nl) == 4


def test_chains_are_type_consistent_and_correct() -> None:
    for sample in generate(
        GeneratorParams(instructions=(15,), lengths=(3, 5, 10), per_language=10)
    ):
        value = sample.initial
        for step in sample.steps:
            instruction = by_id(step.paper_id)
            assert step.input == value
            assert instruction.in_type == type(value).__name__
            assert step.expected == instruction(value)
            value = step.expected
        # A revalidation from JSON recomputes every step.
        assert Sample.model_validate_json(sample.model_dump_json()) == sample


def test_no_instruction_repeats_back_to_back() -> None:
    for sample in generate(GeneratorParams(instructions=(10,), lengths=(5,), per_language=20)):
        ids = [s.paper_id for s in sample.steps]
        assert all(a != b for a, b in zip(ids, ids[1:], strict=False))


@pytest.mark.parametrize("target", [3, 5, 10])
def test_outputs_are_steered_to_the_target_length(target: int) -> None:
    samples = generate(
        GeneratorParams(instructions=(8,), lengths=(target,), per_language=20, seed=3)
    )
    lengths = [value_length(st.expected) for s in samples for st in s.steps]
    assert abs(statistics.median(lengths) - target) <= 1
    # and clearly differently from a neighbouring target
    if target == 10:
        short = generate(GeneratorParams(instructions=(8,), lengths=(3,), per_language=20, seed=3))
        assert statistics.mean(value_length(st.expected) for s in short for st in s.steps) < 6


def test_every_instruction_occurs_in_the_paper_grid() -> None:
    params = GeneratorParams(instructions=(3, 5, 8, 10, 15), lengths=(3, 5, 10), per_language=5)
    used = collections.Counter(st.paper_id for s in generate(params) for st in s.steps)
    assert set(used) == set(range(1, 23))


def test_prompt_mode_has_one_turn_chat_mode_one_per_step() -> None:
    (prompt,) = generate(GeneratorParams(instructions=(4,), per_language=1, languages=("java",)))
    (chat,) = generate(
        GeneratorParams(instructions=(4,), per_language=1, languages=("java",), mode="chat")
    )
    assert prompt.steps == chat.steps  # the mode changes the rendering, not the chain
    turns = render_prompt(prompt)
    assert len(turns) == 1
    assert all(f"[ANSWER][{i}]" not in turns[0] for i in (2, 3))  # format stated generically
    assert "Step 4:" in turns[0] and "```java" in turns[0]
    chat_turns = render_prompt(chat)
    assert len(chat_turns) == 4
    assert all(f"Step {k + 1}:" in t for k, t in enumerate(chat_turns))
    assert str(chat.initial) in chat_turns[0]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        (GeneratorParams(instructions=(0,)), "instructions"),
        (GeneratorParams(lengths=()), "lengths"),
        (GeneratorParams(per_language=0), "per_language"),
        (GeneratorParams(mode="batch"), "mode"),  # type: ignore[arg-type]
        (GeneratorParams(languages=("rust",)), "languages"),  # type: ignore[arg-type]
    ],
)
def test_bad_parameters(params: GeneratorParams, field: str) -> None:
    with pytest.raises(SpecError) as info:
        list(generate(params))
    assert info.value.field == field
