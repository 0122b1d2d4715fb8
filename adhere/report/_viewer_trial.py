"""The trial viewer's per-trial pages: checks with their evidence, the transcript, the calls."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence

from adhere.core import SYSTEM_INDEX, TOOLS_INDEX, ChatMessage, SourceSpan, Trajectory, Verdict
from adhere.report._viewer_data import TrialData, calls_text, disagreements
from adhere.report._viewer_html import (
    REPORT_PAGE,
    ROLLOUT_PAGE,
    TRIALS_PAGE,
    calls_page_name,
    check_anchor,
    esc,
    highlight,
    link,
    page,
    table,
    trial_page_name,
)

__all__ = ["calls_page", "message_anchor", "trial_page"]


def message_anchor(index: int) -> str:
    """The element id of a transcript message (``msg-system`` for the system prompt)."""
    return "msg-system" if index == SYSTEM_INDEX else f"msg-{index}"


def _nav(trial_id: str, *, calls: bool) -> str:
    parts = [
        link(REPORT_PAGE, "report"),
        link(ROLLOUT_PAGE, "rollout"),
        link(TRIALS_PAGE, "all trials"),
    ]
    if calls:
        parts.append(link(calls_page_name(trial_id), "raw call log", id="calls-link"))
    return "<nav>" + "".join(parts) + "</nav>"


def trial_page(data: TrialData) -> str:
    """One trial: its checks, its transcript with the instruction-source spans marked.

    Each check shows its verdict, decider, reasoning, a link to its evidence message and
    every judge's verdict side by side (disagreements marked).
    """
    result = data.result
    trial = result.trial
    title = f"{trial.model} / {trial.scaffold} / {trial.instance} / r{trial.repeat}"
    body = [_nav(trial.id, calls=data.calls is not None), f"<h1>Trial {esc(title)}</h1>"]
    facts = [
        ("trial id", trial.id),
        ("status", result.status),
        ("attempt", str(result.attempt)),
        ("duration", f"{result.duration_seconds:.1f} s"),
        ("model calls", str(result.calls)),
        ("tokens in / out", f"{result.input_tokens} / {result.output_tokens}"),
    ]
    if result.scaffold_version:
        facts.append(("scaffold version", result.scaffold_version))
    if result.error:
        facts.append(("error", result.error))
    body.append(table(["", ""], facts))
    body += [f"<p class='error'>could not read {esc(p)}</p>" for p in data.problems]
    messages = len(data.trajectory.messages) if data.trajectory else 0
    body += ["<h2 id='checks'>Checks</h2>", _checks_table(data, messages)]
    if data.trajectory is None:
        body.append("<p>No trajectory is stored for this trial.</p>")
    else:
        cited = _cited(data.verdicts)
        body += ["<h2 id='transcript'>Transcript</h2>", *_transcript(data.trajectory, cited)]
    body += _workspace(data)
    body += _scaffold_turns(data.scaffold)
    return page(f"adhere trial {title}", body)


def _checks_table(data: TrialData, messages: int) -> str:
    checks = list(data.instance.checks) if data.instance else []
    known = {c.id for c in checks}
    verdicts = {v.check_id: v for v in data.verdicts}
    extra = [v.check_id for v in data.verdicts if v.check_id not in known]
    judges = sorted(data.judged)
    per_judge = {j: {v.check_id: v for v in data.judged[j]} for j in judges}
    disagree = disagreements(data.judged)
    header = ["check", "source", "type", "verdict", "decided by", "reasoning", "evidence"]
    header += [f"judge {j}" for j in judges]
    if judges:
        header.append("judges")
    rows = []
    info = {c.id: (c.source.value, c.kind.value, c.description) for c in checks}
    for check_id in [c.id for c in checks] + extra:
        source, kind, description = info.get(check_id, ("", "", ""))
        verdict = verdicts.get(check_id)
        result = verdict.result if verdict else "undecided"
        cells = [
            f"<b>{esc(check_id)}</b><div class='box'>{esc(description)}</div>",
            esc(source),
            esc(kind),
            f"<span class='verdict {_css(result)}'>{esc(result)}</span>",
            esc(verdict.decided_by) if verdict else "",
            f"<div class='box'>{esc(verdict.reasoning)}</div>" if verdict else "",
            _evidence_link(verdict, messages, check_id),
        ]
        for j in judges:
            found = per_judge[j].get(check_id)
            cells.append(
                ""
                if found is None
                else f"<span class='{_css(found.result)}'>{esc(found.result)}</span>"
                f"<div class='box'>{esc(found.reasoning)}</div>"
                + _evidence_link(found, messages, f"{check_id}-{j}")
            )
        if judges:
            cells.append("<b class='fail'>disagree</b>" if check_id in disagree else "agree")
        css = " class='disagree'" if check_id in disagree else ""
        rows.append(
            f"<tr id='{esc(check_anchor(check_id))}'{css}>"
            + "".join(f"<td>{c}</td>" for c in cells)
            + "</tr>"
        )
    head = "<tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr>"
    return f"<table class='checks'>{head}{''.join(rows)}</table>"


def _css(result: str) -> str:
    return {"pass": "pass", "fail": "fail", "error": "error"}.get(result, "incomplete")


def _evidence_link(verdict: Verdict | None, messages: int, key: str) -> str:
    if verdict is None or verdict.evidence is None:
        return ""
    index = verdict.evidence
    if index == SYSTEM_INDEX:
        return link("#" + message_anchor(index), "system prompt", class_="evidence")
    if 0 <= index < messages:
        return link("#" + message_anchor(index), f"message {index}", class_="evidence")
    return f"<span title='not in the stored transcript'>message {esc(index)}</span>"


def _cited(verdicts: Sequence[Verdict]) -> dict[int, list[str]]:
    cited: dict[int, list[str]] = {}
    for v in verdicts:
        if v.evidence is not None:
            cited.setdefault(v.evidence, []).append(v.check_id)
    return cited


def _transcript(trajectory: Trajectory, cited: Mapping[int, list[str]]) -> list[str]:
    spans: dict[int, list[SourceSpan]] = {}
    for span in trajectory.sources:
        spans.setdefault(span.message_index, []).append(span)
    out = []
    if trajectory.system:
        out.append(
            f"<div class='msg system' id='{message_anchor(SYSTEM_INDEX)}'>"
            f"<div class='role'>system prompt{_citing(cited.get(SYSTEM_INDEX, []))}</div>"
            f"<pre>{highlight(trajectory.system, spans.get(SYSTEM_INDEX, []))}</pre></div>"
        )
    if trajectory.tools:
        tagged = {s.start: s for s in spans.get(TOOLS_INDEX, [])}
        items = []
        for position, tool in enumerate(trajectory.tools):
            tag = tagged.get(position)
            name = esc(tool.name)
            if tag is not None:
                value = esc(tag.source.value)
                name = f"<mark class='src-{value}' title='{value}'>{name}</mark>"
            items.append(
                f"<details><summary>{name}</summary><pre>{esc(tool.description)}\n"
                f"{esc(json.dumps(tool.parameters, indent=1, sort_keys=True))}</pre></details>"
            )
        out.append(f"<div class='msg tools'><div class='role'>tools</div>{''.join(items)}</div>")
    for index, message in enumerate(trajectory.messages):
        out.append(_message(index, message, spans.get(index, []), cited.get(index, [])))
    for number, sub in enumerate(trajectory.subagents, start=1):
        inner = "".join(
            f"<div class='msg {esc(m.role)}'><div class='role'>{esc(m.role)}</div>"
            f"<pre>{esc(m.content)}</pre>{_tool_calls(m)}</div>"
            for m in sub.messages
        )
        out.append(f"<details><summary>sub-conversation {number}</summary>{inner}</details>")
    return out


def _citing(checks: Sequence[str]) -> str:
    if not checks:
        return ""
    links = ", ".join(link("#" + check_anchor(c), c) for c in checks)
    return f" — evidence for {links}"


def _message(index: int, message: ChatMessage, spans: list[SourceSpan], cited: list[str]) -> str:
    role = message.role
    label = f"{index} · {role}"
    if message.name:
        label += f" ({message.name})"
    if message.tool_call_id:
        label += f" — result of {message.tool_call_id}"
    tags = sorted({s.source.value for s in spans})
    tag_text = f" [{', '.join(tags)}]" if tags else ""
    parts = [
        f"<div class='msg {esc(role)}' id='{message_anchor(index)}'>",
        f"<div class='role'>{esc(label + tag_text)}{_citing(cited)}</div>",
    ]
    if message.reasoning:
        parts.append(
            f"<details><summary>reasoning</summary><pre>{esc(message.reasoning)}</pre></details>"
        )
    if message.content:
        parts.append(f"<pre class='content'>{highlight(message.content, spans)}</pre>")
    parts += [_tool_calls(message), "</div>"]
    return "".join(parts)


def _tool_calls(message: ChatMessage) -> str:
    return "".join(
        f"<div class='call'>→ tool call <b>{esc(call.name)}</b> ({esc(call.id)})"
        f"<pre>{esc(json.dumps(call.arguments, ensure_ascii=False, indent=1))}</pre></div>"
        for call in message.tool_calls
    )


def _workspace(data: TrialData) -> list[str]:
    """The workspace diff when the final files are stored, else the files the scaffold listed."""
    after = data.trajectory.files if data.trajectory else {}
    before = data.instance.workspace.files if data.instance else {}
    if after:
        chunks = []
        for path in sorted(set(before) | set(after)):
            old, new = before.get(path), after.get(path)
            if old == new:
                continue
            diff = difflib.unified_diff(
                (old or "").splitlines(keepends=True),
                (new or "").splitlines(keepends=True),
                fromfile=f"a/{path}" if old is not None else "/dev/null",
                tofile=f"b/{path}" if new is not None else "/dev/null",
            )
            chunks.append("".join(diff))
        text = "\n".join(chunks) or "(no file changed)"
        return ["<h2 id='workspace'>Workspace diff</h2>", f"<pre class='box'>{esc(text)}</pre>"]
    files = data.scaffold.get("files")
    if isinstance(files, list | dict) and files:
        listed = "".join(f"<li>{esc(f)}</li>" for f in files)
        return [
            "<h2 id='workspace'>Workspace files</h2>",
            "<p>The final files' contents are not stored; the scaffold listed:</p>",
            f"<ul>{listed}</ul>",
        ]
    return []


def _scaffold_turns(scaffold: Mapping[str, object]) -> list[str]:
    turns = scaffold.get("turns")
    if not isinstance(turns, list) or not turns:
        return []
    rows = []
    for number, turn in enumerate(turns, start=1):
        if not isinstance(turn, dict):
            continue
        output = f"{turn.get('stdout_tail', '')}{turn.get('stderr_tail', '')}"
        rows.append(
            [
                esc(number),
                esc(turn.get("exit_code", "")),
                esc(turn.get("seconds", "")),
                "yes" if turn.get("timed_out") else "no",
                f"<pre class='box'>{esc(output)}</pre>" if output else "",
            ]
        )
    header = ["turn", "exit code", "seconds", "timed out", "output (tail)"]
    return ["<h2 id='scaffold'>Scaffold turns</h2>", table(header, rows, raw=True)]


def calls_page(data: TrialData) -> str:
    """The raw call log of a trial, one record after another (escaped)."""
    trial = data.result.trial
    body = [
        _nav(trial.id, calls=False),
        link(trial_page_name(trial.id), "back to the trial"),
        f"<h1>Raw call log — {esc(trial.model)} / {esc(trial.scaffold)} / "
        f"{esc(trial.instance)} / r{trial.repeat}</h1>",
    ]
    records = calls_text(data.calls or [])
    if not records:
        body.append("<p>No model call is recorded.</p>")
    for number, text in enumerate(records):
        body.append(f"<h3 id='call-{number}'>call {number}</h3><pre class='box'>{esc(text)}</pre>")
    return page(f"adhere calls {trial.id}", body)
