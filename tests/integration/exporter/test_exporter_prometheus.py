"""The exporter scraped by a real Prometheus (Debian's binary) on loopback.

Two rollouts are written once for the module by the real runner (see
exporter_rollouts.py); the exporter serves their store; Prometheus scrapes it every
200 ms and loads the chart's alert rules. Every expected number is computed from the
stored JSON files in the test, not with adhere's metrics code.
"""

import json
import re
import shutil
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client import CollectorRegistry

from adhere.exporter import ExporterSettings, StoreCollector, start_metrics_server
from adhere.report._compare import compare_stores, open_run
from tests.helpers import ROOT, run_cli
from tests.integration.exporter.exporter_rollouts import (
    PRICES,
    build_rollouts,
    expected_isr_regression,
    expected_rates,
    expected_regressions,
    trial_files,
)

DASHBOARDS = sorted((ROOT / "charts" / "adhere" / "dashboards").glob("*.json"))
RULES = sorted((ROOT / "charts" / "adhere" / "rules").glob("*.yaml"))
VARIABLES = re.compile(r"\$\{?(rollout|model|scaffold|source)\}?")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_rollouts(tmp_path_factory.mktemp("exporter"))


@pytest.fixture(scope="module")
def exporter(store: Path):
    registry = CollectorRegistry()
    settings = ExporterSettings.model_validate({"ttlSeconds": 0.3, "prices": PRICES})
    StoreCollector(str(store), settings, registry=registry)
    server = start_metrics_server(registry, 0)
    yield server
    server.stop()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Prometheus:
    def __init__(self, url: str) -> None:
        self.url = url
        self.client = httpx.Client(base_url=url, timeout=10)

    def query(self, expr: str) -> list[dict[str, Any]]:
        body = self.client.get("/api/v1/query", params={"query": expr}).json()
        assert body["status"] == "success", (expr, body)
        return body["data"]["result"]

    def value(self, expr: str) -> float:
        result = self.query(expr)
        assert len(result) == 1, (expr, result)
        return float(result[0]["value"][1])

    def wait_for(self, expr: str, seconds: float = 15) -> list[dict[str, Any]]:
        deadline = time.monotonic() + seconds
        while True:
            result = self.query(expr)
            if result or time.monotonic() > deadline:
                return result
            time.sleep(0.2)


@pytest.fixture(scope="module")
def prometheus(exporter, tmp_path_factory: pytest.TempPathFactory):
    binary = shutil.which("prometheus")
    if binary is None:
        pytest.fail(
            "`prometheus` was not found on PATH: install Debian's package "
            "(`apt-get install -y --no-install-recommends prometheus`; scripts/test.sh does)",
            pytrace=False,
        )
    work = tmp_path_factory.mktemp("prometheus")
    config = work / "prometheus.yml"
    config.write_text(
        json.dumps(
            {
                "global": {"scrape_interval": "200ms", "evaluation_interval": "200ms"},
                "rule_files": [str(p) for p in RULES],
                "scrape_configs": [
                    {
                        "job_name": "adhere",
                        "scrape_interval": "200ms",
                        "scrape_timeout": "190ms",
                        "static_configs": [{"targets": [f"127.0.0.1:{exporter.port}"]}],
                    }
                ],
            }
        )
    )
    port = _free_port()
    # `timeout` stops Prometheus by itself should this process die without cleaning up.
    command = ["timeout", "300", binary, f"--config.file={config}"]
    command += [f"--storage.tsdb.path={work / 'data'}", f"--web.listen-address=127.0.0.1:{port}"]
    log = (work / "prometheus.log").open("w")
    proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    api = Prometheus(f"http://127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                if api.client.get("/-/ready").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, (work / "prometheus.log").read_text()
            assert time.monotonic() < deadline, "Prometheus not ready after 10 s"
            time.sleep(0.1)
        # The first scrape lands ~5-6 s after start (a fixed delay in 2.42); then a few
        # more so that rate() over a short window has points.
        assert api.wait_for('up{job="adhere"} == 1'), (work / "prometheus.log").read_text()
        assert api.wait_for('count_over_time(adhere_isr{rollout="cand",model="steady"}[1m]) > 2')
        yield api
    finally:
        api.client.close()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def test_isr_and_csr_per_model_and_source_match_the_stored_verdicts(store, prometheus) -> None:
    for rollout in ("base", "cand"):
        for prefix, source in (("", None), ("SP_", "SP"), ("UQ_", "UserQuery")):
            expected = expected_rates(store, rollout, prefix)
            assert expected
            for model, (isr, csr) in expected.items():
                if source is None:
                    where = f'rollout="{rollout}",model="{model}",scaffold="reference"'
                    assert prometheus.value(f"adhere_isr{{{where}}}") == pytest.approx(isr)
                    assert prometheus.value(f"adhere_csr{{{where}}}") == pytest.approx(csr)
                else:
                    where = f'rollout="{rollout}",model="{model}",source="{source}"'
                    got_isr = prometheus.value(f"adhere_isr_by_source{{{where}}}")
                    got_csr = prometheus.value(f"adhere_csr_by_source{{{where}}}")
                    assert (got_isr, got_csr) == pytest.approx((isr, csr)), (rollout, model)
    # The known shape: the emoji model fails SP everywhere, the broken one everything.
    where = 'rollout="cand",model="drifting",source="SP"'
    assert prometheus.value(f"adhere_isr_by_source{{{where}}}") == 0
    assert prometheus.value('adhere_isr{rollout="cand",model="broken"}') == 0
    assert prometheus.value('adhere_trial_errors{rollout="cand",model="broken"}') == 8


def test_progress_counts_match_the_store(store, prometheus) -> None:
    files = trial_files(store, "cand")
    done = sum(f["result"]["status"] == "ok" for f in files.values())
    archived = len(list((store / "cand" / "trials").rglob("attempt-*/result.json")))
    expected = {
        "planned": 32,
        "running": 0,
        "done": done,
        "failed": len(files) - done,
        "retried": archived,
    }
    assert (expected["done"], expected["failed"], expected["retried"]) == (24, 8, 8)
    for state, value in expected.items():
        assert prometheus.value(f'adhere_trials{{rollout="cand",state="{state}"}}') == value
    last = max(
        f["result"]["finished_at"] for f in files.values()
    )  # ISO; the progress file is written after it
    assert prometheus.value('adhere_rollout_last_progress_timestamp_seconds{rollout="cand"}') >= (
        time.mktime(time.strptime(last[:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone - 1
    )


def _records(store: Path, rollout: str, name: str) -> list[tuple[str, dict]]:
    """(model, record) of every attempt's ``name`` file (each line, for JSONL)."""
    out = []
    for path in (store / rollout / "trials").rglob(name):
        model = path.relative_to(store / rollout / "trials").parts[0]
        text = path.read_text()
        lines = text.splitlines() if name.endswith(".jsonl") else [text]
        out += [(model, json.loads(line)) for line in lines]
    return out


def test_tokens_cost_and_calls_match_the_store(store, prometheus) -> None:
    results = _records(store, "cand", "result.json")
    prices = {"steady": (1.0, 2.0), "drifting": (3.0, 5.0), "flaky": (3.0, 5.0)}
    prices["broken"] = (3.0, 5.0)
    for model in ("steady", "drifting", "flaky", "broken"):
        inputs = sum(r["input_tokens"] for m, r in results if m == model)
        outputs = sum(r["output_tokens"] for m, r in results if m == model)
        where = f'rollout="cand",role="agent",model="{model}"'
        assert prometheus.value(f'adhere_tokens_total{{{where},direction="input"}}') == inputs
        assert prometheus.value(f'adhere_tokens_total{{{where},direction="output"}}') == outputs
        cost = (inputs * prices[model][0] + outputs * prices[model][1]) / 1e6
        assert prometheus.value(f"adhere_cost_usd_total{{{where}}}") == pytest.approx(cost)
    calls = _records(store, "cand", "calls.jsonl")
    for model in ("steady", "flaky", "broken"):
        mine = [r for m, r in calls if m == model]
        assert prometheus.value(f'adhere_proxy_calls_total{{rollout="cand",model="{model}"}}') == (
            len(mine)
        )
    flaky_503 = sum(1 for m, r in calls if m == "flaky" and r["status"] == 503)
    broken_400 = sum(1 for m, r in calls if m == "broken" and r["status"] == 400)
    assert flaky_503 > 0 and broken_400 > 0
    where = 'rollout="cand",model="flaky",reason="http_5xx"'
    assert prometheus.value(f"adhere_proxy_call_errors_total{{{where}}}") == flaky_503
    where = 'rollout="cand",model="broken",reason="http_4xx"'
    assert prometheus.value(f"adhere_proxy_call_errors_total{{{where}}}") == broken_400
    judge_calls = [
        json.loads(line) for line in (store / "cand" / "judge_calls.jsonl").read_text().splitlines()
    ]
    per_judge = Counter(r["judge"] for r in judge_calls)
    for judge, count in per_judge.items():
        assert prometheus.value(f'adhere_judge_calls_total{{rollout="cand",judge="{judge}"}}') == (
            count
        )
        where = f'rollout="cand",judge="{judge}"'
        assert prometheus.value(f"adhere_judge_call_duration_seconds_count{{{where}}}") == count
    a = [r for r in judge_calls if r["judge"] == "a"]
    cost = sum(r["input_tokens"] * 0.5 + r["output_tokens"] * 1.5 for r in a) / 1e6
    assert prometheus.value('adhere_cost_usd_total{rollout="cand",role="judge",model="a"}') == (
        pytest.approx(cost)
    )
    assert not prometheus.query('adhere_cost_usd_total{rollout="cand",model="b"}')  # no price


def test_regression_series_against_the_baseline(store, prometheus) -> None:
    delta, p_mcnemar = expected_isr_regression(store, "drifting", "SP_")
    assert (delta, p_mcnemar) == (-1.0, 2 / 2**8)
    where = 'rollout="cand",baseline="base",model="drifting",source="SP",metric="isr"'
    assert prometheus.value(f"adhere_regression_delta{{{where}}}") == pytest.approx(delta)
    assert prometheus.value(f'adhere_regression_p_value{{{where},test="mcnemar"}}') == (
        pytest.approx(p_mcnemar)
    )
    assert prometheus.value(f"adhere_regression_flag{{{where}}}") == 1
    for model in ("steady", "drifting"):
        for prefix, source in (("", "all"), ("UQ_", "UserQuery")):
            expected, _ = expected_isr_regression(store, model, prefix)
            where = f'rollout="cand",model="{model}",source="{source}",metric="isr"'
            assert prometheus.value(f"adhere_regression_delta{{{where}}}") == pytest.approx(
                expected
            )
    # Every row's p-values, corrected as one family, and the flags, against the same
    # computed from the stored files (McNemar, enumerated sign flips, BH by hand).
    expected = expected_regressions(store)
    assert expected[("drifting", "SP")]["isr"][3]  # the SP drop survives the correction
    for (model, source), metrics in expected.items():
        for metric, (delta, p, adjusted, flagged) in metrics.items():
            where = f'rollout="cand",model="{model}",source="{source}",metric="{metric}"'
            assert prometheus.value(f"adhere_regression_delta{{{where}}}") == pytest.approx(delta)
            test = "mcnemar" if metric == "isr" else "permutation"
            assert prometheus.value(f'adhere_regression_p_value{{{where},test="{test}"}}') == (
                pytest.approx(p)
            )
            assert prometheus.value(f"adhere_regression_p_adjusted{{{where}}}") == (
                pytest.approx(adjusted)
            )
            assert prometheus.value(f"adhere_regression_flag{{{where}}}") == int(flagged)
    steady = prometheus.query('adhere_regression_flag{rollout="cand",model="steady"} == 1')
    assert steady == []
    assert prometheus.value('adhere_regression_pairs{model="drifting",source="all"}') == 8
    assert prometheus.value('adhere_regression_instances{model="drifting",source="all"}') == 8
    assert (
        prometheus.value('adhere_regression_insufficient_data{model="drifting",source="all"}') == 0
    )
    # flaky and broken are not in the baseline: no pairs, no series.
    assert prometheus.query('adhere_regression_delta{model=~"flaky|broken"}') == []


def test_alert_rules_load_and_a_regression_goes_pending(store, prometheus) -> None:
    groups = prometheus.client.get("/api/v1/rules").json()["data"]["groups"]
    rules = [r for g in groups for r in g["rules"]]
    assert rules and all(r["health"] == "ok" for r in rules), rules
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        alerts = prometheus.client.get("/api/v1/alerts").json()["data"]["alerts"]
        pending = [a for a in alerts if a["labels"]["alertname"] == "AdhereComplianceRegression"]
        if pending:
            break
        time.sleep(0.2)
    assert {(a["labels"]["model"], a["state"]) for a in pending} == {("drifting", "pending")}
    # SP: ISR 100% → 0% on 8 pairs, significant after the correction; the rows that
    # fire are those the stored files say are flagged.
    flagged = {
        (source, metric)
        for (model, source), metrics in expected_regressions(store).items()
        for metric, (*_, is_flagged) in metrics.items()
        if is_flagged
    }
    assert ("SP", "isr") in flagged
    assert {(a["labels"]["source"], a["labels"]["metric"]) for a in pending} == flagged


def _exprs(dashboard: dict) -> list[tuple[str, str]]:
    out = []
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            out.append((panel["title"], target["expr"]))
    return out


def test_every_dashboard_panel_query_returns_data(prometheus) -> None:
    assert len(DASHBOARDS) == 3
    empty = []
    count = 0
    for path in DASHBOARDS:
        dashboard = json.loads(path.read_text())
        panels = [p for p in dashboard["panels"] if p["type"] != "row"]
        assert panels and all(p.get("targets") for p in panels), path.name
        for title, expr in _exprs(dashboard):
            query = VARIABLES.sub(".*", expr).replace("$__rate_interval", "1m")
            assert "$" not in query, (path.name, title, query)
            count += 1
            if not prometheus.query(query):
                empty.append(f"{path.name}: {title}: {query}")
    assert count > 40
    assert empty == []


def test_template_variable_queries_find_values(prometheus) -> None:
    for path in DASHBOARDS:
        for variable in json.loads(path.read_text())["templating"]["list"]:
            if variable["type"] != "query":
                continue
            match = re.fullmatch(r"label_values\((.*), (\w+)\)", variable["definition"])
            assert match, variable["definition"]
            series = VARIABLES.sub(".*", match[1])
            values = {r["metric"][match[2]] for r in prometheus.query(series)}
            assert values, (path.name, variable["name"])


def test_compare_command_prints_and_writes_the_same_analysis(store, tmp_path: Path) -> None:
    out = tmp_path / "compare.md"
    proc = run_cli(
        "compare",
        str(store / "base"),
        str(store / "cand"),
        "--out",
        str(out),
        "--samples",
        "500",
        "--fail-on-regression",
    )
    assert proc.returncode == 1, proc.stderr  # a regression is flagged
    assert "REGRESSED" in proc.stdout
    assert "16 of 32 candidate trials have no counterpart" in proc.stdout
    report = out.read_text()
    expected = expected_regressions(store)
    flagged = [
        f"{m} / {s}" for (m, s), metrics in expected.items() if any(v[3] for v in metrics.values())
    ]
    assert f"**{len(flagged)} regression(s):** {', '.join(flagged)}" in report
    lines = report.splitlines()
    header = [
        c.strip() for c in next(x for x in lines if x.startswith("| model")).strip("|").split("|")
    ]
    row = next(line for line in lines if line.startswith("| drifting | SP |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2:4] == ["8", "8"]  # instances, pairs
    assert cells[4].startswith("100.0% [") and cells[5].startswith("0.0% [")
    assert cells[6].startswith("-100.0 pp")
    assert (cells[7], cells[8]) == ("mcnemar", f"{2 / 2**8:.3g}")
    assert cells[9] == f"{expected[('drifting', 'SP')]['isr'][2]:.3g}"  # adjusted
    assert header[9] == "p adj."
    same = compare_stores(open_run(store / "base"), open_run(store / "base"))
    assert same.rows and not same.regressed
    assert all(r.regression.isr.delta == 0 == r.regression.csr.delta for r in same.rows)


def test_exporter_command_serves_the_store(store) -> None:
    command = [sys.executable, "-m", "adhere.cli", "exporter", "--store", str(store)]
    command += ["--port", "0", "--stop-after", "60", "--baseline", "cand=base"]
    with subprocess.Popen(
        command, cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
    ) as proc:
        try:
            assert proc.stderr is not None
            line = proc.stderr.readline()
            match = re.search(r"serving (http://127\.0\.0\.1:\d+/metrics)", line)
            assert match, line + proc.stderr.read()
            text = httpx.get(match[1], timeout=10).text
        finally:
            proc.terminate()  # SIGTERM: the command stops its server and exits 0
        assert proc.wait(timeout=10) == 0
    isr, _ = expected_rates(store, "cand")["drifting"]
    sample = 'adhere_isr{benchmark="b",model="drifting",rollout="cand",scaffold="reference"'
    assert f'{sample},suite="octobench"}} {float(isr)}' in text
    assert 'adhere_regression_flag{baseline="base",metric="isr",model="drifting"' in text


def test_a_change_in_the_store_shows_after_the_ttl(store, prometheus) -> None:
    progress = store / "base" / "progress.json"
    saved = progress.read_text()
    data = json.loads(saved)
    progress.write_text(json.dumps({**data, "running": 3, "phase": "running"}))
    try:
        assert prometheus.wait_for('adhere_trials{rollout="base",state="running"} == 3', 5)
    finally:
        progress.write_text(saved)
