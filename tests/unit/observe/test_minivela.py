"""mini-vela's raw logs: read, deduplicated, mapped to adhere's records, imported, normalized.

The fixture (fixtures/mini-vela/) is a hand-written log in mini-vela's format: two
sessions named after instances of examples/octobench-sample — a Claude Code session
(Anthropic messages: thinking, text, tool calls and results, a warm-up call) and a
Kilo session (OpenAI chat messages: a system message, ``tool_calls``, a ``tool``
message). Every call is logged twice, as mini-vela's hooks do, except the last call
of the Claude Code session, logged once. mini-vela's log does not say whether a call
streamed (its proxy gives the callback the assembled response either way), so there is
no streamed/non-streamed distinction to exercise: every imported call reads
``stream: false``.
"""

import json
from pathlib import Path

import pytest

from adhere.artifacts import ProxyCall, RolloutStore
from adhere.core import Check, Instance, Source, Workspace
from adhere.errors import SpecError
from adhere.observe import import_minivela, read_minivela_logs
from adhere.observe._minivela import dedupe, parse_log, proxy_calls
from adhere.store import open_store

FIXTURE = Path(__file__).parent / "fixtures" / "mini-vela"
CLAUDE = FIXTURE / "claude-md-tests.jsonl"
KILO = FIXTURE / "sp-no-emoji-brief.jsonl"


def test_each_call_logged_twice_is_kept_once():
    lines = parse_log(CLAUDE.read_text(), str(CLAUDE))
    assert len(lines) == 9 and lines[0].where == f"{CLAUDE}:1"
    kept, dropped, unpaired = dedupe(lines)
    assert (len(kept), dropped, unpaired) == (5, 4, 1)
    assert [line.where.rsplit(":", 1)[1] for line in kept] == ["1", "3", "5", "7", "9"]
    # a genuine repeat of a call (two more identical pairs) stays two calls
    again = parse_log(KILO.read_text() * 2, str(KILO))
    kept, dropped, unpaired = dedupe(again)
    assert (len(kept), dropped, unpaired) == (4, 4, 0)


def test_calls_become_anthropic_records_in_time_order():
    kept, _, _ = dedupe(parse_log(KILO.read_text(), str(KILO)))
    calls = proxy_calls(list(reversed(kept)), "trial-1")
    assert [c.seq for c in calls] == [0, 1]
    first, second = calls
    assert (first.api, first.status, first.stream, first.trial, first.outcome) == (
        "anthropic", 200, False, "trial-1", "ok",
    )  # fmt: skip
    assert first.started_at == "2026-01-16T21:46:40.000+00:00"
    assert first.response == kept[0].response  # the logged content, untouched
    # the OpenAI chat conversation is carried over in the Anthropic shape
    assert second.request["system"].startswith("You are the code assistant")
    assert second.request["messages"] == [
        {
            "role": "user",
            "content": "<task>\nExplain what restock() in inventory.py does.\n</task>",
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "I will read the file."},
                {
                    "type": "tool_use",
                    "id": "call_a1",
                    "name": "read_file",
                    "input": {"path": "inventory.py"},
                },  # fmt: skip
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_a1",
                    "content": kept[1].request["messages"][3]["content"],
                },  # fmt: skip
            ],
        },
    ]
    # records round-trip through calls.jsonl
    assert ProxyCall.from_json_line(second.to_json_line()) == second
    # an Anthropic conversation is kept as logged
    claude, _, _ = dedupe(parse_log(CLAUDE.read_text(), str(CLAUDE)))
    assert proxy_calls(claude, "t")[1].request == claude[1].request


def _instance(instance_id, first_turn, files):
    return Instance(
        id=instance_id,
        suite="octobench",
        turns=[first_turn],
        workspace=Workspace(files=files),
        checks=[Check(id="c", source=Source.AGENTS_MD, description="follows CLAUDE.md")],
    )


def _store(tmp_path):
    return RolloutStore(open_store(str(tmp_path)), "imported")


def test_import_writes_normalized_trials(tmp_path):
    store = _store(tmp_path)
    imported = {t.session: t for t in import_minivela(FIXTURE, store)}
    assert sorted(imported) == ["claude-md-tests", "sp-no-emoji-brief"]
    claude = imported["claude-md-tests"]
    assert (claude.lines, claude.dropped, claude.calls, claude.unpaired) == (9, 4, 5, 1)
    trial = claude.trial
    assert (trial.model, trial.scaffold, trial.instance, trial.repeat) == (
        "claude-sonnet-4-5-20250929", "mini-vela", "claude-md-tests", 0,
    )  # fmt: skip
    assert [ProxyCall.from_json_dict(c).seq for c in store.read_calls(trial)] == [0, 1, 2, 3, 4]
    result = store.read_result(trial)
    assert result is not None and result.status == "ok" and result.calls == 5
    trajectory = store.read_trajectory(trial)
    assert trajectory is not None and trajectory.system.startswith("You are Claude Code")
    shown = [
        (m.role, m.name or "", m.content[:40], [(c.name, c.id) for c in m.tool_calls])
        for m in trajectory.messages
    ]
    assert shown == [
        ("user", "", "<system-reminder>\nContents of /app/CLAUD", []),
        ("assistant", "", "Let me read inventory.py first.", [("Read", "toolu_01")]),
        ("tool", "Read", "def restock(item: Item, amount: int) -> ", []),
        ("assistant", "", "", [("Edit", "toolu_02")]),
        ("tool", "Edit", "The file /app/inventory.py has been upda", []),
        ("assistant", "", "", [("Bash", "toolu_03")]),
        ("tool", "Bash", "3 passed in 0.02s", []),
        ("assistant", "", "Added total_value(items) with type hints", []),
    ]
    assert trajectory.messages[1].reasoning == "I should read inventory.py before changing it."
    assert trajectory.messages[5].tool_calls[0].arguments == {"command": "python -m pytest -q"}
    assert [len(s.messages) for s in trajectory.subagents] == [2]  # the warm-up call
    assert trajectory.meta["imported_from"] == "mini-vela"
    assert trajectory.sources == []  # no instance given: nothing to tag by

    kilo = store.read_trajectory(imported["sp-no-emoji-brief"].trial)
    assert kilo is not None and kilo.system.startswith("You are the code assistant")
    assert [(m.role, m.content[:30]) for m in kilo.messages] == [
        ("user", "<task>\nExplain what restock() "),
        ("assistant", "I will read the file."),
        ("tool", "def restock(item: Item, amount"),
        ("assistant", "restock() adds amount units to"),
    ]
    assert kilo.messages[3].reasoning == "Answer briefly, no emoji."
    assert store.read_instances() == []


def test_import_with_instances_tags_sources(tmp_path):
    claude_md = (FIXTURE.parents[4] / "examples/octobench-sample/workspaces/claude-md-tests"
                 / "CLAUDE.md").read_text()  # fmt: skip
    instances = {
        "claude-md-tests": _instance(
            "claude-md-tests",
            "Add a function total_value(items) to inventory.py that returns the stock value.",
            {"CLAUDE.md": claude_md},
        ),
        "sp-no-emoji-brief": _instance(
            "sp-no-emoji-brief", "Explain what restock() in inventory.py does.", {}
        ),
    }
    store = _store(tmp_path)
    imported = import_minivela(FIXTURE, store, instances=instances, model="m")
    trajectory = store.read_trajectory(imported[0].trial)
    assert trajectory is not None
    assert {s.source for s in trajectory.sources} >= {
        Source.AGENTS_MD, Source.SYSTEM_REMINDER, Source.USER_QUERY, Source.TOOL_SCHEMA,
    }  # fmt: skip
    assert sorted(i.id for i in store.read_instances()) == sorted(instances)
    with pytest.raises(SpecError, match="session.*not instances of the benchmark") as caught:
        import_minivela(FIXTURE, _store(tmp_path / "other"), instances={})
    assert caught.value.field == "session_id"


def test_import_refuses_a_rollout_that_holds_files(tmp_path):
    store = _store(tmp_path)
    import_minivela(FIXTURE, store)
    with pytest.raises(SpecError, match="already holds files"):
        import_minivela(FIXTURE, store)


GOOD = json.loads(KILO.read_text().splitlines()[0])


@pytest.mark.parametrize(
    ("line", "field", "words"),
    [
        ("{not json", None, "not valid JSON"),
        ("[1, 2]", None, "got list"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "session_id"}), "session_id",
         "Field required"),
        (json.dumps({**GOOD, "session_id": ""}), "session_id", "at least 1 character"),
        (json.dumps({**GOOD, "request_time": "yesterday"}), "request_time", "number"),
        (json.dumps({**GOOD, "request_time": True}), "request_time", "milliseconds"),
        (json.dumps({**GOOD, "request_body": {"messages": "hi"}}), "request_body.messages",
         "valid list"),
        (json.dumps({**GOOD, "response_body": {}}), "response_body.content", "Field required"),
        (json.dumps({"seq": 0, "api": "anthropic", "request": {}}), None,
         "adhere's own format"),
    ],
)  # fmt: skip
def test_malformed_lines_name_file_line_and_field(tmp_path, line, field, words):
    log = tmp_path / "logs" / "s.jsonl"
    log.parent.mkdir()
    log.write_text(KILO.read_text() + "\n" + line + "\n")
    with pytest.raises(SpecError) as caught:
        read_minivela_logs(log.parent)
    assert caught.value.file == f"{log}:6"
    assert caught.value.field == field
    assert words in str(caught.value)
    if field is not None or words == "not valid JSON":
        assert "a mini-vela log line" in str(caught.value)  # the format expected


def test_a_directory_without_logs_is_an_error(tmp_path):
    with pytest.raises(SpecError, match=r"no \*\.jsonl file here"):
        read_minivela_logs(tmp_path)
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(SpecError, match="the logs hold no line"):
        read_minivela_logs(tmp_path)
