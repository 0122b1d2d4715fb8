"""PACIFIC under `protocol: paper` end to end: examples/pacific-sweep/paper.yaml (a smaller
grid) through the runner and the scripted policy server, then the report's per-instruction
accuracy (the paper's Figure 6) recomputed from the stored verdicts."""

from __future__ import annotations

import json
import re
from pathlib import Path

from adhere.artifacts import RolloutStore
from adhere.report._results import report_for
from adhere.store import open_store
from tests.helpers import ROOT, run_cli

EXAMPLE = ROOT / "examples" / "pacific-sweep" / "paper.yaml"


def small_example(tmp_path: Path) -> Path:
    text = EXAMPLE.read_text(encoding="utf-8")
    for old, new in {
        "instructions: [3, 5, 8, 10, 15]": "instructions: [3, 8]",
        "perLanguage: 33": "perLanguage: 2",
        "file://../../runs": "file://./runs",
    }.items():
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / "paper.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def by_hand(store: RolloutStore) -> dict[tuple[str, int], tuple[int, int]]:
    """(model, paper id) → (steps, correct), read straight from the stored files."""
    steps_of = {i.id: i.metadata["sample"]["steps"] for i in store.read_instances()}
    out: dict[tuple[str, int], list[int]] = {}
    for stored in store.iter_trials():
        trial = stored.result.trial
        assert stored.result.status == "ok"
        results = {v.check_id: v.result for v in stored.verdicts}
        for i, step in enumerate(steps_of[trial.instance], start=1):
            cell = out.setdefault((trial.model, step["paper_id"]), [0, 0])
            cell[0] += 1
            cell[1] += results[f"step-{i}"] == "pass"
    return {k: (v[0], v[1]) for k, v in out.items()}


def test_the_paper_protocol_example_runs_and_reports_figure_6(tmp_path: Path) -> None:
    rollout = small_example(tmp_path)
    proc = run_cli("run", str(rollout), timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Per-instruction accuracy (the paper's Figure 6)" in proc.stdout

    store = RolloutStore(open_store(str(tmp_path / "runs")), "pacific-paper")
    instances = store.read_instances()
    assert len(instances) == 2 * 3 * 3 * 2  # counts × lengths × languages × per language
    for instance in instances:
        assert instance.id.startswith("pacific-paper-")
        assert instance.system_prompt == ""
        assert instance.metadata["protocol"]["parse"] == "strict"
        assert "\n\nList of instructions:\n\nInstruction 1:\n```" in instance.turns[0]

    expected = by_hand(store)
    report = report_for(store)
    wide = next(t for t in report.paper if t.title.startswith("Per-instruction accuracy"))
    assert wide.header == ["instruction", "noisy-10", "oracle"]
    seen = set()
    for row in wide.rows:
        pid = int(row[0].split()[0])
        for model, cell in zip(("noisy-10", "oracle"), row[1:], strict=True):
            steps, correct = expected[(model, pid)]
            assert cell == f"{100 * correct / steps:.1f}% ({steps})"
            seen.add((model, pid))
    assert seen == set(expected)
    assert all(expected[k][0] == expected[k][1] for k in expected if k[0] == "oracle")
    assert any(expected[k][1] < expected[k][0] for k in expected if k[0] == "noisy-10")

    shown = run_cli("report", str(rollout), "--format", "json", timeout=300)
    assert shown.returncode == 0, shown.stderr
    document = json.loads(shown.stdout)
    titles = [t["title"] for t in document["paper"]]
    assert wide.title in titles
    long = next(
        t for t in document["breakdowns"] if t["title"].startswith("Per-instruction accuracy with")
    )
    assert len(long["rows"]) == len(expected)

    svg = (tmp_path / "runs" / "pacific-paper" / "report" / "instruction_accuracy.svg").read_text(
        encoding="utf-8"
    )
    bars = re.findall(r"<title>(\d\d) (\w+) · ([\w-]+): ([\d.]+)%</title>", svg)
    zeros = svg.count('class="zero"')
    assert len(bars) + zeros // 2 == len(expected)  # a 0% bar is a mark and its label
    for number, _name, model, share in bars:
        steps, correct = expected[(model, int(number))]
        assert float(share) == round(100 * correct / steps, 1)


def test_generate_with_the_papers_selection_and_run_the_file_under_the_protocol(
    tmp_path: Path,
) -> None:
    samples = tmp_path / "paper.jsonl"
    proc = run_cli("generate", "pacific", "--instructions", "3,5", "--length", "3",
                   "--per-language", "1", "--seed", "3", "--selection", "paper",
                   "--out", str(samples))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 6 and all(line["selection"] == "paper" for line in lines)
    bench = tmp_path / "bench.yaml"
    bench.write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: Benchmark\nmetadata: {name: b}\n"
        "spec: {suite: pacific, options: {protocol: paper}, source: {path: paper.jsonl}}\n",
        encoding="utf-8",
    )
    assert run_cli("validate", str(bench)).returncode == 0
    bench.write_text(bench.read_text(encoding="utf-8").replace("protocol: paper", "parse: strict"))
    refused = run_cli("validate", str(bench))
    assert refused.returncode != 0
    assert f"{samples}:1" in refused.stderr + refused.stdout
    assert "--selection adhere" in refused.stderr + refused.stdout
