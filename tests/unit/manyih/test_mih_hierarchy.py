"""Privilege interfaces and winner resolution, ties included, in both interfaces."""

import pytest

from adhere.suites.manyih import (
    META_PROMPTS,
    Tagged,
    conflicts,
    ordinal_ranks,
    parse_tags,
    render_prompt,
    resolve,
    strongest_first,
    winners_from_prompt,
)

STYLE_OF = {
    "two spaces": "indent_2",
    "four spaces": "indent_4",
    "tabs": "indent_tab",
    "spaces": "indent_spaces",
    "snake": "naming_snake",
    "camel": "naming_camel",
}


def items(*spec: tuple[str, int]) -> list[Tagged]:
    """Instructions in prompt order: (text, scalar value)."""
    return [Tagged(key=i, value=v, position=i, text=t) for i, (t, v) in enumerate(spec)]


def winners(prompt: str) -> list[str]:
    return winners_from_prompt(prompt, lambda text: STYLE_OF[text], conflicts)


def test_ordinal_ranks_are_dense_and_inverted() -> None:
    assert ordinal_ranks([10, 90, 40, 90]) == {90: 1, 40: 2, 10: 3}


@pytest.mark.parametrize("interface", ["ordinal", "scalar"])
def test_rendering_round_trips_through_the_tags(interface: str) -> None:
    spec = items(("tabs", 30), ("four spaces", 70), ("snake", 30))
    prompt = render_prompt("Write f.", spec, interface)  # type: ignore[arg-type]
    tags = parse_tags(prompt)
    assert [t.text for t in tags] == ["tabs", "four spaces", "snake"]
    if interface == "ordinal":
        assert "[[Privilege 2]]tabs[[/Privilege]]" in prompt
        assert [t.level for t in tags] == [2, 1, 2]
    else:
        assert "[[z=70]]four spaces[[/z]]" in prompt
        assert [t.level for t in tags] == [30, 70, 30]


@pytest.mark.parametrize("interface", ["ordinal", "scalar"])
def test_stronger_wins_in_both_interfaces(interface: str) -> None:
    spec = items(("tabs", 20), ("four spaces", 80), ("camel", 50), ("snake", 60))
    prompt = render_prompt("t", spec, interface)  # type: ignore[arg-type]
    assert winners(prompt) == ["indent_4", "naming_snake"]


@pytest.mark.parametrize("interface", ["ordinal", "scalar"])
def test_a_tie_goes_to_the_later_instruction(interface: str) -> None:
    later_tabs = items(("four spaces", 50), ("tabs", 50))
    assert winners(render_prompt("t", later_tabs, interface)) == ["indent_tab"]  # type: ignore[arg-type]
    later_four = items(("tabs", 50), ("four spaces", 50))
    assert winners(render_prompt("t", later_four, interface)) == ["indent_4"]  # type: ignore[arg-type]


def test_tie_then_compatible_instruction_kept() -> None:
    # two spaces and four spaces tie (later wins: two spaces); "spaces" is weaker but
    # compatible with two spaces, so it is kept; tabs conflicts and loses.
    spec = items(("four spaces", 50), ("two spaces", 50), ("tabs", 40), ("spaces", 10))
    for interface in ("ordinal", "scalar"):
        prompt = render_prompt("t", spec, interface)  # type: ignore[arg-type]
        assert winners(prompt) == ["indent_2", "indent_spaces"]


def test_strongest_first_and_resolve() -> None:
    entries = [("a", 2, 0), ("b", 1, 1), ("c", 2, 2)]
    assert strongest_first(entries, "ordinal") == ["b", "c", "a"]
    assert strongest_first(entries, "scalar") == ["c", "a", "b"]
    clash = {frozenset("ca")}
    kept = resolve(["c", "a", "b"], lambda x, y: frozenset(x + y) in clash)
    assert kept == ["c", "b"]


def test_mixed_interfaces_are_rejected() -> None:
    with pytest.raises(ValueError, match="one interface"):
        winners("[[z=3]]tabs[[/z]] [[Privilege 1]]snake[[/Privilege]]")


def test_meta_prompts_state_the_rules_in_both_interfaces() -> None:
    ordinal, scalar = META_PROMPTS["ordinal"], META_PROMPTS["scalar"]
    assert "[[Privilege N]]" in ordinal and "smaller N" in ordinal
    assert "[[z=V]]" in scalar and "larger V" in scalar
    for text in (ordinal, scalar):
        assert "later in the list" in text and "function name" in text
