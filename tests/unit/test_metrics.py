import re

import pytest

import adhere.metrics as metrics
from adhere.core import Verdict
from adhere.metrics import ScoredTrial, group_rates, rates, score_trial
from adhere.report import build_report, render_html, render_markdown


def v(result: str, category: str | None = None, **details) -> Verdict:
    extra = {"category": category} if category else {}
    return Verdict(check_id="c", result=result, decided_by="t", details={**extra, **details})  # type: ignore[arg-type]


def test_score_trial_excludes_na_and_holds_errors_apart_as_undecided() -> None:
    score = score_trial([v("pass"), v("n/a"), v("fail"), v("error")])
    assert (score.passed, score.applicable, score.errors, score.not_applicable) == (1, 2, 1, 1)
    assert score.undecided == 1 and not score.complete and not score.all_passed
    assert score_trial([v("pass"), v("n/a")]).all_passed
    assert not score_trial([v("n/a")]).all_passed


def test_an_expected_check_without_a_verdict_is_missing_and_blocks_a_pass() -> None:
    """The measured case: two checks passed by verifiers, two judge-bound checks never
    decided (no panel) — the trial used to count as passed."""
    verdicts = [Verdict(check_id=c, result="pass", decided_by="no_emoji") for c in ("SP-1", "SP-2")]
    expected = ("SP-1", "SP-2", "UQ-1", "UQ-2")
    score = score_trial(verdicts, expected)
    assert (score.passed, score.applicable, score.missing) == (2, 2, 2)
    assert not score.complete and not score.all_passed
    assert score_trial(verdicts, expected[:2]).all_passed  # nothing missing: it passes


def test_isr_and_csr() -> None:
    trials = [
        ScoredTrial(keys={"model": "m"}, status="ok", verdicts=[v("pass"), v("pass")]),
        ScoredTrial(
            keys={"model": "m"}, status="ok", verdicts=[v("pass"), v("fail"), v("fail"), v("pass")]
        ),
        ScoredTrial(keys={"model": "m"}, status="error", verdicts=[v("error"), v("error")]),
        ScoredTrial(keys={"model": "m"}, status="ok", verdicts=[v("n/a")]),  # nothing applicable
    ]
    r = rates(trials)
    assert r.trials == 4 and r.scored == 3 and r.trial_errors == 1
    assert r.isr == pytest.approx(1 / 3)
    assert r.csr == pytest.approx((1.0 + 0.5 + 0.0) / 3)
    assert r.categories["error"] == 2


def test_group_rates_and_categories() -> None:
    trials = [
        ScoredTrial(keys={"model": "a", "n": 3}, status="ok", verdicts=[v("pass", "correct")]),
        ScoredTrial(
            keys={"model": "a", "n": 10},
            status="ok",
            verdicts=[v("fail", "missing", extra_tags=[4])],
        ),
        ScoredTrial(keys={"model": "b", "n": 3}, status="ok", verdicts=[v("fail", "wrong")]),
    ]
    groups = group_rates(trials, ["model", "n"])
    assert list(groups) == [("a", 3), ("a", 10), ("b", 3)]  # numeric keys sort numerically
    assert groups[("a", 10)].categories == {"missing": 1, "extra": 1}
    assert groups[("b", 3)].isr == 0.0


def test_report_tables_plot_and_rendering() -> None:
    trials = []
    for model, ok in (("oracle", True), ("noisy", False)):
        for n in (3, 5):
            for length in (3, 5):
                verdict = v("pass", "correct") if ok or n == 3 else v("fail", "wrong")
                keys = {
                    "model": model,
                    "scaffold": "chat",
                    "instructions": n,
                    "length": length,
                    "difficulty": f"n{n}-l{length}",
                    "language": "python",
                }
                trials.append(ScoredTrial(keys=keys, status="ok", verdicts=[verdict]))
    trials.append(
        ScoredTrial(
            keys={"model": "noisy", "scaffold": "chat", "instructions": 3, "length": 3},
            status="error",
            verdicts=[v("error")],
        )
    )
    report = build_report(
        rollout="r",
        suite="pacific",
        metric_names=("prompt-level accuracy", "instruction-level accuracy"),
        trials=trials,
        breakdowns=["language", "difficulty", "absent"],
    )
    rows = {row[0]: row for row in report.summary.rows}
    header = report.summary.header
    assert rows["oracle"][header.index("prompt-level accuracy")] == "100.0%"
    assert rows["noisy"][header.index("prompt-level accuracy")] == "40.0%"  # 2 of 5 trials
    assert rows["noisy"][header.index("trial errors")] == "1"
    assert rows["noisy"][header.index("wrong")] == "2"
    assert [t.title for t in report.breakdowns] == ["By language", "By difficulty"]
    assert report.plot_svg is not None and "oracle, length 3" in report.plot_svg
    assert report.notes and "failed to run" in report.notes[0]
    md = render_markdown(report)
    assert "| oracle | 4 | 100.0% |" in md and "![plot](plot.svg)" in md
    html = render_html(report)
    assert html.count("<table>") == 3 and "<svg" in html


def test_public_names() -> None:
    assert metrics.__all__ == sorted(metrics.__all__)


def test_scatter_and_bar_svgs() -> None:
    from adhere.report._plot import bar_svg, scatter_svg

    svg = scatter_svg({"a": (0.5, 0.25), "b": (1.0, 0.0)}, title="t", x_label="x", y_label="y")
    assert svg.startswith("<svg") and svg.count("<circle") == 2 and ">a</text>" in svg
    bars = bar_svg({"SP": {"m1": 0.5, "m2": 1.0}, "UserQuery": {"m1": 0.0}}, title="t", y_label="y")
    # background + 2 bars + the 0% bar's mark on the axis + 2 legend swatches
    assert bars.count("<rect") == 1 + 2 + 1 + 2 and ">UserQuery</text>" in bars
    # the 0% bar is a visible mark labelled 0%; UserQuery has no m2 share: "n/a", not a gap
    assert bars.count('<rect class="zero"') == 1 and bars.count('class="zero"') == 2
    assert re.search(r'class="zero"[^>]*>0%</text>', bars)
    assert re.search(r'class="missing"[^>]*>n/a</text>', bars)


def test_plots_draw_the_95_percent_intervals_they_are_given() -> None:
    """An error bar spans exactly the interval: y pixels of low and high on the plot's
    scale (top 36, height 380 - 36 - 48 = 296 for the line plot)."""
    import re

    from adhere.report._plot import bar_svg, line_plot_svg, scatter_svg

    line = line_plot_svg(
        {"m": [(3.0, 0.5), (5.0, 0.25)]},
        title="t",
        x_label="x",
        y_label="y",
        errors={"m": {3.0: (0.25, 0.75)}},
    )
    (bar,) = re.findall(r'class="ci" d="([^"]+)"', line)  # one point has an interval
    ys = [float(v) for v in re.findall(r"V([\d.]+)", bar)] + [
        float(v) for v in re.findall(r",([\d.]+)H", bar)
    ]
    top, height = 36, 380 - 36 - 48
    assert min(ys) == round(top + (1 - 0.75) * height, 1)
    assert max(ys) == round(top + (1 - 0.25) * height, 1)
    assert 'class="ci"' not in line_plot_svg(
        {"m": [(3.0, 0.5)]}, title="t", x_label="x", y_label="y"
    )
    scatter = scatter_svg(
        {"a": (0.5, 0.5)}, title="t", x_label="x", y_label="y", errors={"a": ((0.4, 0.6), None)}
    )
    assert scatter.count('class="ci"') == 1  # the x interval only
    bars = bar_svg({"SP": {"m": 0.5}}, title="t", y_label="y", errors={"SP": {"m": (0.1, 0.9)}})
    assert bars.count('class="ci"') == 1
