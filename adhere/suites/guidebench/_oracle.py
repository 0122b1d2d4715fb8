"""What the scripted ``oracle`` and ``noisy`` policies answer to a GuideBench task.

The oracle writes the task's published analysis as its reasoning (chain-of-thought
variant) and ends with the answer in the requested JSON shape. The noisy policy
answers the item ``answer`` wrongly when its seeded draw says so, and, when its draw
for the item ``format`` says so, writes a correct-or-wrong answer in another shape
that still parses (fenced JSON, ``695.0``, ``"1"``, ``2(强相关)``, ``选项A`` …), so
reports show the answer normalizations at work.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from fractions import Fraction

from adhere.suites.guidebench._coupons import fraction, money
from adhere.suites.guidebench._paper import paper_reply
from adhere.suites.guidebench._prompt import format_answer
from adhere.suites.guidebench._task import RELEVANCE_LABELS, AnswerKind, published_form

ANSWER_ITEM = "answer"
"""The item key the noisy policy draws for a wrong answer."""
FORMAT_ITEM = "format"
"""The item key the noisy policy draws for a differently written answer."""


def wrong_value(kind: AnswerKind, gold: str, options: tuple[str, ...]) -> str:
    """A valid label other than ``gold`` (a different amount for numeric tasks)."""
    if kind == "binary":
        return "0" if gold == "1" else "1"
    if kind == "relevance":
        grades = list(RELEVANCE_LABELS)
        return grades[(grades.index(gold) + 1) % len(grades)]
    if kind == "option":
        return options[(options.index(gold) + 1) % len(options)]
    return money(fraction(gold) + Fraction(10))


def _variants(kind: AnswerKind, value: str) -> list[str]:
    """Other ways of writing the final answer that the parser accepts."""
    plain = format_answer(kind, value)
    out = ["```json\n" + plain + "\n```", f"答案：{published_form(kind, value)}"]
    if kind == "binary":
        out.append(json.dumps({"answer": value}))
    elif kind == "relevance":
        name = RELEVANCE_LABELS[value]
        out += [
            json.dumps({"answer": f"{value}({name})"}, ensure_ascii=False),
            json.dumps({"answer": int(value)}),
        ]
    elif kind == "numeric":
        number = fraction(value)
        out += [
            json.dumps({"answer": f"{money(number)}.0" if "." not in value else value + "0"}),
            json.dumps({"answer": float(number) if "." in value else int(number)}),
            json.dumps({"answer": f"{value}元"}, ensure_ascii=False),
        ]
    else:
        out += [
            json.dumps({"answer": value.lower()}),
            json.dumps({"answer": f"选项{value}"}, ensure_ascii=False),
        ]
    return out


def oracle_text(
    *,
    instance_id: str,
    kind: AnswerKind,
    gold: str,
    options: tuple[str, ...],
    analysis: str,
    reasoning: bool,
    wrong: Callable[[str], bool],
    frame: str = "adhere",
    old: str | None = None,
) -> str:
    """The full reply: reasoning (when asked for) and the final answer.

    ``old``: for a rule-edited task, the answer before the edit, which the ``answer``
    item's wrong reply gives (a model ignoring the edit).
    ``frame="paper"``: one JSON object in the paper's shape; the ``format`` item then
    writes it in a way only a lenient parser reads right (prose before it, ``"1"`` for
    ``1``, ``2(强相关)``, ``695.0``, ``a``) or fenced (which the public parser strips).
    """
    value = gold
    if wrong(ANSWER_ITEM):  # a rule-edited task: the wrong answer is the one before the edit
        value = old if old is not None else wrong_value(kind, gold, options)
    if frame == "paper":
        return _paper_text(instance_id, kind, value, analysis, reasoning, wrong(FORMAT_ITEM))
    final = format_answer(kind, value)
    if wrong(FORMAT_ITEM):
        variants = _variants(kind, value)
        final = variants[zlib.crc32(instance_id.encode()) % len(variants)]
    if not reasoning:
        return final
    thinking = analysis.strip() or "逐条对照规则后得出结论。"
    return f"{thinking}\n\n{final}"


def _paper_text(
    instance_id: str, kind: AnswerKind, value: str, analysis: str, reasoning: bool, odd: bool
) -> str:
    shown: object = published_form(kind, value)
    if not odd:
        return paper_reply(kind, shown, analysis, reasoning=reasoning)
    pick = zlib.crc32(instance_id.encode()) % 3
    if pick == 0:
        return "```json\n" + paper_reply(kind, shown, analysis, reasoning=reasoning) + "\n```"
    if pick == 1:
        body = paper_reply(kind, shown, analysis, reasoning=reasoning)
        return f"{analysis.strip() or '分析如下。'}\n\n{body}"
    odd_value: object = value.lower()
    if kind == "binary":
        odd_value = str(value)
    elif kind == "relevance":
        odd_value = f"{value}({RELEVANCE_LABELS[value]})"
    elif kind == "numeric":
        odd_value = value + ".0" if "." not in value else value + "0"
    return paper_reply(kind, odd_value, analysis, reasoning=reasoning)
