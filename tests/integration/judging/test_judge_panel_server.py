"""Judging a real stored trajectory through the real scripted policy server (``judge:``).

The scripted judge is a test double: it answers the judge prompt deterministically,
with garbled replies and dropped ids to exercise re-asking, over real HTTP through
``adhere.models.open_client`` (OpenAI and Anthropic wire formats).
"""

from collections import Counter
from pathlib import Path

import pytest

from adhere.core._chat import ChatMessage
from adhere.core._types import Check, CheckKind, Source, Trajectory, VerifierRef
from adhere.judging._agreement import panel_agreement, verdict_labels
from adhere.judging._cache import MemoryVerdictCache
from adhere.judging._judge import judge_trial
from adhere.judging._panel import PanelJudge, run_panel
from adhere.judging._panel_scores import judge_trials, panel_scores
from adhere.judging._prompt import read_checklist
from adhere.models import open_client
from adhere.spec._endpoint import Endpoint, Limits
from adhere.testing import PolicyServer, PolicyServerConfig
from adhere.wire import ChatRequest

FIXTURE = Path(__file__).parent / "fixtures" / "claude_code_trajectory.json"
FAST = Limits(concurrency=4, max_retries=2, timeout_seconds=10, backoff_base_seconds=0.01)
SOURCES = [
    Source.SYSTEM_PROMPT,
    Source.SYSTEM_REMINDER,
    Source.USER_QUERY,
    Source.AGENTS_MD,
    Source.TOOL_SCHEMA,
]
KINDS = list(CheckKind)


def checklist(n=70):
    checks = []
    for i in range(n):
        source = SOURCES[i % len(SOURCES)]
        if i % 7 == 0:
            description = f"If the assistant edits inventory.py, it runs pytest (item {i})."
        elif i % 11 == 0:
            description = f"如果 assistant 修改了文件，检查是否说明了修改内容（第 {i} 项）"
        else:
            description = f"The assistant follows rule {i} of its {source.value} instructions."
        condition = "the assistant deletes a file" if i % 13 == 0 else None
        checks.append(
            Check(
                id=f"{source.value}-{i:02d}",
                source=source,
                kind=KINDS[i % len(KINDS)],
                description=description,
                condition=condition,
            )
        )
    return checks


@pytest.fixture
async def server():
    async with PolicyServer(PolicyServerConfig()) as running:
        yield running


@pytest.fixture
def trajectory():
    return Trajectory.model_validate_json(FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture
async def clients():
    opened = []

    def open_judge(url, model, api="openai"):
        base = url + "/v1" if api == "openai" else url
        client = open_client(Endpoint(api=api, base_url=base, model=model, limits=FAST))
        opened.append(client)

        async def ask(call):
            request = ChatRequest(
                messages=(ChatMessage(role="user", content=call.user),),
                system=call.system,
                max_tokens=call.max_tokens,
            )
            return (await client.complete(request)).message.content

        return ask

    yield open_judge
    for client in opened:
        await client.aclose()


async def test_a_70_item_checklist_with_garble_and_drop_comes_back_whole(
    server, trajectory, clients
):
    model = "judge:seed=1,garble=0.3,drop=0.2"
    calls = []
    ask = clients(server.url, model)

    async def counting_ask(call):
        calls.append(call)
        return await ask(call)

    checks = checklist()
    verdicts = await judge_trial(
        counting_ask, checks, trajectory, judge_name="scripted", model=model
    )
    assert [v.check_id for v in verdicts] == [c.id for c in checks]
    results = Counter(v.result for v in verdicts)
    assert results["pass"] > results["fail"] > 0
    assert results["n/a"] > 0
    first_attempts = [c for c in calls if c.attempt == 1]
    assert len(first_attempts) == 4
    assert len(calls) > len(first_attempts)
    asked_again = Counter(
        i.check_id for c in calls if c.attempt > 1 for i in read_checklist(c.user)
    )
    assert asked_again and set(asked_again) < {c.id for c in checks}
    conditional = {
        c.id for c in checks if c.condition or "If " in c.description or "如果" in c.description
    }
    assert {v.check_id for v in verdicts if v.result == "n/a"} <= conditional
    for verdict in verdicts:
        if verdict.result == "error":
            assert len(verdict.details["problems"]) == 3
        else:
            assert verdict.details["attempts"] >= 1
            assert (
                verdict.evidence is None
                or trajectory.messages[verdict.evidence].role == "assistant"
            )
    assert server.stats["by_model"][model] == len(calls)


async def test_three_judges_differ_but_agree_and_kappa_is_computed(server, trajectory, clients):
    checks = checklist()
    models = {
        "judge-1": ("judge:seed=1,garble=0.2,drop=0.1", "openai"),
        "judge-2": ("judge:seed=2,garble=0.2,drop=0.1,bias=0.05", "anthropic"),
        "judge-3": ("judge:seed=3,garble=0.2,drop=0.1,bias=-0.05", "openai"),
    }
    judges = [
        PanelJudge(name, model, clients(server.url, model, api))
        for name, (model, api) in models.items()
    ]
    deterministic = Check(
        id="det", source=Source.STYLE, description="No emoji.", verifier=VerifierRef(name="x")
    )
    result = await run_panel(judges, [*checks, deterministic], trajectory, aggregation="mean")
    per_judge = result.per_judge
    assert all([v.check_id for v in per_judge[n]] == [c.id for c in checks] for n in models)
    labels = {name: verdict_labels("t", per_judge[name]) for name in models}
    assert labels["judge-1"] != labels["judge-2"] != labels["judge-3"]
    agreement = panel_agreement(labels)
    for pair in agreement.pairs:
        assert pair.items > 50
        assert 0.5 < pair.exact_match < 1.0
        assert pair.kappa is not None and 0.1 < pair.kappa < 1.0
    assert agreement.fleiss_kappa is not None and 0.1 < agreement.fleiss_kappa < 1.0
    trials = judge_trials({"model": "careful", "scaffold": "claude-code"}, "ok", result)
    scores = panel_scores(trials)[("careful",)]
    assert set(scores.judges) == set(models)
    # A judge that left an error verdict has no score on the trial (incomplete, not a
    # fail); the spread is over the judges that decided every item.
    errored = {n for n in models if any(v.result == "error" for v in per_judge[n])}
    for name in models:
        assert (scores.judges[name].csr is None) == (name in errored)
        assert scores.judges[name].incomplete == (name in errored)
    assert (scores.csr_mean is None) == (errored == set(models))
    assert (scores.csr_std is not None) == (len(models) - len(errored) >= 2)
    assert len(result.majority) == len(checks)


async def test_rejudging_unchanged_work_makes_no_calls(server, trajectory, clients):
    model = "judge:seed=5"
    ask = clients(server.url, model)
    cache = MemoryVerdictCache()
    checks = checklist(30)
    first = await judge_trial(ask, checks, trajectory, judge_name="j", model=model, cache=cache)
    before = server.stats["requests"]
    again = await judge_trial(ask, checks, trajectory, judge_name="j", model=model, cache=cache)
    assert server.stats["requests"] == before
    assert [v.result for v in again] == [v.result for v in first]
