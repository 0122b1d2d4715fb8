"""Instruction 8 (element name of n mod 118): the cases the paper leaves open, one test a
rule (docs/pacific-instructions.md, "Instruction 8: the open cases")."""

from __future__ import annotations

import pytest

from adhere.core import ChatMessage, Trajectory
from adhere.suites.pacific import PacificSuite, Sample, Step, by_id, sample_to_instance
from adhere.suites.pacific._instruction_type import INT_LIMIT
from adhere.suites.pacific._render import render_code, render_nl

ELEMENT = by_id(8)


def python_rendering():
    namespace: dict = {}
    exec(render_code(8, "python"), namespace)  # the code a model reads in a Python prompt
    return namespace["element_name"]


def score(initial: int, answer: str) -> str:
    """The category of ``answer`` to a one-step chain ``element_name(initial)``."""
    sample = Sample(
        id="e", language="python", kind="code", mode="prompt", instructions=1,
        target_length=5, seed=0, initial=initial,
        steps=[Step(paper_id=8, input=initial, expected=ELEMENT(initial))],
    )  # fmt: skip
    instance = sample_to_instance(sample)
    reply = f"[ANSWER][1] {answer} [\\ANSWER]"
    trajectory = Trajectory(
        messages=[ChatMessage(role="user", content=instance.turns[0]),
                  ChatMessage(role="assistant", content=reply)]
    )  # fmt: skip
    return str(PacificSuite().score(instance, trajectory)[0].details["category"])


@pytest.mark.parametrize("n", [0, 118, 236, 118 * 1000])
def test_remainder_zero_is_element_118(n: int) -> None:
    assert ELEMENT(n) == "Oganesson" == python_rendering()(n)


def test_every_element_is_reachable_and_the_table_wraps() -> None:
    names = {ELEMENT(n) for n in range(118)}
    assert len(names) == 118
    assert [ELEMENT(n) for n in (117, 118, 119)] == ["Tennessine", "Oganesson", "Hydrogen"]


NEGATIVE = [(-1, "Tennessine"), (-117, "Hydrogen"), (-118, "Oganesson"), (-119, "Tennessine")]


@pytest.mark.parametrize(("n", "name"), NEGATIVE)
def test_negative_numbers_use_the_floor_modulo_in_every_language(n: int, name: str) -> None:
    assert ELEMENT(n) == name == python_rendering()(n)
    assert "Math.floorMod(n, 118L)" in render_code(8, "java")
    assert "((n % 118) + 118) % 118" in render_code(8, "cpp")


def test_the_current_names_of_elements_113_to_118() -> None:
    names = [ELEMENT(n) for n in range(113, 119)]
    assert names == ["Nihonium", "Flerovium", "Moscovium", "Livermorium", "Tennessine", "Oganesson"]
    assert score(113, "Ununtrium") == "wrong"


@pytest.mark.parametrize(("n", "iupac", "variant"), [(13, "Aluminium", "Aluminum"),
                                                     (16, "Sulfur", "Sulphur"),
                                                     (55, "Caesium", "Cesium")])  # fmt: skip
def test_iupac_spellings_and_variants_are_wrong(n: int, iupac: str, variant: str) -> None:
    assert ELEMENT(n) == iupac
    assert f'"{iupac}"' in render_code(8, "python")  # the table the model reads
    assert iupac in render_nl(8)  # the nl description names the spelling
    assert score(n, iupac) == "correct"
    assert score(n, variant) == "wrong"


def test_capital_initial_and_exact_case() -> None:
    assert ELEMENT(1) == "Hydrogen"
    assert "capital first letter" in render_nl(8)
    assert score(1, "Hydrogen") == "correct"
    assert score(1, "hydrogen") == "wrong"
    assert score(1, "HYDROGEN") == "wrong"


@pytest.mark.parametrize("answer", ["Oganesson (Og)", "Og", "118", "element 118: Oganesson"])
def test_the_name_alone(answer: str) -> None:
    expected = "type_mismatch" if answer.isdigit() else "wrong"
    assert score(0, answer) == expected
    assert score(0, '"Oganesson"') == "correct"  # a quoted literal is the name


def test_input_domain() -> None:
    assert ELEMENT.accepts(INT_LIMIT - 1) and ELEMENT.accepts(-(INT_LIMIT - 1))
    assert not ELEMENT.accepts(INT_LIMIT) and not ELEMENT.accepts(True)
    with pytest.raises(ValueError, match="does not accept"):
        ELEMENT(2**40)
