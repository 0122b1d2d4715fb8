"""The paper's Table 3 formulations and the Appendix B.6 rule edits, as Benchmark options."""

from fractions import Fraction
from pathlib import Path

import pytest

from adhere.errors import SpecError
from adhere.spec import BenchmarkSpec
from adhere.suites import get_suite
from adhere.suites.guidebench import CouponParams, generate_coupon_tasks, reorder, rewrite
from adhere.suites.guidebench._coupon_json import problem_from_json
from adhere.suites.guidebench._coupon_text import CATEGORY_NAMES, KIND_NAMES, coupon_title
from adhere.suites.guidebench._coupons import Kind, Purchase, money, robust_total
from adhere.suites.guidebench._load import parse_task
from adhere.suites.guidebench._published_math import reading_of
from adhere.suites.guidebench._rule_edit import edit_rule

DATA = Path(__file__).resolve().parents[4] / "shared" / "data" / "guidebench"


def spec(**source) -> BenchmarkSpec:
    return BenchmarkSpec.model_validate({"suite": "guidebench", "source": source})


def published(**options):
    suite = get_suite("guidebench", perCategory=3, **options)
    return suite.load(spec(path=str(DATA)), base_dir=Path("."))


@pytest.fixture(scope="module")
def generated():
    records = generate_coupon_tasks(CouponParams(n=12, seed=5))
    return [parse_task(r, "math", i, where=f"g[{i}]") for i, r in enumerate(records)]


def test_reorder_shuffles_the_rules_deterministically_by_seed() -> None:
    plain = {i.id: i for i in published()}
    first = {i.id: i for i in published(reorder=True, seed=1)}
    again = {i.id: i for i in published(reorder=True, seed=1)}
    other = {i.id: i for i in published(reorder=True, seed=2)}
    assert [i.turns for i in first.values()] == [i.turns for i in again.values()]
    assert any(first[k].turns != other[k].turns for k in first)
    for key, instance in first.items():
        assert instance.turns != plain[key].turns  # every task here has ≥ 2 rules
        assert instance.metadata["variant"] == {"reorder": True, "seed": 1}
    # the same rules, another order
    tasks = [parse_task(r, "math", 0, where="x") for r in generate_coupon_tasks(CouponParams(1, 3))]
    shuffled = reorder(tasks[0], 4)
    assert sorted(shuffled.guidelines, key=str) == sorted(tasks[0].guidelines, key=str)
    assert shuffled.guidelines != tasks[0].guidelines


@pytest.mark.parametrize("protocol", ["adhere", "paper"])
def test_two_shots_show_two_other_tasks_of_the_category_with_their_answers(protocol) -> None:
    plain = {i.id: i for i in published(protocol=protocol)}
    shot = {i.id: i for i in published(protocol=protocol, shots=2, seed=3)}
    assert [i.turns for i in shot.values()] == [
        i.turns for i in published(protocol=protocol, shots=2, seed=3)
    ]
    for key, instance in shot.items():
        turn = instance.turns[0]
        assert turn.endswith(plain[key].turns[0])  # the task itself comes last, unchanged
        assert turn.count("【示例 1】") == 1 and turn.count("【示例 2】") == 1
        assert "【示例 3】" not in turn
        demos = turn[: -len(plain[key].turns[0])]
        assert plain[key].turns[0] not in demos  # never the task itself
        shown = "CandidateAnswer" if instance.metadata["category"] != "chat" else "OptimalOption"
        if protocol == "paper" and instance.metadata["category"] in ("price", "math", "chat"):
            assert demos.count(f'{{"{shown}": ') == 2  # each demo's answer, in the paper's shape
        if protocol == "adhere":
            # each demo question shows the answer format once, each demo answer once
            assert demos.count('{"answer": ') == 4
            assert demos.count("的回答】") == 2
    with pytest.raises(SpecError, match="0 or 2"):
        get_suite("guidebench", shots=1)


def _run(program: str) -> dict:
    scope: dict = {}
    exec(compile(program, "<rules>", "exec"), scope)  # the program is this project's own output
    return scope


def check_program(scope: dict, coupon, cid: str) -> None:
    """The coupon's program agrees with the coupon model on every input tried."""
    for category in [*CATEGORY_NAMES, "other"]:
        name = CATEGORY_NAMES.get(category, "其他商品")
        assert scope[f"eligible_{cid}"](name) == coupon.applies_to(category)
    for day in range(1, 32):
        for weekday in range(7):
            ok = coupon.window.allows(Purchase(day, weekday))
            assert scope[f"usable_{cid}"](day, weekday) == ok
    for amount in (Fraction(0), Fraction(99), Fraction(400), Fraction(650), Fraction(1250)):
        # the program works in floats, as a program would: equal up to rounding
        got = Fraction(scope[f"apply_{cid}"](int(amount))).limit_denominator(1000)
        if coupon.kind == Kind.DISCOUNT:
            want = amount * coupon.rate
        elif amount < coupon.threshold:
            want = amount
        elif coupon.kind == Kind.THRESHOLD:
            want = amount - coupon.amount
        else:
            want = max(Fraction(0), amount - coupon.amount)
        assert got == want
    kinds = set(Kind) if coupon.alone else coupon.forbids
    assert scope[f"REFUSES_{cid}"] == sorted(KIND_NAMES[k] for k in kinds)


def test_program_rewrite_is_executable_and_equivalent_to_the_coupons(generated) -> None:
    for task in generated:
        problem = problem_from_json(task.problem, where=task.id)
        shown = rewrite(task, "program")
        assert len(shown.guidelines) == len(problem.coupons) + 1
        assert {r.type for r in shown.guidelines} == {"规则程序"}
        for n, (coupon, rule) in enumerate(zip(problem.coupons, shown.guidelines, strict=False)):
            check_program(_run(rule.rule_text), coupon, f"c{n + 1}")
        policy = _run(shown.guidelines[-1].rule_text)
        assert policy["ORDER"] == [KIND_NAMES[k] for k in problem.policy.order]


def test_math_rewrite_states_every_coupon_as_formulas(generated) -> None:
    for task in generated:
        problem = problem_from_json(task.problem, where=task.id)
        shown = rewrite(task, "math")
        for coupon, rule in zip(problem.coupons, shown.guidelines, strict=False):
            text = rule.rule_text
            assert text.startswith(
                f"{coupon.id}（{KIND_NAMES[coupon.kind]}，{coupon_title(coupon)}）："
            )
            assert "x = Σ_{i∈S} p_i" in text
            if coupon.kind == Kind.DISCOUNT:
                assert f"x′ = {coupon.rate.numerator / coupon.rate.denominator:g} · x" in text
        assert shown.guidelines[-1].rule_text.startswith("计算顺序：")
        assert shown.context == task.context  # only the rules change


def test_rewrites_need_a_structured_problem(tmp_path: Path) -> None:
    suite = get_suite("guidebench", rewrite="program")
    with pytest.raises(SpecError, match="structured coupon problem") as caught:
        suite.load(spec(path=str(DATA / "price_tasks.json")), base_dir=tmp_path, file="b.yaml")
    assert caught.value.field == "spec.options.rewrite" and caught.value.file == "b.yaml"
    loaded = get_suite("guidebench", rewrite="math").load(spec(generate={"n": 3, "seed": 2}),
                                                          base_dir=tmp_path)  # fmt: skip
    assert all("规则公式" in i.turns[0] and "x′" in i.turns[0] for i in loaded)
    assert loaded[0].metadata["variant"] == {"rewrite": "math"}
    with pytest.raises(SpecError, match="ruleEdit"):
        get_suite("guidebench", rewrite="math", ruleEdit=True)


def test_published_math_is_rewritten_where_the_reading_reproduces_the_answer() -> None:
    # the whole data directory: only math tasks can be rewritten, and of them the 42
    # whose reading gives the published answer (docs/guidebench.md lists the other 10)
    loaded = get_suite("guidebench", rewrite="program").load(spec(path=str(DATA)),
                                                             base_dir=Path("."))  # fmt: skip
    assert {i.metadata["category"] for i in loaded} == {"math"}
    left_out = sorted(set(range(52)) - {i.metadata["index"] for i in loaded})
    assert left_out == [2, 3, 4, 13, 15, 27, 28, 30, 46, 47]
    for instance in loaded:
        reading = reading_of(instance.metadata["index"], instance.metadata["gold"])
        assert reading is not None
        for n, coupon in enumerate(reading.coupons, 1):
            check_program(_run(_program_of(instance, n)), coupon, f"c{n}")


def _program_of(instance, n: int) -> str:
    """The n-th coupon's program as the prompt shows it (adhere's frame: numbered rules)."""
    turn = instance.turns[0]
    start = turn.index(f"{n}. （规则程序）") + len(f"{n}. （规则程序）")
    end = turn.index(f"\n{n + 1}. （规则程序）", start)
    return turn[start:end]


def test_rule_edit_changes_one_rule_and_the_answer_follows(generated) -> None:
    for task in generated:
        made = edit_rule(task, 0)
        assert made is not None
        edited, edit = made
        assert edited.id == task.id + "-edit" and edited.context == task.context
        changed = [n for n, (a, b) in enumerate(zip(task.guidelines, edited.guidelines,
                                                    strict=True)) if a != b]  # fmt: skip
        assert len(changed) == 1
        old, new = task.guidelines[changed[0]], edited.guidelines[changed[0]]
        assert (old.type, old.rule_id) == (new.type, new.rule_id) and old.rule_text != new.rule_text
        assert (edit["before"], edit["after"], edit["original_answer"]) == (
            old.rule_text,
            new.rule_text,
            task.gold,
        )
        total = robust_total(problem_from_json(edited.problem, where=edited.id))
        assert total is not None and money(total) == edited.gold  # the solver's answer
        assert edited.gold != task.gold
        assert edit_rule(task, 0) == made  # deterministic by seed
    assert any(edit_rule(t, 0) != edit_rule(t, 1) for t in generated)


def test_rule_edit_option_adds_edited_twins_and_refuses_the_published_data(tmp_path) -> None:
    suite = get_suite("guidebench", ruleEdit=True)
    loaded = suite.load(spec(generate={"n": 4, "seed": 9}), base_dir=tmp_path)
    assert len(loaded) == 8
    for original, edited in zip(loaded[::2], loaded[1::2], strict=True):
        assert edited.id == original.id + "-edit"
        assert original.metadata["rule_edit"] == "original"
        assert original.metadata["edit_pair"] == edited.id
        assert edited.metadata["rule_edit"] == "edited"
        assert edited.metadata["edit_pair"] == original.id
        assert edited.metadata["edit_original_answer"] == original.metadata["gold"]
        assert edited.metadata["gold"] != original.metadata["gold"]
        # the oracle follows the edit; a wrong answer is the one from before the edit
        right = suite.oracle_reply(edited, 0, lambda item: False)
        stale = suite.oracle_reply(edited, 0, lambda item: item == "answer")
        assert edited.metadata["gold"] in right and original.metadata["gold"] in stale
    with pytest.raises(SpecError, match="published data has none") as caught:
        suite.load(spec(path=str(DATA)), base_dir=tmp_path, file="b.yaml")
    assert caught.value.field == "spec.options.ruleEdit"
