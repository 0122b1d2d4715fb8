"""The Grafana dashboards' structure (their PromQL runs against a real Prometheus in
tests/integration/exporter/test_exporter_prometheus.py)."""

import json
import re
from pathlib import Path

import pytest

from tests.helpers import ROOT

DASHBOARDS = sorted((ROOT / "charts" / "adhere" / "dashboards").glob("*.json"))


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def test_three_dashboards_with_distinct_uids_and_titles() -> None:
    boards = [load(p) for p in DASHBOARDS]
    assert [p.stem for p in DASHBOARDS] == [
        "adhere-compliance",
        "adhere-operations",
        "adhere-regressions",
    ]
    assert [b["uid"] for b in boards] == [p.stem for p in DASHBOARDS]
    assert len({b["title"] for b in boards}) == 3
    assert all("adhere" in b["tags"] for b in boards)


@pytest.mark.parametrize("path", DASHBOARDS, ids=lambda p: p.name)
def test_panels_are_laid_out_and_query_the_chosen_data_source(path: Path) -> None:
    board = load(path)
    variables = {v["name"]: v for v in board["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    assert variables["datasource"]["query"] == "prometheus"
    for name, variable in variables.items():
        if variable["type"] == "query":
            assert variable["includeAll"] and variable["allValue"] == ".*", name
    ids = [p["id"] for p in board["panels"]]
    assert len(ids) == len(set(ids))
    cells: set[tuple[int, int]] = set()
    for panel in board["panels"]:
        grid = panel["gridPos"]
        assert 0 <= grid["x"] and grid["x"] + grid["w"] <= 24, panel["title"]
        area = {
            (x, y)
            for x in range(grid["x"], grid["x"] + grid["w"])
            for y in range(grid["y"], grid["y"] + grid["h"])
        }
        assert not area & cells, f"{panel['title']} overlaps another panel"
        cells |= area
        if panel["type"] == "row":
            continue
        assert panel["description"], panel["title"]
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
        refs = [t["refId"] for t in panel["targets"]]
        assert len(refs) == len(set(refs)), panel["title"]
        for target in panel["targets"]:
            assert target["datasource"]["uid"] == "${datasource}"
            used = set(re.findall(r"\$(\w+)", target["expr"])) - {"__rate_interval"}
            assert used <= set(variables), (panel["title"], used)
