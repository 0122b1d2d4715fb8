"""The report's SVG plots measured in headless Chromium: no label covers another or is clipped.

Every ``<text>``'s extent is the browser's own (``getBBox`` mapped through
``getCTM``, so turned labels are their real quadrilaterals); two labels overlap when
no axis separates their quadrilaterals. The plots are given what breaks naive
layouts: model × scaffold names of 50+ characters, many groups, crowded points, a
0% bar and a missing one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adhere.report._plot import bar_svg, line_plot_svg, scatter_svg
from tests.integration.viewer._chromium import Chromium

Point = tuple[float, float]
LONG = [
    "claude-sonnet-4-5-20250929-thinking / claude-code-2.0.14",
    "gpt-5.1-codex-max-preview-2025-11 / codex-cli-0.58.0",
    "qwen3-coder-480b-a35b-instruct-fp8 / kilo-code-4.1",
    "m",
]
SOURCES = ["System prompt", "User query", "AGENTS.md", "Memory", "Skill", "Tool schema"]

MEASURE = """(function(){
  const svg = document.documentElement;
  const vb = svg.viewBox.baseVal;
  const out = [];
  for (const t of document.querySelectorAll('text')) {
    const b = t.getBBox(), m = t.getCTM();
    const pts = [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height],
                 [b.x, b.y + b.height]].map(([x, y]) => {
      const p = svg.createSVGPoint(); p.x = x; p.y = y; const q = p.matrixTransform(m);
      return [q.x, q.y];
    });
    const own = [...t.childNodes].filter(n => n.nodeType === 3).map(n => n.data).join('');
    const tip = t.querySelector('title');
    out.push({text: own, title: tip ? tip.textContent : null, corners: pts});
  }
  const dots = [...document.querySelectorAll('circle')].map(c => {
    const b = c.getBBox();
    const r = b.x + b.width, d = b.y + b.height;
    return [[b.x, b.y], [r, b.y], [r, d], [b.x, d]];
  });
  return {width: vb.width, height: vb.height, texts: out, dots: dots};
})()"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chromium]:
    chromium = Chromium(tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield chromium
    finally:
        chromium.close()


def _separated(a: list[Point], b: list[Point]) -> bool:
    """Whether an edge normal of either convex quadrilateral separates them."""
    for quad in (a, b):
        for i in range(4):
            (x1, y1), (x2, y2) = quad[i], quad[(i + 1) % 4]
            nx, ny = y2 - y1, x1 - x2
            pa = [nx * x + ny * y for x, y in a]
            pb = [nx * x + ny * y for x, y in b]
            if max(pa) <= min(pb) + 1e-6 or max(pb) <= min(pa) + 1e-6:
                return True
    return False


def measure(browser: Chromium, svg: str, path: Path) -> dict[str, Any]:
    path.write_text(svg, encoding="utf-8")
    browser.goto(path.as_uri())
    found: dict[str, Any] = browser.eval(MEASURE)
    assert browser.errors == []
    return found


def assert_readable(found: dict[str, Any]) -> None:
    texts = [t for t in found["texts"] if t["text"].strip()]
    assert texts
    for t in texts:
        for x, y in t["corners"]:
            assert -0.5 <= x <= found["width"] + 0.5, (t["text"], "outside the plot", x)
            assert -0.5 <= y <= found["height"] + 0.5, (t["text"], "outside the plot", y)
    for n, a in enumerate(texts):
        for b in texts[n + 1 :]:
            assert _separated(a["corners"], b["corners"]), (a["text"], "overlaps", b["text"])


def test_bars_with_long_names_zeros_and_gaps(browser: Chromium, tmp_path: Path) -> None:
    groups: dict[str, dict[str, float | None]] = {
        source: {name: (n + k) % 5 / 4 for k, name in enumerate(LONG)}
        for n, source in enumerate(SOURCES)
    }
    groups["System prompt"][LONG[0]] = 0.0
    groups["User query"][LONG[1]] = None
    del groups["Memory"][LONG[2]]
    svg = bar_svg(
        groups,
        title="ISR by instruction source (bars: 95% intervals)",
        y_label="ISR",
        errors={"Skill": {LONG[0]: (0.1, 0.6)}},
    )
    found = measure(browser, svg, tmp_path / "bars.svg")
    assert_readable(found)
    shown = [t["text"] for t in found["texts"]]
    zeros = sum(1 for values in groups.values() for v in values.values() if v == 0)
    assert shown.count("0%") == 1 + zeros  # the y axis' 0% and one per zero bar
    assert shown.count("n/a") == 2  # a None and an absent series
    assert svg.count('<rect class="zero"') == zeros
    cut = [t for t in found["texts"] if t["title"] is not None]
    assert {t["title"] for t in cut} == set(LONG[:3])  # long names: cut, full in the tooltip
    assert all(t["text"].endswith("…") and len(t["text"]) <= 28 for t in cut)


def test_many_long_groups_turn_their_labels(browser: Chromium, tmp_path: Path) -> None:
    groups: dict[str, dict[str, float | None]] = {
        f"{name} #{n}": {"a": 0.5, "b": 0.25} for n, name in enumerate(LONG * 3)
    }
    svg = bar_svg(groups, title="t", y_label="ISR")
    assert "rotate(-45" in svg
    assert_readable(measure(browser, svg, tmp_path / "turned.svg"))


def test_line_plot_with_long_series_and_ticks(browser: Chromium, tmp_path: Path) -> None:
    series = {name: [(float(x), (x * 7 % 10) / 10) for x in range(6)] for name in LONG}
    ticks = {float(x): f"{10 * x + 1}–{10 * x + 10} turns" for x in range(6)}
    svg = line_plot_svg(
        series,
        title="ISR by interaction turns",
        x_label="interaction turns",
        y_label="ISR (instruction-level)",
        x_ticks=ticks,
        errors={LONG[0]: {1.0: (0.2, 0.9)}},
    )
    found = measure(browser, svg, tmp_path / "lines.svg")
    assert_readable(found)
    assert 'class="ci"' in svg


def test_crowded_points_keep_their_labels_apart(browser: Chromium, tmp_path: Path) -> None:
    points = {name: (0.62 + 0.01 * n, 0.55 + 0.005 * n) for n, name in enumerate(LONG)}
    points["corner model at the very top right"] = (1.0, 1.0)
    points["origin"] = (0.0, 0.0)
    svg = scatter_svg(points, title="ISR vs CSR", x_label="CSR", y_label="ISR")
    found = measure(browser, svg, tmp_path / "scatter.svg")
    assert_readable(found)
    assert len(found["dots"]) == len(points)
    for label in found["texts"]:
        for dot in found["dots"]:
            assert _separated(label["corners"], dot), (label["text"], "covers a point")


def test_the_old_layout_fails_this_check(browser: Chromium, tmp_path: Path) -> None:
    """The measure can fail: two labels written on top of each other are caught."""
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60" viewBox="0 0 200 60">'
        '<text x="10" y="30">first label</text><text x="40" y="34">second</text></svg>'
    )
    with pytest.raises(AssertionError, match="overlaps"):
        assert_readable(measure(browser, svg, tmp_path / "bad.svg"))
    clipped = re.sub(r'x="40" y="34"', 'x="190" y="34"', svg)
    with pytest.raises(AssertionError, match="outside the plot"):
        assert_readable(measure(browser, clipped, tmp_path / "clipped.svg"))
