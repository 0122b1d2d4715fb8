import json

import pytest

from adhere.core._types import Trial, Verdict
from adhere.errors import SpecError
from adhere.judging._agreement import (
    cohen_kappa,
    exact_match,
    fleiss_kappa,
    panel_agreement,
    verdict_labels,
)
from adhere.judging._agreement_human import (
    human_agreement,
    load_human_labels,
    resolve_human_labels,
)
from adhere.judging._agreement_ranks import kendall_tau, rank, rank_stability


def from_table(table):
    """Two rating lists from a 2×2 table {(a, b): count}."""
    a, b = [], []
    for (x, y), count in table.items():
        a += [x] * count
        b += [y] * count
    return a, b


def test_cohen_kappa_textbook_example():
    # 50 items: both yes 20, A yes/B no 5, A no/B yes 10, both no 15.
    # p_o = 0.7; p_e = 0.5·0.6 + 0.5·0.4 = 0.5; κ = 0.4.
    a, b = from_table({("y", "y"): 20, ("y", "n"): 5, ("n", "y"): 10, ("n", "n"): 15})
    assert exact_match(a, b) == pytest.approx(0.7)
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_cohen_kappa_three_labels_by_hand():
    # 100 items over pass / fail / n/a. Diagonal 25 + 20 + 34 → p_o = 0.79; A's totals
    # 30 / 30 / 40, B's 30 / 27 / 43 → p_e = (900 + 810 + 1720) / 10⁴ = 0.343.
    table = {
        ("p", "p"): 25, ("p", "f"): 2, ("p", "n"): 3,
        ("f", "p"): 4, ("f", "f"): 20, ("f", "n"): 6,
        ("n", "p"): 1, ("n", "f"): 5, ("n", "n"): 34,
    }  # fmt: skip
    a, b = from_table(table)
    assert cohen_kappa(a, b) == pytest.approx((0.79 - 0.343) / (1 - 0.343))


def test_cohen_kappa_perfect_chance_and_worse_than_chance():
    assert cohen_kappa(["p", "f", "p"], ["p", "f", "p"]) == pytest.approx(1.0)
    # Observed 0.5 = expected 0.5 → 0.
    assert cohen_kappa(["p", "p", "f", "f"], ["p", "f", "p", "f"]) == pytest.approx(0.0)
    assert cohen_kappa(["p", "f"], ["f", "p"]) == pytest.approx(-1.0)


def test_degenerate_kappa_is_none():
    assert cohen_kappa(["pass"] * 5, ["pass"] * 5) is None
    assert cohen_kappa([], []) is None
    assert exact_match([], []) is None
    assert fleiss_kappa([["pass", "pass"]] * 4) is None
    assert fleiss_kappa([]) is None
    with pytest.raises(ValueError, match="differ in length"):
        cohen_kappa(["p"], [])


def test_fleiss_kappa_textbook_example():
    # Fleiss (1971) style table: 10 subjects, 14 raters, 5 categories → κ ≈ 0.210.
    counts = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    ratings = [[str(k) for k, n in enumerate(row) for _ in range(n)] for row in counts]
    assert fleiss_kappa(ratings) == pytest.approx(0.2099, abs=1e-4)
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa([["a", "b"], ["a"]])


def test_fleiss_equals_agreement_of_two_raters_scott_pi():
    # With two raters Fleiss' κ is Scott's π: p_o 0.7, pooled p_e = 0.55² + 0.45² = 0.505.
    a, b = from_table({("y", "y"): 20, ("y", "n"): 5, ("n", "y"): 10, ("n", "n"): 15})
    assert fleiss_kappa(list(zip(a, b, strict=True))) == pytest.approx((0.7 - 0.505) / 0.495)


def test_panel_agreement_over_shared_decided_items():
    def verdicts(results):
        return [Verdict(check_id=f"c{i}", result=r, decided_by="j") for i, r in enumerate(results)]

    labels = {
        "A": verdict_labels("t", verdicts(["pass", "fail", "pass", "n/a", "pass"])),
        "B": verdict_labels("t", verdicts(["pass", "fail", "fail", "n/a", "error"])),
        "C": verdict_labels("t", verdicts(["pass", "pass", "pass", "n/a", "pass"])),
    }
    assert ("t", "c4") not in labels["B"]
    agreement = panel_agreement(labels)
    ab = agreement.pairs[0]
    assert (ab.judge_a, ab.judge_b, ab.items) == ("A", "B", 4)
    assert ab.exact_match == pytest.approx(0.75)
    # A: p,f,p,n  B: p,f,f,n → p_o .75; p_e = (2·1 + 1·2 + 1·1)/16 = 5/16.
    assert ab.kappa == pytest.approx((0.75 - 5 / 16) / (1 - 5 / 16))
    assert agreement.fleiss_items == 4
    assert agreement.fleiss_kappa is not None
    assert agreement.mean_pairwise_kappa == pytest.approx(sum(p.kappa for p in agreement.pairs) / 3)


def test_rank_and_kendall_tau():
    assert rank({"a": 0.9, "b": 0.5, "c": 0.9, "d": 0.1}) == {"a": 1, "b": 3, "c": 1, "d": 4}
    assert kendall_tau([1, 2, 3], [1, 3, 2]) == pytest.approx(1 / 3)
    assert kendall_tau([1, 1, 2], [1, 2, 3]) == pytest.approx(0.816496580927726)
    assert kendall_tau([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert kendall_tau([1, 1, 1], [1, 2, 3]) is None
    assert kendall_tau([1], [1]) is None


def test_rank_stability_across_judges():
    scores = {
        "A": {"m1": 0.30, "m2": 0.20, "m3": 0.10, "m4": 0.5},
        "B": {"m1": 0.25, "m2": 0.28, "m3": 0.05, "m4": None},
        "C": {"m1": 0.40, "m2": 0.30, "m3": 0.20},
    }
    stability = rank_stability(scores)
    assert stability.models == ["m1", "m2", "m3"]
    assert stability.ranks["B"] == {"m1": 2, "m2": 1, "m3": 3}
    assert stability.shifts == {"m1": 1, "m2": 1, "m3": 0}
    assert stability.max_shift == 1
    assert stability.tau[("A", "C")] == pytest.approx(1.0)
    assert stability.tau[("A", "B")] == pytest.approx(1 / 3)
    assert rank_stability({}).max_shift == 0


def write(tmp_path, lines):
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(json.dumps(x) if not isinstance(x, str) else x for x in lines))
    return path


def test_human_labels_load_resolve_and_agree(tmp_path):
    t0 = Trial(rollout="r", model="m", scaffold="kilo", instance="i1", repeat=0)
    t1 = Trial(rollout="r", model="m", scaffold="kilo", instance="i1", repeat=1)
    path = write(
        tmp_path,
        [
            {"trial_id": t0.id, "check_id": "a", "label": "PASS"},
            {"trial_id": t0.id, "check_id": "b", "label": "fail", "note": "no tests run"},
            "",
            {
                "instance": "i1",
                "model": "m",
                "scaffold": "kilo",
                "repeat": 1,
                "check_id": "a",
                "label": "n/a",
                "annotator": "ana",
            },
            {"instance": "i9", "model": "m", "scaffold": "kilo", "check_id": "a", "label": "pass"},
        ],
    )
    labels = load_human_labels(path)
    assert [x.label for x in labels] == ["pass", "fail", "n/a", "pass"]
    assert labels[1].where.endswith("labels.jsonl:2")
    resolved = resolve_human_labels(labels, [t0, t1])
    assert resolved.labels == {(t0.id, "a"): "pass", (t0.id, "b"): "fail", (t1.id, "a"): "n/a"}
    assert [x.instance for x in resolved.unresolved] == ["i9"]
    judges = {
        "A": {(t0.id, "a"): "pass", (t0.id, "b"): "fail", (t1.id, "a"): "n/a"},
        "B": {(t0.id, "a"): "pass", (t0.id, "b"): "pass"},
    }
    agreement = human_agreement(resolved.labels, judges)
    assert agreement["A"].exact_match == 1.0 and agreement["A"].kappa == pytest.approx(1.0)
    assert agreement["B"].items == 2 and agreement["B"].not_judged == 1
    assert agreement["B"].exact_match == 0.5
    assert agreement["B"].kappa == pytest.approx(0.0)
    only_ana = resolve_human_labels(labels, [t0, t1], annotator="ana")
    assert only_ana.labels == {(t1.id, "a"): "n/a"}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 1: invalid JSON"),
        ([1], "expected a JSON object"),
        ({"trial_id": "t", "label": "pass"}, "check_id: required field is missing"),
        ({"trial_id": "t", "check_id": "a", "label": "ok"}, "label: expected pass, fail or n/a"),
        ({"trial_id": "t", "check_id": "a", "label": "pass", "lable": 1}, "lable: unknown field"),
        ({"check_id": "a", "label": "pass", "model": "m"}, "instance: name the trial"),
        (
            {"trial_id": "t", "instance": "i", "check_id": "a", "label": "pass"},
            "instance: give either trial_id",
        ),
        (
            {
                "instance": "i",
                "model": "m",
                "scaffold": "s",
                "repeat": -1,
                "check_id": "a",
                "label": "pass",
            },
            "repeat: expected an integer",
        ),
        ({"trial_id": 3, "check_id": "a", "label": "pass"}, "trial_id: expected a non-empty"),
    ],
)
def test_human_label_errors_name_file_line_and_field(tmp_path, line, message):
    path = write(tmp_path, [line])
    with pytest.raises(SpecError, match="labels.jsonl") as caught:
        load_human_labels(path)
    assert message in str(caught.value)


def test_duplicate_and_ambiguous_human_labels(tmp_path):
    same = {"trial_id": "t", "check_id": "a", "label": "pass"}
    with pytest.raises(SpecError, match="already labelled at .*labels.jsonl:1"):
        load_human_labels(write(tmp_path, [same, same]))
    two_people = write(tmp_path, [{**same, "annotator": "x"}, {**same, "annotator": "y"}])
    labels = load_human_labels(two_people)
    trial = Trial(rollout="r", model="m", scaffold="s", instance="i", repeat=0)
    labels = [x.__class__(**{**x.__dict__, "trial_id": trial.id}) for x in labels]
    with pytest.raises(SpecError, match="choose an annotator"):
        resolve_human_labels(labels, [trial])
    assert len(resolve_human_labels(labels, [trial], annotator="y").labels) == 1
    by_parts = load_human_labels(
        write(
            tmp_path,
            [{"instance": "i", "model": "m", "scaffold": "s", "check_id": "a", "label": "fail"}],
        )
    )
    other_rollout = Trial(rollout="r2", model="m", scaffold="s", instance="i", repeat=0)
    with pytest.raises(SpecError, match="matches 2 trials"):
        resolve_human_labels(by_parts, [trial, other_rollout])
    with pytest.raises(SpecError, match="cannot read file"):
        load_human_labels(tmp_path / "missing.jsonl")
