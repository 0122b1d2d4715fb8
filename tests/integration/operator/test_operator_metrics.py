"""``adhere operator --metrics-port``: /metrics with the operator's trial counts."""

import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from adhere.cli import main
from adhere.errors import SpecError
from adhere.operator import OperatorConfig
from adhere.operator._main import _start_metrics
from adhere.spec import TrialCounts
from tests.integration.operator._operator_parts import stored_rollout


def test_metrics_show_the_operators_trial_counts(tmp_path: Path) -> None:
    stored_rollout(tmp_path)  # a planned rollout "sweep" in <tmp>/runs, nothing run yet
    config = OperatorConfig(store_uri=(tmp_path / "runs").as_uri())
    progress = {"sweep": TrialCounts(planned=3, running=2, done=1, failed=0, retried=1)}
    server = _start_metrics(config, progress, 0, "127.0.0.1", None)
    try:
        with urllib.request.urlopen(server.url, timeout=10) as response:  # noqa: S310
            text = response.read().decode()
    finally:
        server.stop()
    lines = [line for line in text.splitlines() if line.startswith("adhere_trials{")]
    by_state = {line.split('state="')[1].split('"')[0]: float(line.split()[-1]) for line in lines}
    assert by_state["running"] == 2 and by_state["done"] == 1 and by_state["retried"] == 1


def test_metrics_need_a_store() -> None:
    with pytest.raises(SpecError, match="storeUri"):
        _start_metrics(OperatorConfig(), {}, 0, "127.0.0.1", None)
    help_text = CliRunner().invoke(main, ["operator", "--help"]).output
    assert "--metrics-port" in help_text and "--namespace" in help_text
