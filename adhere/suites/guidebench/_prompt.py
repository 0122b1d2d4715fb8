"""The prompt frame: a system prompt and one user message per task, in Chinese.

The tasks are Chinese, so the frame is too (this project's own wording; see
docs/guidebench.md). Four variants: with the guidelines (default) or without them
(the ablation), and reasoning before a final JSON line (default, chain of thought)
or the JSON line alone (direct answer). Every variant ends with the same fixed
answer shape, ``{"answer": …}``, written the way the published reference answers
are written (price: integer 0/1; relevance: ``2（强相关）``; math: the amount as a
string; options: the letter).
"""

from __future__ import annotations

import json

from adhere.suites.guidebench._task import RELEVANCE_LABELS, AnswerKind, Task, published_form

SYSTEM_WITH_GUIDELINES = (
    "你是一名严格按照业务规则工作的审核助手。每道题包含任务说明、业务规则和材料。"
    "请只依据题目给出的规则和材料作答；规则与常识或习惯做法不一致时，以规则为准。"
)
SYSTEM_WITHOUT_GUIDELINES = "你是一名审核助手。每道题包含任务说明和材料。请依据材料和你的判断作答。"

_ANSWER_SPEC: dict[AnswerKind, tuple[str, str]] = {
    "binary": ("按任务要求判断：两者一致（同品）答 1，不一致答 0。", "<1 或 0>"),
    "relevance": (
        "从三个标签中选择一个："
        + "、".join(f"{grade}（{name}）" for grade, name in RELEVANCE_LABELS.items())
        + "，原样写出标签。",
        '"<标签，如 1（弱相关）>"',
    ),
    "numeric": ("给出最终需要支付的金额（单位：元），只写数字，不写单位。", '"<金额>"'),
    "option": ("从选项中选出最符合规则的一项，写出它的字母。", '"<选项字母>"'),
}


def system_prompt(*, guidelines: bool) -> str:
    """The system prompt of a variant."""
    return SYSTEM_WITH_GUIDELINES if guidelines else SYSTEM_WITHOUT_GUIDELINES


def render_prompt(task: Task, *, guidelines: bool = True, reasoning: bool = True) -> str:
    """The user message of a task in the chosen variant."""
    parts = [f"【任务】\n{task.instruction}"]
    if guidelines:
        rules = "\n".join(
            f"{n}. （{rule.type}）{rule.rule_text}" for n, rule in enumerate(task.guidelines, 1)
        )
        parts.append(f"【业务规则】\n{rules}")
    parts.append(f"【材料】\n{task.context}")
    if task.options:
        parts.append("【选项】\n" + "\n".join(f"{letter}. {text}" for letter, text in task.options))
    what, shape = _ANSWER_SPEC[task.info.kind]
    example = '{"answer": ' + shape + "}"
    if reasoning:
        against = "规则" if guidelines else "要求"
        how = f"先结合材料逐条对照{against}写出推理过程，最后单独一行只输出 JSON：{example}"
    else:
        how = f"不要写推理过程，只输出一行 JSON：{example}"
    parts.append(f"【作答要求】\n{what}\n{how}")
    return "\n\n".join(parts)


def format_answer(kind: AnswerKind, value: str) -> str:
    """The final JSON line for a canonical value, in the published form."""
    return json.dumps({"answer": published_form(kind, value)}, ensure_ascii=False)


def adhere_reply(task: Task, value: str, *, reasoning: bool) -> str:
    """A reply in adhere's frame: the analysis (when asked for), then the JSON line."""
    final = format_answer(task.info.kind, value)
    if not reasoning:
        return final
    return f"{task.analysis.strip() or '逐条对照规则后得出结论。'}\n\n{final}"
