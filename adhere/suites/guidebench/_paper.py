"""The paper's prompt frame and its public evaluator's parsing. Pure.

The frame follows the structure of the public code's templates (``generate_resp.py``):
one user message with the task in tags, ``<Instruction>``, ``<Guidelines>`` (the list of
rule objects in Python's text form, as ``str.format`` shows it there), ``<Context>``,
``<Options>`` (the published ``MultipleOptions`` text), asking for a JSON object with
an answer field and an analysis field. The wording is this project's own (Chinese,
like the tasks); a user who wants the paper's exact wording supplies it as a template
file (docs/guidebench.md, "Prompt templates").

Parsing follows ``evaluate.py``: the reply, stripped, loses a leading ```` ```json ````
and a trailing ```` ``` ````; the rest must be one JSON object; its answer field
(``CandidateAnswer``, or ``OptimalOption`` for option tasks) is compared with the
published reference with ``==`` (so ``"1"`` is not ``1`` and ``2(强相关)`` is not
``2（强相关）``). For precision and recall a missing answer becomes the public
evaluator's placeholder label: ``"0"`` for math, ``"-1(No Result)"`` for relevance,
``-1`` for price (an empty string too), ``"E"`` for option tasks (any non-string).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from adhere.suites.guidebench._task import AnswerKind, Task

__all__ = [
    "PublicAnswer",
    "answer_fields",
    "label_text",
    "paper_prompt",
    "paper_reply",
    "parse_public",
    "rules_as_code_shows_them",
]

_SPEC: dict[AnswerKind, str] = {
    "binary": "$answer_field 只填 0 或 1：1 表示肯定（同品），0 表示否定",
    "relevance": '$answer_field 只填三个判断之一："2（强相关）"、"1（弱相关）"、"0（不相关）"',
    "numeric": "$answer_field 只填最终金额，字符串，不带单位“元”",
    "option": "$answer_field 只填最佳选项的序号（字母）",
}
_ANALYSIS: dict[AnswerKind, str] = {
    "binary": "$analysis_field 写简要的判断理由",
    "relevance": "$analysis_field 写必要的分析过程，字符串",
    "numeric": "$analysis_field 写必要的计算过程，字符串",
    "option": "$analysis_field 简要说明最佳选项与其他选项的差别",
}


def answer_fields(kind: AnswerKind) -> tuple[str, str]:
    """The JSON fields of the answer and of the analysis for a kind of task."""
    if kind == "option":
        return "OptimalOption", "AnswerAnalysis"
    return "CandidateAnswer", "CandidateAnalysis"


def rules_as_code_shows_them(task: Task) -> str:
    """The guidelines as the paper's code puts them in its prompt: ``str()`` of the list."""
    return str(
        [{"type": r.type, "rule_id": r.rule_id, "rule_text": r.rule_text} for r in task.guidelines]
    )


def paper_prompt(task: Task, *, guidelines: bool, reasoning: bool) -> str:
    """The user message of the paper's frame, as a template (``$`` variables unfilled).

    Returned as ``string.Template`` text so the suite fills it exactly as it fills a
    user's template file (the same variables).
    """
    kind = task.info.kind
    lines = [
        "请根据下面的任务目标、用户规则和文案作答。"
        if guidelines
        else "请根据下面的任务目标和文案作答。",
        "任务目标：",
        "<Instruction>$instruction</Instruction>",
    ]
    if guidelines:
        lines += ["用户定义的规则：", "<Guidelines>$guidelines</Guidelines>"]
    lines += ["文案：", "<Context>$context</Context>"]
    if kind == "option":
        lines += ["候选选项：", "<Options>$options</Options>"]
        against = "任务目标和规则" if guidelines else "任务目标"
        lines.append(f"请逐一比较各选项是否符合{against}、是否准确完整，选出最佳的一项。")
    spec = _SPEC[kind]
    if reasoning:
        lines.append(
            f"以 JSON 输出，含两个字段 $answer_field 和 $analysis_field：{spec}；"
            f"{_ANALYSIS[kind]}，不要写出 rule_id 和 type。"
        )
    else:
        lines.append(f"以 JSON 输出，只含一个字段 $answer_field：{spec}，不要输出分析过程。")
    return "$shots" + "\n".join(lines)


def label_text(value: Any) -> str:
    """A parsed value as a label: its JSON text, whole floats as integers (``1.0`` → ``1``).

    ``==`` in the public evaluator tells ``"1"`` from ``1``, so the labels keep the type;
    ``1.0 == 1`` there, so they are one label here.
    """
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


_PLACEHOLDER: dict[AnswerKind, Any] = {
    "numeric": "0",
    "relevance": "-1(No Result)",
    "binary": -1,
    "option": "E",
}


@dataclass(frozen=True)
class PublicAnswer:
    """One reply as the public evaluator reads it."""

    value: Any
    """The answer field's value (``None`` when missing)."""
    correct: bool
    label: str
    """The label precision and recall count (the placeholder's when missing)."""
    error: str = ""


def clean(reply: str) -> str:
    """``clean_response`` of the public code: strip, then a ```` ```json ```` and ```` ``` ````."""
    text = reply.strip()
    if text.startswith("```json"):
        text = text[len("```json") :].strip()
    if text.endswith("```"):
        text = text[:-3].strip()
    return text


def parse_public(reply: str, kind: AnswerKind, reference: Any) -> PublicAnswer:
    """The answer of ``reply`` read, compared and labelled as the public evaluator does."""
    field_name = answer_fields(kind)[0]
    error = ""
    try:
        data = json.loads(clean(reply))
    except ValueError:
        data, error = {}, "the reply is not one JSON object (after stripping a ```json fence)"
    if not isinstance(data, dict):
        data, error = {}, "the reply's JSON is not an object"
    value = data.get(field_name)
    if value is None and not error:
        error = f"no {field_name} in the reply's JSON"
    shown = value
    if kind == "option":
        shown = value if isinstance(value, str) else _PLACEHOLDER[kind]
    elif value is None or (kind == "binary" and value == ""):
        shown = _PLACEHOLDER[kind]
    return PublicAnswer(value, value is not None and value == reference, label_text(shown), error)


def paper_reply(kind: AnswerKind, value: Any, analysis: str, *, reasoning: bool) -> str:
    """A reply in the paper's JSON shape (what the scripted oracle answers)."""
    answer, analysis_field = answer_fields(kind)
    body: dict[str, Any] = {answer: value}
    if reasoning:
        body[analysis_field] = analysis.strip() or "逐条对照规则后得出结论。"
    return json.dumps(body, ensure_ascii=False)
