"""The coupon-task generator: determinism, the published shape, solver-checked answers."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from adhere.cli import main
from adhere.errors import SpecError
from adhere.suites.guidebench import CouponParams, generate_coupon_tasks, load_file, robust_total
from adhere.suites.guidebench._coupon_json import problem_from_json
from adhere.suites.guidebench._coupons import money


@pytest.fixture(scope="module")
def tasks():
    return generate_coupon_tasks(CouponParams(n=12, seed=5))


def test_same_seed_same_tasks_and_prefix_stable(tasks) -> None:
    assert generate_coupon_tasks(CouponParams(n=12, seed=5)) == tasks
    assert generate_coupon_tasks(CouponParams(n=4, seed=5)) == tasks[:4]
    assert generate_coupon_tasks(CouponParams(n=4, seed=6)) != tasks[:4]


def test_tasks_have_the_published_shape(tasks) -> None:
    published = json.loads(
        (Path(__file__).resolve().parents[4] / "shared/data/guidebench/math_tasks.json").read_text()
    )[0]
    for task in tasks:
        assert set(task) == set(published) | {"Id", "Problem"}
        assert set(task["Groundtruth"]) == set(published["Groundtruth"])
        assert all(set(rule) == {"type", "rule_id", "rule_text"} for rule in task["Guidelines"])
        assert task["Instruction"] == published["Instruction"]
        assert "最少需要支付多少钱" in task["Context"]


def test_answers_are_the_solvers_under_every_reading(tasks) -> None:
    for task in tasks:
        problem = problem_from_json(task["Problem"], where=task["Id"])
        total = robust_total(problem)
        assert total is not None and money(total) == task["Groundtruth"]["ReferenceAnswer"]
        assert task["Groundtruth"]["ReferenceAnswer"] in task["Groundtruth"]["ReferenceAnalysis"]


def test_some_rules_are_marked_as_updates() -> None:
    many = generate_coupon_tasks(CouponParams(n=40, seed=1))
    marked = [t for t in many if any("新增" in r["rule_text"] for r in t["Guidelines"])]
    assert 0 < len(marked) < len(many)


def test_the_loader_reads_and_checks_generated_files(tmp_path: Path, tasks) -> None:
    path = tmp_path / "fresh.json"
    path.write_text(json.dumps(tasks, ensure_ascii=False), encoding="utf-8")
    loaded = load_file(path)
    assert [t.id for t in loaded] == [t["Id"] for t in tasks]
    assert {t.category for t in loaded} == {"math"} and loaded[0].source == "generated"
    broken = [dict(t) for t in tasks]
    broken[2] = {**broken[2], "Groundtruth": {**broken[2]["Groundtruth"], "ReferenceAnswer": "1"}}
    path.write_text(json.dumps(broken, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(SpecError, match="differs from the solver") as err:
        load_file(path)
    assert err.value.file == f"{path}[2]"


def test_bad_parameters() -> None:
    with pytest.raises(SpecError) as err:
        generate_coupon_tasks(CouponParams(n=0))
    assert err.value.field == "n"


def test_cli_writes_a_task_file(tmp_path: Path) -> None:
    out = tmp_path / "coupons.json"
    result = CliRunner().invoke(
        main, ["generate", "guidebench-coupons", "--n", "3", "--seed", "5", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written == generate_coupon_tasks(CouponParams(n=3, seed=5))
