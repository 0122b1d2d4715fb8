"""Per-instruction accuracy (the paper's Figure 6) recomputed by hand from verdicts."""

from __future__ import annotations

import random

from adhere.core import Verdict
from adhere.metrics import ScoredTrial
from adhere.suites.pacific import (
    GeneratorParams,
    accuracy_tables,
    by_id,
    generate,
    instruction_accuracy,
    sample_to_instance,
)


def build():
    """Two models, 12 samples: random pass/fail steps, one upstream fault, one failed
    run, one trial with an errored step and one with a missing verdict."""
    params = GeneratorParams(instructions=(3, 5), lengths=(3, 5), per_language=1, seed=7)
    instances = {i.id: i for i in (sample_to_instance(s) for s in generate(params))}
    rng = random.Random(4)
    trials = []
    for model in ("m1", "m2"):
        for n, instance in enumerate(instances.values()):
            ids = [c.id for c in instance.checks]
            status, results = "ok", [rng.choice(["pass", "fail"]) for _ in ids]
            if model == "m1" and n == 0:
                status = "upstream_fault"
            if model == "m1" and n == 1:
                status, results = "error", ["error"] * len(ids)
            if model == "m2" and n == 2:
                results[1] = "error"
            verdicts = [
                Verdict(check_id=c, result=r, decided_by="pacific.answer")
                for c, r in zip(ids, results, strict=True)
            ]
            if model == "m2" and n == 3:
                verdicts = verdicts[:-1]
            keys = {"model": model, "scaffold": "chat", "instance": instance.id}
            trials.append(
                ScoredTrial(keys=keys, status=status, verdicts=verdicts, expected=tuple(ids))
            )
    return instances, trials


def by_hand(instances, trials):
    """(model, paper id) → [steps, correct, steps after a correct one, correct among them]."""
    out: dict[tuple[str, int], list[int]] = {}
    for trial in trials:
        instance = instances[trial.keys["instance"]]
        results = {v.check_id: v.result for v in trial.verdicts}
        if trial.status == "upstream_fault":
            continue
        if trial.status == "ok" and (
            "error" in results.values() or len(results) < len(instance.checks)
        ):
            continue
        ok_before = True
        for i, step in enumerate(instance.metadata["sample"]["steps"], start=1):
            good = trial.status == "ok" and results[f"step-{i}"] == "pass"
            cell = out.setdefault((trial.keys["model"], step["paper_id"]), [0, 0, 0, 0])
            cell[0] += 1
            cell[1] += good
            if ok_before:
                cell[2] += 1
                cell[3] += good
            ok_before = good
    return out


def test_tallies_match_a_count_by_hand() -> None:
    instances, trials = build()
    tallies, incomplete = instruction_accuracy(trials, instances, ["model"])
    assert incomplete == 2  # the errored step and the missing verdict
    got = {
        (key[0], pid): [t.steps, t.correct, t.after_correct, t.correct_after_correct]
        for key, per in tallies.items()
        for pid, t in per.items()
    }
    expected = by_hand(instances, trials)
    assert got == expected
    # the failed run counts: m1 has steps that are all wrong from instance 1
    failed = instances[list(instances)[1]]
    first = failed.metadata["sample"]["steps"][0]["paper_id"]
    assert got[("m1", first)][0] >= 1
    assert sum(v[0] for k, v in got.items() if k[0] == "m1") == sum(
        len(i.checks) for i in list(instances.values())[1:]
    )


def test_tables_show_the_shares() -> None:
    instances, trials = build()
    tallies, _ = instruction_accuracy(trials, instances, ["model"])
    expected = by_hand(instances, trials)
    wide, long = accuracy_tables(tallies, ["model"])
    assert wide.header == ["instruction", "m1", "m2"]
    for row in wide.rows:
        pid = int(row[0].split()[0])
        assert row[0] == f"{pid} {by_id(pid).name}"
        for model, cell in zip(("m1", "m2"), row[1:], strict=True):
            counts = expected.get((model, pid))
            want = "–" if counts is None else f"{100 * counts[1] / counts[0]:.1f}% ({counts[0]})"
            assert cell == want
    assert long.header[:6] == ["model", "#", "instruction", "steps", "correct", "accuracy"]
    for row in long.rows:
        steps, correct, after, good_after = expected[(row[0], int(row[1]))]
        assert row[3:6] == [str(steps), str(correct), f"{100 * correct / steps:.1f}%"]
        assert row[7] == str(after)
        assert row[8] == ("–" if not after else f"{100 * good_after / after:.1f}%")
        if row[6] != "–":
            low, high = (float(x) for x in row[6].rstrip("%").split("–"))
            assert low <= 100 * correct / steps <= high


def test_upstream_faults_only_and_other_suites_give_nothing() -> None:
    instances, trials = build()
    faults = [
        ScoredTrial(keys=t.keys, status="upstream_fault", verdicts=t.verdicts) for t in trials
    ]
    assert instruction_accuracy(faults, instances, ["model"]) == ({}, 0)
    other = {k: i.model_copy(update={"suite": "manyih"}) for k, i in instances.items()}
    assert instruction_accuracy(trials, other, ["model"]) == ({}, 0)
