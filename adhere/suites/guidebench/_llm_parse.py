"""Answer parsing by an LLM (the paper's Appendix B.9), beside the rule-based parser. Pure.

The suite asks for a :class:`~adhere.core.ModelAsk`: every judge of the rollout's
panel reads the model's reply and returns the answer as a JSON object in the paper's
shape (``CandidateAnswer``/``CandidateAnalysis``, ``OptimalOption``/``AnswerAnalysis``).
Each judge's extraction is read as the public evaluator reads a reply
(:func:`~adhere.suites.guidebench._paper.parse_public`); the panel's answer is the
label most judges extracted (a tie goes to the judge listed first), and it is compared
with the published reference with ``==``, as the paper's evaluation does after parsing.
The wording of the question is this project's own unless the Benchmark gives a
``parser`` template (the paper's Appendix B.9 wording, say); docs/guidebench.md says how
to compare it with the paper's.
"""

from __future__ import annotations

import re
from collections import Counter
from string import Template
from typing import Any

from adhere.core import Evidence, ModelAsk
from adhere.suites.guidebench._normalize import normalize
from adhere.suites.guidebench._paper import PublicAnswer, answer_fields, parse_public
from adhere.suites.guidebench._task import AnswerKind

__all__ = [
    "LLM_PROMPT_VERSION",
    "LLM_REQUEST",
    "agrees",
    "llm_answer",
    "llm_prompt",
    "llm_request",
    "read_llm_prompt",
]

LLM_REQUEST = "llm-parse"
"""The evidence id of the extraction question."""
LLM_PROMPT_VERSION = "guidebench-parse-1"

_WHAT: dict[AnswerKind, str] = {
    "binary": "只能是整数 0 或 1（1 表示肯定，0 表示否定），按整数写，不加引号",
    "relevance": '只能是以下三个字符串之一："2（强相关）"、"1（弱相关）"、"0（不相关）"',
    "numeric": "是最终金额，写成字符串，只写数字，不带单位",
    "option": "是最佳选项的序号，写成一个大写字母字符串",
}


def llm_prompt(
    reply: str, kind: AnswerKind, template: str | None = None, category: str = ""
) -> str:
    """The extraction question about one reply (``template``: a ``parser`` template's text)."""
    answer, analysis = answer_fields(kind)
    if template is not None:  # checked when the Benchmark was loaded
        return Template(template).substitute(
            reply=reply,
            answer_field=answer,
            analysis_field=analysis,
            answer_format=_WHAT[kind],
            category=category,
        )
    return (
        f"请从下面这段回答中分别提取出答案（{answer}）和分析（{analysis}）。{answer} "
        f"{_WHAT[kind]}。只返回一个 JSON 对象，恰好包含这两个字段："
        f'{{"{answer}": "", "{analysis}": ""}}。某个字段在回答中找不到时填空字符串。'
        f"不要返回 JSON 以外的任何内容。\n\n<回答>\n{reply}\n</回答>"
    )


_QUESTION = re.compile(
    r"^请从下面这段回答中分别提取出答案（(\w+)）和分析（\w+）。\w+ (.+?)。只返回.*?"
    r"\n\n<回答>\n(.*)\n</回答>$",
    re.DOTALL,
)


def read_llm_prompt(user: str) -> tuple[str, AnswerKind] | None:
    """The quoted reply and the answer kind of an extraction prompt (``None``: not one)."""
    found = _QUESTION.match(user)
    if found is None:
        return None
    kind = next((k for k, what in _WHAT.items() if what == found.group(2)), None)
    return (found.group(3), kind) if kind is not None else None


def llm_request(
    reply: str, kind: AnswerKind, template: str | None = None, category: str = ""
) -> ModelAsk:
    """The evidence request for one reply (``template``: a ``parser`` template's text)."""
    return ModelAsk(
        id=LLM_REQUEST,
        user=llm_prompt(reply, kind, template, category),
        max_tokens=1024,
        prompt_version=LLM_PROMPT_VERSION,
    )


def llm_answer(
    evidence: Evidence, kind: AnswerKind, reference: Any
) -> tuple[PublicAnswer, dict[str, Any]]:
    """The panel's extracted answer, and each judge's extraction (or why it gave none)."""
    replies: dict[str, str] = dict(evidence.data.get("replies") or {})
    read = {judge: parse_public(text, kind, reference) for judge, text in replies.items()}
    extractions: dict[str, Any] = {judge: found.value for judge, found in read.items()}
    extractions.update({j: {"error": e} for j, e in (evidence.data.get("errors") or {}).items()})
    usable = [found for found in read.values() if found.value not in (None, "")]
    if not usable:
        first = next(iter(read.values()), None)
        if first is None:
            return PublicAnswer(None, False, "", "no judge replied"), extractions
        return first, extractions
    votes = Counter(found.label for found in usable)
    best = max(votes.values())
    winner = next(found for found in usable if votes[found.label] == best)
    return winner, extractions


def agrees(
    found: PublicAnswer, rules_value: str | None, kind: AnswerKind, options: tuple[str, ...]
) -> bool:
    """Whether the LLM's extraction and the rule-based parser found the same answer.

    The LLM's value is normalized as the rule-based parser's is (``"1"`` and ``1`` are
    one answer here); both finding nothing agrees.
    """
    if found.value in (None, ""):
        return rules_value is None
    return normalize(kind, found.value, options).value == rules_value
