"""Judge prompt-prefix caching against the real model server: ordered vs all-at-once.

Every judge call of one trial starts with the same text (the judge system prompt and
the trial's transcript); only the checklist batch and the closing ask differ. A server
with a prefix cache computes that prefix once — if the later calls arrive after a call
carrying it was processed. This bench judges the same trials three ways against
llama.cpp's ``llama-server`` (SmolLM2-135M-Instruct, 4 slots; it reports
``prompt_tokens_details.cached_tokens`` in every reply), a fresh server for each row
so no row inherits another's cache:

* ``concurrent``: every call of a trial at once (the order before prefix ordering);
* ``prefix``: per trial and endpoint the first call alone, then the others at once;
* ``prefix, width 1``: the first alone, then one at a time (``prefixConcurrency: 1``,
  which keeps a trial's calls on the slot holding its prefix — llama-server's cache
  is per slot).

A panel of two judges on one endpoint, ``--trials`` trials judged at once, each with
``--checks`` judge-bound checks in batches of at most ``--batch`` (fewer when the
``--max-tokens`` reply cap cannot hold them), one attempt per item (no re-asks: every
row makes the same calls), replies capped at ``--max-tokens``. The figures are the
share of judge input tokens the server served from its cache, summed over the judge
call records, and wall time; the ``concurrent`` row is the baseline measured in the
same run.

Needs the model server (``bash scripts/install-model-server.sh``).
Run: uv run python bench/bench_judge_cache.py [--trials 4] [--checks 6] [--batch 2]
"""

import argparse
import asyncio
import time

from adhere.core import ChatMessage, Check, CheckKind, Source, ToolCall, Trajectory
from adhere.judging import Ordering, run_panel
from adhere.models import ModelServer, ModelServerSettings
from adhere.scoring import JudgeAsks
from adhere.spec import Endpoint, Judge, JudgePanel, JudgePanelSpec, Limits, ObjectMeta

SOURCES = [Source.SYSTEM_PROMPT, Source.USER_QUERY, Source.AGENTS_MD, Source.TOOL_SCHEMA]
RULES = [
    "The agent reads README.md before editing any file.",
    "The agent runs the tests after its last change.",
    "The final answer is at most three sentences.",
    "No emoji appear in any answer.",
    "The agent does not modify files under vendor/.",
    "Commit messages start with a verb in the imperative.",
    "The agent explains why the bug happened.",
    "The agent uses the read tool rather than cat.",
]


def trajectory(n: int) -> Trajectory:
    """A short agent conversation of its own per trial (about 400 prompt tokens)."""
    module = f"billing_{n}.py"
    return Trajectory(
        system=(
            "You are a careful coding agent. Follow AGENTS.md. Read README.md first. "
            "Run the tests after every change. Keep answers short and plain; no emoji."
        ),
        messages=[
            ChatMessage(role="user", content=f"Trial {n}: the totals in {module} are off by one."),
            ChatMessage(
                role="assistant",
                content="I will read the README and the module first.",
                tool_calls=(ToolCall(id=f"r{n}", name="read", arguments={"path": "README.md"}),),
            ),
            ChatMessage(
                role="tool",
                content=f"# billing {n}\nTotals sum invoice lines. Run `pytest -q` to test.",
                tool_call_id=f"r{n}",
                name="read",
            ),
            ChatMessage(
                role="assistant",
                content=f"The loop in {module} skips the last line; I changed range(n - 1) "
                "to range(n) and ran the tests.",
                tool_calls=(ToolCall(id=f"t{n}", name="bash", arguments={"cmd": "pytest -q"}),),
            ),
            ChatMessage(
                role="tool", content="12 passed in 0.4s", tool_call_id=f"t{n}", name="bash"
            ),
            ChatMessage(
                role="assistant",
                content=f"Fixed: {module} now counts every invoice line. The off-by-one came "
                "from range(n - 1). All 12 tests pass.",
            ),
        ],
    )


def checks(count: int) -> list[Check]:
    return [
        Check(
            id=f"c{i:02d}",
            source=SOURCES[i % len(SOURCES)],
            kind=CheckKind.COMPLIANCE,
            description=RULES[i % len(RULES)],
        )
        for i in range(count)
    ]


def panel(url: str, width: int | None) -> tuple[JudgePanel, dict[str, Endpoint]]:
    limits = Limits(concurrency=16, max_retries=0, timeout_seconds=600, prefix_concurrency=width)
    endpoint = Endpoint(api="openai", base_url=url + "/v1", model="smollm2", limits=limits)
    judges = [Judge(name=name, endpoint=endpoint) for name in ("first", "second")]
    spec = JudgePanelSpec(judges=judges)
    return JudgePanel(metadata=ObjectMeta(name="bench"), spec=spec), {
        j.name: j.endpoint for j in judges
    }


async def one_row(ordering: Ordering, width: int | None, args: argparse.Namespace) -> dict:
    server = ModelServer(ModelServerSettings.from_env(slots=4))
    url = await server.start()
    try:
        spec, endpoints = panel(url, width)
        asks = JudgeAsks(endpoints)
        try:
            judges = asks.judges(spec)
            started = time.monotonic()
            await asyncio.gather(
                *(
                    run_panel(
                        judges,
                        checks(args.checks),
                        trajectory(n),
                        batch_size=args.batch,
                        max_attempts=1,
                        max_output_tokens=args.max_tokens,
                        grouping="item" if args.batch == 1 else "checklist",
                        ordering=ordering,
                    )
                    for n in range(args.trials)
                )
            )
            wall = time.monotonic() - started
        finally:
            await asks.aclose()
    finally:
        await server.aclose()
    records = asks.records
    ok = [r for r in records if r["ok"]]
    inputs = sum(r["input_tokens"] or 0 for r in ok)
    cached = sum(r.get("cached_input_tokens", 0) for r in ok)
    return {
        "calls": len(records),
        "failed": len(records) - len(ok),
        "input": inputs,
        "cached": cached,
        "share": cached / inputs if inputs else 0.0,
        "wall": wall,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--checks", type=int, default=6)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=48)
    args = parser.parse_args()
    rows: list[tuple[str, Ordering, int | None]] = [
        ("concurrent (baseline)", "concurrent", None),
        ("prefix", "prefix", None),
        ("prefix, width 1", "prefix", 1),
    ]
    print(
        f"{args.trials} trials judged at once, 2 judges on one endpoint, {args.checks} checks "
        f"in batches of at most {args.batch} (smaller when {args.max_tokens} output tokens "
        "cannot hold them); llama-server, 4 slots, a fresh server a row"
    )
    print(
        f"{'ordering':<24}{'calls':>6}{'failed':>7}{'input':>8}{'cached':>8}{'share':>8}"
        f"{'wall s':>8}{'vs base':>9}"
    )
    base: dict | None = None
    for label, ordering, width in rows:
        row = asyncio.run(one_row(ordering, width, args))
        base = base or row
        ratio = base["wall"] / row["wall"] if row["wall"] else 0.0
        print(
            f"{label:<24}{row['calls']:>6}{row['failed']:>7}{row['input']:>8}{row['cached']:>8}"
            f"{row['share']:>8.1%}{row['wall']:>8.1f}{ratio:>8.2f}×"
        )
    print(
        "share: judge input tokens the server served from its prefix cache; "
        "vs base: the baseline's wall time / the row's (higher is faster)"
    )


if __name__ == "__main__":
    main()
