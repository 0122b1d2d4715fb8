"""PACIFIC's protocol option: each row of docs/pacific.md's "Paper protocol vs adhere
default" table is pinned here (the test named in the row's last column)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from adhere.core import ChatMessage, Trajectory
from adhere.errors import SpecError
from adhere.spec import BenchmarkSpec
from adhere.suites import get_suite
from adhere.suites.pacific import (
    ADHERE_TEMPLATES,
    INSTRUCTIONS,
    PAPER_TEMPLATES,
    GeneratorParams,
    PacificSuite,
    Protocol,
    generate,
    sample_to_instance,
)
from adhere.suites.pacific._instructions import INT_LIMIT, value_length
from adhere.suites.pacific._render import function_name, render_code
from adhere.suites.pacific._select import MAX_CHAIN_STRING, paper_step

GRID = GeneratorParams(instructions=(3, 5, 8, 10, 15), lengths=(3, 5, 10), per_language=6, seed=9)


def paper_grid() -> list:
    return list(generate(GeneratorParams(**{**GRID.__dict__, "selection": "paper"})))


def load(options: dict, generate_: dict | None = None, base: Path | None = None):
    spec = BenchmarkSpec.model_validate(
        {
            "suite": "pacific",
            "options": options,
            "source": {"generate": generate_ or {"instructions": 3, "perLanguage": 2, "seed": 4}},
        }
    )
    return PacificSuite(**options).load(spec, base_dir=base or Path("."), file="bench.yaml")


def reply_trajectory(instance, replies: list[str]) -> Trajectory:
    messages = []
    for turn, reply in zip(instance.turns, replies, strict=False):
        messages += [
            ChatMessage(role="user", content=turn),
            ChatMessage(role="assistant", content=reply),
        ]
    return Trajectory(system=instance.system_prompt, messages=messages)


# --- the options ----------------------------------------------------------------------


def test_protocols_resolve_and_single_choices_override() -> None:
    assert Protocol.from_options({}) == Protocol("adhere", "adhere", "adhere", "lenient")
    assert Protocol.from_options({"protocol": "paper"}) == Protocol(
        "paper", "paper", "paper", "strict"
    )
    mixed = Protocol.from_options({"protocol": "paper", "prompt": "adhere"})
    assert mixed.as_dict() == {"selection": "paper", "prompt": "adhere", "parse": "strict"}
    assert mixed.differences() == {"selection": "paper", "parse": "strict"}


@pytest.mark.parametrize(
    ("options", "field", "message"),
    [
        ({"protocol": "papr"}, "spec.options.protocol", "expected one of adhere, paper"),
        ({"selection": "greedy"}, "spec.options.selection", "expected one of adhere, paper"),
        ({"parse": "loose"}, "spec.options.parse", "expected one of lenient, strict"),
        ({"colour": 1}, "spec.options", "unknown PACIFIC options"),
        ({"templates": "x.txt"}, "spec.options.templates", "mapping of template names"),
        (
            {"templates": {"user": "x.txt"}},
            "spec.options.templates.user",
            "unknown template 'user'",
        ),
    ],
)
def test_bad_options_name_the_field(options: dict, field: str, message: str) -> None:
    with pytest.raises(SpecError, match=message) as info:
        get_suite("pacific", **options)
    assert info.value.field == field


# --- row: chain selection ---------------------------------------------------------------


def test_paper_selection_picks_from_the_length_category_the_value_calls_for() -> None:
    """Every step of a paper chain lies in the category §3.3.2's rule asks for, recomputed
    here by hand: longer below the target, shorter above, same length at it; another
    category only when that one is empty (then same length, then anything)."""
    samples = paper_grid()
    assert samples and all(s.selection == "paper" for s in samples)
    checked = 0
    for sample in samples:
        value = sample.initial
        for step in sample.steps:
            length = value_length(value)
            options = []
            for ins in INSTRUCTIONS:
                if ins.in_type != ("int" if isinstance(value, int) else "str") or not ins.accepts(
                    value
                ):
                    continue
                out = ins(value)
                if (0 <= out < INT_LIMIT) if isinstance(out, int) else len(out) <= MAX_CHAIN_STRING:
                    options.append((ins.paper_id, value_length(out) - length))
            want = (
                1 if length < sample.target_length else -1 if length > sample.target_length else 0
            )
            same_sign = [pid for pid, d in options if (d > 0) - (d < 0) == want]
            keep = [pid for pid, d in options if d == 0]
            allowed = same_sign or keep or [pid for pid, _ in options]
            assert step.paper_id in allowed, (sample.id, step)
            value = step.expected
            checked += 1
    assert checked > 1000


def test_paper_selection_may_repeat_an_instruction_adhere_never_does() -> None:
    paper = paper_grid()
    adhere = list(generate(GRID))

    def repeats(samples: list) -> int:
        pairs = [(a, b) for s in samples for a, b in zip(s.steps, s.steps[1:], strict=False)]
        return sum(a.paper_id == b.paper_id for a, b in pairs)

    assert repeats(paper) > 0
    assert repeats(adhere) == 0


def test_paper_selection_has_no_exploration_step() -> None:
    """adhere picks one step in five uniformly; the paper's rule never leaves its category.
    With a value below the target, every pick over many draws lengthens it."""
    rng = random.Random(3)
    picks = {paper_step(rng, 5, 20)[0].paper_id for _ in range(300)}  # type: ignore[index]
    lengthening = {
        ins.paper_id
        for ins in INSTRUCTIONS
        if ins.in_type == "int" and value_length(ins(5)) > value_length(5)
    }
    assert picks and picks <= lengthening


def test_both_selections_start_from_the_same_value_and_ids_tell_them_apart() -> None:
    paper = {s.id.replace("pacific-paper-", "pacific-"): s for s in paper_grid()}
    adhere = {s.id: s for s in generate(GRID)}
    assert paper.keys() == adhere.keys()
    assert all(paper[k].initial == adhere[k].initial for k in adhere)
    assert sum(paper[k].steps != adhere[k].steps for k in adhere) > len(adhere) // 2


def test_benchmark_protocol_paper_generates_paper_chains() -> None:
    loaded = load({"protocol": "paper"})
    assert loaded and all(i.id.startswith("pacific-paper-") for i in loaded)
    assert all(i.metadata["sample"]["selection"] == "paper" for i in loaded)
    assert all(
        i.metadata["protocol"]
        == {"name": "paper", "selection": "paper", "prompt": "paper", "parse": "strict"}
        for i in loaded
    )
    adhere_chains = load({"protocol": "paper", "selection": "adhere"})
    assert all(not i.id.startswith("pacific-paper-") for i in adhere_chains)
    assert all("selection" not in i.metadata["sample"] for i in adhere_chains)


def test_a_file_of_the_other_selection_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    path.write_text("".join(s.record_json() + "\n" for s in generate(GRID)), encoding="utf-8")
    spec = BenchmarkSpec.model_validate(
        {"suite": "pacific", "options": {"protocol": "paper"}, "source": {"path": str(path)}}
    )
    with pytest.raises(SpecError, match="--selection paper") as info:
        PacificSuite(protocol="paper").load(spec, base_dir=tmp_path)
    assert f"{path}:1" in str(info.value)
    assert info.value.field == "selection"
    # The same file under the default protocol, and a paper file under protocol: paper, load.
    assert PacificSuite().load(spec.model_copy(update={"options": {}}), base_dir=tmp_path)
    path.write_text("".join(s.record_json() + "\n" for s in paper_grid()[:5]), encoding="utf-8")
    assert len(PacificSuite(protocol="paper").load(spec, base_dir=tmp_path)) == 5


def test_default_instances_are_what_they_were_before_protocols() -> None:
    """No `protocol` metadata and no `selection` in the sample: the instance digest (the
    trial fingerprint's `instance` part) of a default run is unchanged."""
    for instance in load({}):
        assert set(instance.metadata) == {
            "language", "kind", "mode", "instructions", "length", "difficulty", "sample"
        }  # fmt: skip
        assert set(instance.metadata["sample"]) == {
            "id", "language", "kind", "mode", "instructions", "target_length", "seed",
            "initial", "steps",
        }  # fmt: skip
        assert instance.system_prompt == ADHERE_TEMPLATES.system


# --- row: prompts ----------------------------------------------------------------------


def test_paper_prompt_layout_prompt_mode() -> None:
    sample = next(s for s in paper_grid() if isinstance(s.initial, str) and s.instructions == 8)
    instance = sample_to_instance(
        sample, PAPER_TEMPLATES, Protocol.from_options({"protocol": "paper"})
    )
    assert instance.system_prompt == ""  # the paper shows no system prompt
    (turn,) = instance.turns
    head, rest = turn.split(f"\n\nInput: {sample.initial}\n\nList of instructions:\n\n", 1)
    display = {"python": "Python", "java": "Java", "cpp": "C++"}[sample.language]
    assert f"instructions written in {display}." in head
    assert "exactly 8 pairs" in head
    items, tail = rest.rsplit("\n\n", 1)
    assert "[ANSWER][i] [\\ANSWER]" in tail
    # one item per step, numbered, each with its instruction's whole code (repeats too)
    expected = "\n\n".join(
        f"Instruction {i}:\n```{sample.language}\n{render_code(s.paper_id, sample.language)}\n```"
        for i, s in enumerate(sample.steps, start=1)
    )
    assert items == expected


def test_paper_prompt_layout_chat_mode() -> None:
    params = GeneratorParams(
        instructions=(4,), lengths=(5,), per_language=2, seed=1, mode="chat", selection="paper"
    )
    for sample in generate(params):
        instance = sample_to_instance(sample, PAPER_TEMPLATES)
        first, *later = instance.turns
        code1 = render_code(sample.steps[0].paper_id, sample.language)
        item1 = f"Instruction 1:\n```{sample.language}\n{code1}\n```"
        assert first.endswith(f"\n\nInput: {sample.initial}\n{item1}")
        assert "one instruction a message" in first
        for k, turn in enumerate(later, start=2):
            code = render_code(sample.steps[k - 1].paper_id, sample.language)
            assert turn == f"Instruction {k}:\n```{sample.language}\n{code}\n```"


FORMAT = (
    "Write strings exactly, without quotes, and integers in decimal. Give each result as "
    "[ANSWER][i] result [\\ANSWER], where i is the step number."
)


def adhere_text_by_hand(sample) -> list[str]:
    """adhere's wording as it was before templates, written out here line by line."""
    lang = {"python": "Python", "java": "Java", "cpp": "C++"}[sample.language]
    shown = json.dumps(sample.initial) if isinstance(sample.initial, str) else sample.initial
    ids = [s.paper_id for s in sample.steps]
    name = {pid: function_name(pid, sample.language) for pid in ids}
    if sample.mode == "prompt":
        unique = list(dict.fromkeys(ids))
        block = "\n\n".join(render_code(pid, sample.language) for pid in unique)
        lines = [f"Here are some {lang} functions:", "", f"```{sample.language}\n{block}\n```", ""]
        lines += [f"Start from the input {shown}. Apply the {len(ids)} steps below in order; "
                  "each step works on the result of the step before it.", ""]  # fmt: skip
        lines += [f"Step {i}: call `{name[pid]}` on "
                  + ("the input." if i == 1 else "the previous result.")
                  for i, pid in enumerate(ids, start=1)]  # fmt: skip
        lines += ["", f"{FORMAT} Give exactly one answer for each step, numbered 1 to {len(ids)}."]
        return ["\n".join(lines)]
    turns = []
    for k, pid in enumerate(ids):
        lines = []
        if k == 0:
            intro = ("We will transform a value step by step, one step per message. Answer "
                     "each step before the next one arrives.")  # fmt: skip
            lines += [intro, "", f"The input is {shown}.", ""]
        if pid not in ids[:k]:
            code = render_code(pid, sample.language)
            lines += [f"Here is a {lang} function:", "", f"```{sample.language}\n{code}\n```", ""]
        target = "the input" if k == 0 else f"the result of step {k}"
        only = f"Answer only step {k + 1}, as [ANSWER][{k + 1}] result [\\ANSWER]."
        lines += [f"Step {k + 1}: call `{name[pid]}` on {target}.", "", f"{FORMAT} {only}"]
        turns.append("\n".join(lines))
    return turns


@pytest.mark.parametrize("mode", ["prompt", "chat"])
def test_adhere_prompt_is_unchanged_by_the_templates(mode: str) -> None:
    """adhere's templates give exactly adhere's rendering from before templates."""
    params = GeneratorParams(instructions=(3, 8), lengths=(3, 10), per_language=2, seed=5,
                             mode=mode)  # type: ignore[arg-type]  # fmt: skip
    for sample in generate(params):
        instance = sample_to_instance(sample)
        assert instance.turns == adhere_text_by_hand(sample)
        assert instance.system_prompt == (
            "You trace programs by hand. Do not run code and do not call tools. Work out each "
            "value yourself and report it in exactly the answer format you are asked for."
        )


# --- row: parsing ----------------------------------------------------------------------


LENIENT_FORMS = [
    "[ANSWER][{i}] {v} [/ANSWER]",
    "[answer][{i}] {v} [\\answer]",
    "[ANSWER] [{i}] {v} [\\ANSWER]",
]


@pytest.mark.parametrize("form", LENIENT_FORMS)
def test_strict_parsing_takes_only_the_papers_pattern(form: str) -> None:
    lenient = load({})[0]
    strict = load({"parse": "strict"})[0]
    assert strict.metadata["protocol"] == {"name": "adhere", "parse": "strict"}
    values = [s["expected"] for s in lenient.metadata["sample"]["steps"]]
    reply = "\n".join(form.format(i=i, v=v) for i, v in enumerate(values, start=1))
    suite = PacificSuite()  # scoring reads the choice from the instance, not the options
    assert all(v.result == "pass" for v in suite.score(lenient, reply_trajectory(lenient, [reply])))
    verdicts = suite.score(strict, reply_trajectory(strict, [reply]))
    assert [v.details["category"] for v in verdicts] == ["missing"] * len(values)
    exact = "\n".join(f"[ANSWER][{i}] {v} [\\ANSWER]" for i, v in enumerate(values, start=1))
    assert all(v.result == "pass" for v in suite.score(strict, reply_trajectory(strict, [exact])))


def test_strict_answer_never_runs_over_the_next_opening_tag() -> None:
    from adhere.suites.pacific import parse_reply

    parsed = parse_reply("[ANSWER][1] a [/ANSWER] [ANSWER][2] b [\\ANSWER]", strict=True)
    assert parsed.answers == {2: ["b"]}


@pytest.mark.parametrize(
    ("text", "category"),
    [('"{v}"', "correct"), ("`{v}`", "correct"), ("{v} {v}", "wrong")],
)
def test_answer_cleaning_is_the_same_under_both(text: str, category: str) -> None:
    for options in ({}, {"protocol": "paper"}):
        instance = load(options, {"instructions": 1, "perLanguage": 3, "seed": 11})[0]
        value = instance.metadata["sample"]["steps"][0]["expected"]
        reply = f"[ANSWER][1] {text.format(v=value)} [\\ANSWER]"
        verdict = PacificSuite().score(instance, reply_trajectory(instance, [reply]))[0]
        assert verdict.details["category"] == category, options


def test_oracle_passes_under_the_paper_protocol_in_both_modes() -> None:
    for mode in ("prompt", "chat"):
        suite = PacificSuite(protocol="paper")
        for instance in load(
            {"protocol": "paper"}, {"instructions": 4, "perLanguage": 2, "mode": mode}
        ):
            replies = [
                suite.oracle_reply(instance, t, lambda _k: False)
                for t in range(len(instance.turns))
            ]
            assert all(
                v.result == "pass"
                for v in suite.score(instance, reply_trajectory(instance, replies))
            )


def test_every_row_of_the_docs_table_names_tests_that_exist() -> None:
    from tests.helpers import ROOT

    text = (ROOT / "docs" / "pacific.md").read_text(encoding="utf-8")
    table = text.split("## Paper protocol vs adhere default", 1)[1].split("\n\n| choice", 1)[1]
    rows = [line for line in ("| choice" + table).split("\n\n", 1)[0].splitlines()[2:]]
    assert len(rows) >= 7
    options = {o for row in rows for o in re.findall(r"\(`(\w+)`\)", row.split(" | ")[0])}
    assert options == {"selection", "prompt", "parse", "path"}  # path: a samples file
    here = Path(__file__).read_text(encoding="utf-8")
    for row in rows:
        names = re.findall(r"::(test_\w+)|`test_protocol\.py::(test_\w+)`", row.split(" | ")[-1])
        found = [a or b for a, b in names]
        assert found, row
        for name in found:
            assert f"def {name}(" in here, name
