"""An instance naming Claude Code 2.0.69 runs under that version, end to end.

One OctoBench-format instance (two user turns, a system prompt, CLAUDE.md) with
``scaffolds: fromInstance``: the plan picks 2.0.69, the runner installs it from npm
(cached apart from the pin) and drives it against a scripted agent policy through the
recording proxy; the stored result, its fingerprint and the report carry 2.0.69.
"""

import asyncio
from pathlib import Path

from adhere.core import Source
from adhere.report._results import report_for
from adhere.runner import execute, prepare
from adhere.runner._fingerprint import scaffold_digest
from adhere.spec import load_run_config
from tests.e2e.pipeline.test_observed_runs import (
    CLAUDE_MD,
    SYSTEM_PROMPT,
    model,
    spans_of,
    tool_round_trip,
    write_rollout,
    write_suite,
)

VERSION = "2.0.69"


def test_claude_code_2_0_69_from_the_instance(tmp_path: Path, scaffold_cache) -> None:
    write_suite(
        tmp_path,
        [
            {
                "instance_id": "cc-2069",
                "system_prompt": SYSTEM_PROMPT,
                "scaffold": {"name": "claudecode", "version": VERSION},
                "user_query": [
                    "Show me the first line of README.md.",
                    "Now show me the first line of CLAUDE.md.",
                ],
            }
        ],
        {"README.md": "# demo project\nsecond line\n", "CLAUDE.md": CLAUDE_MD},
    )
    path = write_rollout(tmp_path, model("m", "agent:read"), "fromInstance", parallelism=1)

    prepared = prepare(load_run_config([path]))
    planned = prepared.plan.scaffolds["claude-code"]
    assert (planned.version, planned.notes) == (VERSION, ())
    summary = asyncio.run(execute(prepared, retry_backoff_seconds=0.01))
    assert summary.ok == 1, summary.errors
    assert (scaffold_cache / f"claude-code-{VERSION}" / ".adhere-installed.json").is_file()

    (trial,) = prepared.trials
    result = prepared.store.read_result(trial)
    assert result is not None and result.scaffold_version == VERSION
    assert result.fingerprint_parts["scaffold"] == scaffold_digest(planned.spec, VERSION)

    traj = prepared.store.read_trajectory(trial)
    assert traj is not None
    assert SYSTEM_PROMPT in traj.system  # --system-prompt reached the model in 2.0.69 too
    names = {tool.name for tool in traj.tools}
    assert {"Read", "Write", "Edit", "Bash"} <= names, names
    called, content = tool_round_trip(traj)
    assert called == "Read" and "# demo project" in content
    assert sorted(s.label for s in spans_of(traj, Source.USER_QUERY)) == ["turn 1", "turn 2"]
    assert any(s.label == "CLAUDE.md" for s in spans_of(traj, Source.AGENTS_MD))

    report = report_for(prepared.store)
    assert f"Scaffold versions that ran: claude-code {VERSION} (1 trial)." in report.notes
