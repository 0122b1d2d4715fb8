"""Answer parsing and normalization, table-driven (every normalization step appears)."""

import pytest

from adhere.suites.guidebench import STEPS, normalize, parse_answer

OPTIONS = ("A", "B", "C", "D")

# (reply, kind, expected value, where found, normalization steps)
CASES = [
    # JSON object, fenced JSON, markers, bare labels at the end
    ('{"answer": 1}', "binary", "1", "json", ()),
    ('推理……\n{"answer": 0}', "binary", "0", "json", ()),
    ('```json\n{"answer": "A"}\n```', "option", "A", "fenced json", ()),
    ('```\n{"answer": "B"}\n```', "option", "B", "fenced json", ()),
    (
        '先写 {"answer": "A"} 再改主意\n```json\n{"answer": "C"}\n```',
        "option",
        "C",
        "fenced json",
        (),
    ),
    ('{"note": 1}\n{"答案": "D"}', "option", "D", "json", ()),
    ('{"Final_Answer": "497.5"}', "numeric", "497.5", "json", ()),
    ("分析……\n答案：B", "option", "B", "marker", ()),
    ("最终答案是 2（强相关）", "relevance", "2", "marker", ()),
    ("Answer: 170", "numeric", "170", "marker", ()),
    ("A", "option", "A", "tail", ()),
    ("分析……\n2（强相关）", "relevance", "2", "tail", ()),
    ("所以总共需要支付130 + 40 = 170元。", "numeric", "170", "tail", ()),
    ("因此选择 B。", "option", "B", "tail", ()),
    ("综上，判定为1", "binary", "1", "tail", ()),
    # int vs str
    ('{"answer": "1"}', "binary", "1", "json", ("string→int",)),
    ('{"answer": 497.5}', "numeric", "497.5", "json", ("number→string",)),
    ('{"answer": 170}', "numeric", "170", "json", ("number→string",)),
    ('{"answer": 2}', "relevance", "2", "json", ("number→string", "label digit only")),
    # numeric normalization
    ('{"answer": "695.0"}', "numeric", "695", "json", ("numeric format",)),
    ('{"answer": "497.50"}', "numeric", "497.5", "json", ("numeric format",)),
    ('{"answer": 695.0}', "numeric", "695", "json", ("number→string", "numeric format")),
    ('{"answer": "1,125"}', "numeric", "1125", "json", ("numeric format",)),
    ('{"answer": "170元"}', "numeric", "170", "json", ("unit",)),
    ('{"answer": "￥1,421.50"}', "numeric", "1421.5", "json", ("unit", "numeric format")),
    ('{"answer": "1.0"}', "binary", "1", "json", ("string→int", "numeric format")),
    ('{"answer": 1.0}', "binary", "1", "json", ("numeric format",)),
    # full- and half-width parentheses, labels given in part
    ('{"answer": "2（强相关）"}', "relevance", "2", "json", ()),
    ('{"answer": "2(强相关)"}', "relevance", "2", "json", ("half-width parentheses",)),
    ('{"answer": "1 （弱相关）"}', "relevance", "1", "json", ("whitespace/quotes",)),
    ('{"answer": "2"}', "relevance", "2", "json", ("label digit only",)),
    ('{"answer": "不相关"}', "relevance", "0", "json", ("label name only",)),
    ('{"answer": "同品"}', "binary", "1", "json", ("label name only",)),
    ('{"answer": "１７０"}', "numeric", "170", "json", ("full-width characters",)),
    ('{"answer": "Ｃ"}', "option", "C", "json", ("full-width characters",)),
    # whitespace and quotes
    ('{"answer": "  A "}', "option", "A", "json", ("whitespace/quotes",)),
    ('{"answer": "“B”"}', "option", "B", "json", ("whitespace/quotes",)),
    ("答案：**D**", "option", "D", "marker", ("whitespace/quotes",)),
    ("答案：「170」。", "numeric", "170", "marker", ("whitespace/quotes",)),
    # option letters
    ('{"answer": "a"}', "option", "A", "json", ("case",)),
    ('{"answer": "选项B"}', "option", "B", "json", ("option decoration",)),
    ('{"answer": "(C)"}', "option", "C", "json", ("option decoration",)),
    ('{"answer": "A."}', "option", "A", "json", ("option decoration",)),
    ('{"answer": "A. 遵循规定"}', "option", "A", "json", ("option text",)),
]


@pytest.mark.parametrize(("reply", "kind", "value", "via", "steps"), CASES)
def test_parse_table(reply: str, kind, value: str, via: str, steps: tuple[str, ...]) -> None:
    parsed = parse_answer(reply, kind, OPTIONS)
    assert (parsed.value, parsed.via, parsed.steps) == (value, via, steps), parsed
    assert parsed.error == ""


def test_every_normalization_step_is_exercised() -> None:
    seen = {step for case in CASES for step in case[4]}
    assert seen == set(STEPS)


INVALID = [
    ("", "option", "none"),
    ("I am not sure.", "option", "none"),
    ("I cannot tell from the information given.", "numeric", "none"),
    ('{"answer": "E"}', "option", "json"),  # not one of the options
    ('{"answer": "2（弱相关）"}', "relevance", "json"),  # grade and name disagree
    ('{"answer": 3}', "relevance", "json"),
    ('{"answer": 2}', "binary", "json"),
    ('{"answer": true}', "binary", "json"),
    ('{"answer": null}', "numeric", "json"),
    ('{"answer": ["A"]}', "option", "json"),
    ('{"answer": "大约170"}', "numeric", "json"),
    ('{"answer": "A或B"}', "option", "json"),
    ("答案：不确定", "option", "marker"),
]


@pytest.mark.parametrize(("reply", "kind", "via"), INVALID)
def test_unusable_answers_are_invalid_with_a_reason(reply: str, kind, via: str) -> None:
    parsed = parse_answer(reply, kind, OPTIONS)
    assert parsed.value is None and parsed.via == via and parsed.error


def test_a_bad_json_answer_does_not_fall_back_to_a_later_guess() -> None:
    # The JSON holds the answer; a trailing letter elsewhere must not rescue it.
    parsed = parse_answer('{"answer": "E"}\n所以是 A', "option", OPTIONS)
    assert parsed.value is None and parsed.via == "json"


def test_normalize_keeps_canonical_values_unchanged() -> None:
    assert normalize("numeric", "170").steps == ()
    assert normalize("relevance", "0（不相关）").value == "0"
    assert normalize("binary", 0).value == "0"
    assert normalize("option", "B", OPTIONS).steps == ()
