"""Normalizer throughput in MB/s of raw call log, against a same-run baseline.

Input: the raw call logs (calls.jsonl) of a recorded rollout — by default every
trial under ``runs/`` — or, if none exist, synthetic Claude-Code-shaped logs. The
measured path is reading the records + decode + thread + pair + truncate + tag for
every trial. The
baseline is ``json.loads`` of the same bytes (the least any reader must do), so the
ratio says how many times a plain parse the normalizer costs.

Run: uv run python bench/bench_normalize.py [RUNS_DIR]
"""

import json
import sys
import time
from pathlib import Path

from adhere.artifacts import ProxyCall
from adhere.core import Check, Instance, Source
from adhere.observe import normalize, tag_sources


def synthetic_log(turns: int = 30) -> str:
    tools = [
        {"name": f"Tool{i}", "description": "d" * 400, "input_schema": {"type": "object"}}
        for i in range(20)
    ]
    messages: list[dict] = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "<system-reminder>rules</system-reminder>"},
                {"type": "text", "text": "Do the task."},
            ],
        }
    ]
    lines = []
    for n in range(turns):
        call = {
            "type": "tool_use",
            "id": f"t{n}",
            "name": "Tool1",
            "input": {"file_path": f"/w/f{n}.py"},
        }
        request = {"system": "S" * 6000, "messages": list(messages), "tools": tools}
        lines.append(
            json.dumps(
                {
                    "seq": n,
                    "trial": "t",
                    "upstream": "m",
                    "api": "anthropic",
                    "method": "POST",
                    "path": "/v1/messages",
                    "query": "",
                    "stream": False,
                    "request": request,
                    "status": 200,
                    "response": {"content": [call]},
                    "sse_events": 0,
                    "error": None,
                    "started_at": "2025-01-01T00:00:00+00:00",
                    "duration_seconds": 1.0,
                    "ttfb_seconds": 0.5,
                    "usage": None,
                }
            )
        )
        messages += [
            {"role": "assistant", "content": [call]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"t{n}", "content": "x = 1\n" * 300}
                ],
            },
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "runs"
    texts = [p.read_text() for p in root.rglob("calls.jsonl") if "/attempt-" not in str(p)]
    source = f"{len(texts)} recorded call logs under {root}"
    if not texts:
        texts = [synthetic_log() for _ in range(20)]
        source = "20 synthetic 30-call logs"
    size = sum(len(t.encode()) for t in texts) / 1e6
    instance = Instance(
        id="i",
        suite="octobench",
        system_prompt="",
        turns=["Do the task."],
        checks=[Check(id="c", source=Source.USER_QUERY, description="d")],
    )

    def parse() -> None:
        for text in texts:
            [json.loads(line) for line in text.splitlines() if line.strip()]

    def full() -> None:
        for text in texts:
            lines = text.splitlines()
            records = [ProxyCall.from_json_line(line) for line in lines if line.strip()]
            trajectory = normalize(records, first_user_turn=instance.turns[0])
            tag_sources(trajectory, instance, {"CLAUDE.md": "rules"})

    def best(fn) -> float:
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return min(times)

    base, norm = best(parse), best(full)
    print(f"{source}: {size:.1f} MB")
    print(
        f"normalize+tag: {size / norm:.1f} MB/s; baseline json.loads {size / base:.1f} MB/s; "
        f"normalizing costs {norm / base:.1f}x a plain parse"
    )


if __name__ == "__main__":
    main()
