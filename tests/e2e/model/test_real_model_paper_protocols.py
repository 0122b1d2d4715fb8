"""The paper protocols of PACIFIC and GuideBench with the real model (``baseUrl: local-model``).

The model is real and weak: nothing is asserted about its answers. What is asserted is
what the protocols promise on unscripted, often degenerate output: every trial ends with
a result and its calls stored; PACIFIC's strict parse scores a step only from a literal
``[ANSWER][i] … [\\ANSWER]`` tag in the stored reply (anything else is missing, never a
pass); under GuideBench's ``parse: llm`` the same real model is the judge that parses
the replies, each extraction is a recorded judge call, a verdict passes only when the
extraction equals the reference, and a check the parser could not decide is counted as
undecided in the report, never as correct.
"""

import json
import re
from pathlib import Path

import pytest

from adhere.artifacts import RolloutStore
from adhere.store import open_store
from tests.e2e.model.test_real_model_suites import assert_nothing_lost
from tests.helpers import ROOT, run_cli

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

DATA = ROOT.parent / "shared" / "data" / "guidebench"
MODEL = (
    "{api: openai, baseUrl: local-model, model: smollm2-135m-instruct, stream: true, "
    "maxTokens: 64, limits: {timeoutSeconds: 300}}"
)
STRICT_TAG = re.compile(r"\[ANSWER\]\[(\d+)\]((?:(?!\[ANSWER\]).)*?)\[\\ANSWER\]", re.DOTALL)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def reply_of(call: dict) -> str:
    return call["response"]["choices"][0]["message"]["content"] or ""


def test_pacific_paper_protocol_scores_only_literal_tags(tmp_path: Path) -> None:
    rollout = write(
        tmp_path / "rollout.yaml",
        f"""\
apiVersion: adhere.dev/v1alpha1
kind: Benchmark
metadata: {{name: pacific-paper-real}}
spec:
  suite: pacific
  options: {{protocol: paper}}
  source: {{generate: {{instructions: [3], lengths: [3], perLanguage: 1, seed: 7,
                       mode: prompt, kind: code}}}}
  filters: {{limit: 2}}
---
apiVersion: adhere.dev/v1alpha1
kind: Rollout
metadata: {{name: pacific-paper-real}}
spec:
  benchmark: pacific-paper-real
  models: [{{name: smollm2, endpoint: {MODEL}}}]
  scaffolds: [chat]
  parallelism: 2
  storage: file://./runs
""",
    )
    proc = run_cli("run", str(rollout), timeout=1200)
    assert proc.returncode in (0, 1), proc.stderr  # 1: some trials failed, recorded
    printed = " ".join(proc.stdout.split())  # a narrow terminal wraps table titles
    assert "Per-instruction accuracy (the paper's Figure 6)" in printed

    store = RolloutStore(open_store(str(tmp_path / "runs")), "pacific-paper-real")
    instances = {i.id: i for i in store.read_instances()}
    assert len(instances) == 2
    trials = [stored.result.trial for stored in store.iter_trials()]
    statuses = assert_nothing_lost(store, trials)
    assert sum(statuses.values()) == 2
    scored = 0
    for stored in store.iter_trials():
        if stored.result.status != "ok":
            continue
        instance = instances[stored.result.trial.instance]
        assert instance.system_prompt == ""  # the paper's layout: no system prompt
        assert instance.metadata["protocol"]["parse"] == "strict"
        reply = reply_of(store.read_calls(stored.result.trial)[-1])
        tagged: dict[int, list[str]] = {}
        for index, answer in STRICT_TAG.findall(reply):
            tagged.setdefault(int(index), []).append(answer)
        results = {v.check_id: v for v in stored.verdicts}
        for i in range(1, len(instance.metadata["sample"]["steps"]) + 1):
            verdict = results[f"step-{i}"]
            if len(tagged.get(i, [])) != 1:  # no literal tag, or several: never a pass
                assert verdict.result == "fail", (i, reply, verdict)
            scored += 1
    assert scored == 3 * statuses.get("ok", 0)


PARSER = (
    "Read the reply below and give its $answer_field ($answer_format) and its "
    "$analysis_field as one JSON object, nothing else.\n\n$reply"
)


@pytest.mark.parametrize("parser", [None, PARSER], ids=["adhere-question", "parser-template"])
def test_guidebench_paper_protocol_with_the_real_model_parsing_its_replies(
    tmp_path: Path, parser: str | None
) -> None:
    templates = ""
    if parser is not None:  # the question from a file (templates.parser)
        write(tmp_path / "parser.txt", parser)
        templates = ", templates: {parser: parser.txt}"
    rollout = write(
        tmp_path / "rollout.yaml",
        f"""\
apiVersion: adhere.dev/v1alpha1
kind: Benchmark
metadata: {{name: gb-paper-real}}
spec:
  suite: guidebench
  source: {{path: {DATA}}}
  options: {{protocol: paper, parse: llm, perCategory: 1{templates}}}
  filters: {{metadata: {{category: [price, chat]}}}}  # a 0/1 answer and an option
---
apiVersion: adhere.dev/v1alpha1
kind: JudgePanel
metadata: {{name: real-parser}}
spec:
  judges: [{{name: parser, endpoint: {MODEL}}}]
---
apiVersion: adhere.dev/v1alpha1
kind: Rollout
metadata: {{name: gb-paper-real}}
spec:
  benchmark: gb-paper-real
  judgePanel: real-parser
  models: [{{name: smollm2, endpoint: {MODEL}}}]
  scaffolds: [chat]
  parallelism: 3
  storage: file://./runs
""",
    )
    proc = run_cli("run", str(rollout), "--quiet", timeout=1200)
    assert proc.returncode in (0, 1, 3), proc.stderr  # 3: incomplete (undecided checks)

    run = tmp_path / "runs" / "gb-paper-real"
    store = RolloutStore(open_store(str(tmp_path / "runs")), "gb-paper-real")
    categories = {i.id: i.metadata["category"] for i in store.read_instances()}
    asked = {i.metadata.get("parser_prompt") for i in store.read_instances()}
    assert asked == {parser}  # None: adhere's own question
    assert sorted(categories.values()) == ["chat", "price"]  # one task each
    trials = [stored.result.trial for stored in store.iter_trials()]
    statuses = assert_nothing_lost(store, trials)
    assert sum(statuses.values()) == len(categories)

    parsed, undecided = [], 0
    for stored in store.iter_trials():
        if stored.result.status != "ok":
            continue
        (verdict,) = stored.verdicts
        if verdict.result == "error":
            undecided += 1
            continue
        details = verdict.details
        assert details["via"] == "llm" and set(details["extractions"]) == {"parser"}
        assert (verdict.result == "pass") == (details["category"] == "correct")
        if details["got"] is None:
            assert verdict.result == "fail"  # nothing extracted is invalid, never a pass
        parsed.append(verdict)
    assert parsed or undecided
    judge_calls = (run / "judge_calls.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(judge_calls) >= len(parsed)  # each extraction is a recorded judge call
    asked = [json.loads(line) for line in judge_calls]
    assert {(c["judge"], c["model"]) for c in asked} == {("parser", "smollm2-135m-instruct")}

    shown = run_cli("report", str(run), "--format", "json", "--allow-incomplete", timeout=300)
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout)
    table = next(t for t in report["breakdowns"] if t["title"].startswith("GuideBench answer p"))
    overall = next(r for r in table["rows"] if r["category"] == "overall")
    assert overall["replies"] == str(len(parsed))
    detail = report["paper"][1]
    counted = [r for r in detail["rows"] if r["category"] != "overall"]
    assert sum(int(r["undecided"]) for r in counted) == undecided
    assert sum(int(r["tasks"]) for r in counted) == statuses.get("ok", 0) + statuses.get("error", 0)
