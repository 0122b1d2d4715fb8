"""PACIFIC's per-instruction plot (the paper's Figure 6) measured in headless Chromium: all
22 instructions and six long model names, no label covering another or clipped."""

from __future__ import annotations

import random
import re
from pathlib import Path

from adhere.core import Verdict
from adhere.metrics import ScoredTrial, Table
from adhere.report import Report
from adhere.report._pacific import FIGURE_FILE, add_instruction_accuracy
from adhere.suites.pacific import GeneratorParams, generate, sample_to_instance
from tests.integration.viewer._chromium import Chromium
from tests.integration.viewer.test_plot_geometry import LONG, assert_readable, browser, measure

__all__ = ["browser"]  # the module-scoped Chromium fixture, shared with the geometry tests

MODELS = [*LONG[:3], "claude-3-5-haiku-20241022", "gpt-oss-120b", "Llama-4-Maverick-17B-128E"]


def test_the_instruction_plot_is_readable(browser: Chromium, tmp_path: Path) -> None:
    params = GeneratorParams(instructions=(5, 10), lengths=(3, 10), per_language=8, seed=1)
    instances = {i.id: i for i in (sample_to_instance(s) for s in generate(params))}
    rng = random.Random(2)
    trials = [
        ScoredTrial(
            keys={"model": model, "scaffold": "chat", "instance": instance.id},
            status="ok",
            verdicts=[
                Verdict(check_id=c.id, result=rng.choice(["pass", "fail"]), decided_by="v")
                for c in instance.checks
            ],
        )
        for model in MODELS
        for instance in instances.values()
    ]
    report = Report(
        rollout="r", suite="pacific", isr_name="p", csr_name="i", summary=Table("s", [], [])
    )
    add_instruction_accuracy(report, trials, instances)
    _title, svg = report.plots[FIGURE_FILE]
    found = measure(browser, svg, tmp_path / FIGURE_FILE)
    assert_readable(found)
    labels = {t["text"] for t in found["texts"]}
    groups = {label for label in labels if re.fullmatch(r"\d\d [a-z0-9_]+", label)}
    assert len(groups) == 22  # one group per instruction, none cut
