"""``--format json`` documents: plain JSON data built from the report's objects."""

from __future__ import annotations

import json
from collections import Counter

from adhere.metrics import Interval, Rates, Table
from adhere.report import JSON_FORMAT, Report, jsonable, report_json, table_json


def test_jsonable_turns_objects_into_plain_json() -> None:
    interval = Interval(low=0.25, high=0.75, confidence=0.95, method="wilson")
    data = jsonable({"i": interval, "n": float("nan"), "s": {"b", "a"}, 3: (1, 2)})
    assert data == {
        "i": {"low": 0.25, "high": 0.75, "confidence": 0.95, "method": "wilson"},
        "n": None,
        "s": ["a", "b"],
        "3": [1, 2],
    }
    json.dumps(data, allow_nan=False)


def test_a_report_document_holds_the_tables_and_numeric_totals() -> None:
    summary = Table(title="Summary", header=["model", "ISR"], rows=[["m", "50.0%"], ["n", "–"]])
    totals = Rates(trials=2, scored=1, isr=0.5, csr=0.5, categories=Counter({"wrong": 1}))
    report = Report(
        rollout="r", suite="s", isr_name="ISR", csr_name="CSR", summary=summary, totals=totals
    )
    doc = report_json(report)
    assert doc["format"] == JSON_FORMAT and doc["kind"] == "report"
    assert doc["summary"] == table_json(summary)
    assert doc["summary"]["rows"] == [{"model": "m", "ISR": "50.0%"}, {"model": "n", "ISR": "–"}]
    assert doc["totals"]["isr"] == 0.5 and doc["totals"]["categories"] == {"wrong": 1}
    assert doc["complete"] is report.complete
    json.dumps(doc, allow_nan=False)
