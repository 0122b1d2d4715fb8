"""An endpoint's reasoning setting reaches every upstream call, and its reasoning tokens land.

The in-process scaffolds speak Chat Completions; the recording proxy translates each
call into the endpoint's shape and imposes the endpoint's ``reasoning`` there. The
scripted policy server stands in for each shape's endpoint and answers with visible
reasoning, whose token count it reports where the shape has a field for it.
"""

from pathlib import Path

from adhere.artifacts import RolloutStore
from adhere.report._results import report_for
from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from adhere.store import open_store
from adhere.testing import PolicyServer, PolicyServerConfig, ScriptStep
from adhere.wire._server_codec import count_tokens
from tests.helpers import bench_yaml, model, rollout_yaml

THOUGHT = "First I weigh what the instructions ask, then I answer."
REPLY = "The answer."


async def test_reasoning_is_imposed_upstream_and_its_tokens_recorded(
    tmp_path: Path, write_specs
) -> None:
    steps = [ScriptStep(text=REPLY, reasoning=THOUGHT)]
    server = PolicyServer(PolicyServerConfig(scripts={"think": steps}))
    await server.start()
    try:
        v1 = server.url + "/v1"
        models = model("chat", "script:think", base=v1, extra=", reasoning: {effort: high}")
        models += model(
            "resp",
            "script:think",
            api="openai-responses",
            base=v1,
            extra=", reasoning: {budgetTokens: 9000}",
        )
        models += model(
            "gem", "script:think", api="gemini", base=server.url, extra=", reasoning: {effort: low}"
        )
        models += model(
            "ant",
            "script:think",
            api="anthropic",
            base=server.url,
            extra=", maxTokens: 12000, reasoning: {effort: medium}",
        )
        path = write_specs(bench_yaml(instructions="[3]", lengths="[3]"), rollout_yaml(models))
        prepared = prepare(load_run_config([str(path)]))
        summary = await execute(prepared)
    finally:
        await server.stop()
    assert summary.failed == 0 and summary.ran == len(prepared.trials) > 0, summary.errors
    store = RolloutStore(open_store(str(tmp_path / "runs")), "r")
    thought = count_tokens(THOUGHT)
    seen = set()
    for trial in prepared.trials:
        (call,) = store.read_calls(trial)
        assert call["api"] == ("anthropic" if trial.model == "ant" else "openai-chat")
        upstream = call.get("upstream_call")
        sent = upstream["request"] if upstream else call["request"]
        usage = upstream["usage"] if upstream else call["usage"]
        if trial.model == "chat":  # native: the scaffold's own call, the effort imposed
            assert upstream is None and sent["reasoning_effort"] == "high"
        elif trial.model == "resp":
            assert sent["reasoning"] == {"effort": "medium"}  # 9,000 → the nearest effort
        elif trial.model == "gem":
            assert sent["generationConfig"]["thinkingConfig"] == {"thinkingBudget": 2048}
        else:
            assert sent["thinking"] == {"type": "enabled", "budget_tokens": 8192}
            assert sent["max_tokens"] == 12000 and "temperature" not in sent
        result = store.read_result(trial)
        if trial.model == "ant":  # Anthropic reports no separate count
            assert "reasoning_tokens" not in usage and result.reasoning_tokens is None
        else:
            assert usage["reasoning_tokens"] == thought
            assert result.reasoning_tokens == thought
        seen.add(trial.model)
    assert seen == {"chat", "resp", "gem", "ant"}
    report = report_for(store)
    spend = next(t for t in report.breakdowns if t.title.startswith("Tokens, cost and time"))
    column = {row[0]: dict(zip(spend.header, row, strict=True)) for row in spend.rows}
    trials = {name: sum(t.model == name for t in prepared.trials) for name in seen}
    assert {name: row["reasoning tokens"] for name, row in column.items()} == {
        "ant": "—",
        "chat": f"{thought * trials['chat']:,}",
        "gem": f"{thought * trials['gem']:,}",
        "resp": f"{thought * trials['resp']:,}",
    }
