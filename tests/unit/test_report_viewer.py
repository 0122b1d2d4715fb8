"""The trial viewer's pure parts: span highlighting, inert data, verdict words, disputes."""

from __future__ import annotations

import json

from adhere.core import Source, SourceSpan, Verdict
from adhere.metrics import ScoredTrial
from adhere.report._viewer_data import disagreements, trial_verdict
from adhere.report._viewer_html import check_anchor, highlight, json_script


def span(source: Source, start: int, end: int, label: str = "") -> SourceSpan:
    return SourceSpan(source=source, message_index=0, start=start, end=end, label=label)


def test_overlapping_spans_mark_every_piece_with_all_its_sources_and_escape_it() -> None:
    text = "<b>Always</b> reply & cite"
    out = highlight(
        text, [span(Source.SYSTEM_PROMPT, 0, 13, "rule"), span(Source.USER_QUERY, 7, 20)]
    )
    assert "<b>" not in out and "&lt;b&gt;Always&lt;/b&gt;" in out.replace("</mark>", "").replace(
        '<mark class="src-SP" title="SP: rule">', ""
    ).replace('<mark class="src-SP" title="SP: rule, UserQuery">', "")
    assert out.count("<mark") == 3  # [0,7) SP, [7,13) SP+UserQuery, [13,20) UserQuery
    assert 'title="SP: rule, UserQuery"' in out and 'class="src-UserQuery"' in out
    assert out.endswith(" cite")  # after the last span: plain, escaped text


def test_spans_past_the_text_end_are_cut_not_crashed_on() -> None:
    out = highlight("short", [span(Source.MEMORY, 2, 50)])
    assert out == 'sh<mark class="src-Memory" title="Memory">ort</mark>'


def test_json_for_the_page_script_cannot_close_its_element() -> None:
    data = [{"instance": "</script><script>alert(1)</script>", "x": "a&b"}]
    out = json_script("trial-index", data)
    body = out.removeprefix('<script type="application/json" id="trial-index">')
    body = body.removesuffix("</script>")
    assert "<" not in body and ">" not in body and "&" not in body
    assert json.loads(body) == data


def test_check_anchors_are_safe_ids_and_distinct() -> None:
    ids = ["SP_no_emoji", "a b", "a_20_b", "a.20.b", "a.b", "x'\"<>"]
    anchors = [check_anchor(i) for i in ids]
    assert anchors[0] == "check-SP_no_emoji"
    assert len(set(anchors)) == len(ids)
    assert all(a.replace("-", "").replace("_", "").replace(".", "").isalnum() for a in anchors)


def scored(status: str, verdicts: list[tuple[str, str]], expected: tuple[str, ...]) -> ScoredTrial:
    return ScoredTrial(
        keys={"trial": "t"},
        status=status,  # type: ignore[arg-type]
        verdicts=[Verdict(check_id=c, result=r, decided_by="x") for c, r in verdicts],  # type: ignore[arg-type]
        expected=expected,
    )


def test_a_trial_is_pass_only_when_every_check_is_decided_and_none_failed() -> None:
    assert trial_verdict(scored("ok", [("a", "pass"), ("b", "n/a")], ("a", "b"))) == "pass"
    assert trial_verdict(scored("ok", [("a", "pass"), ("b", "fail")], ("a", "b"))) == "fail"
    assert trial_verdict(scored("ok", [("a", "pass"), ("b", "error")], ("a", "b"))) == "incomplete"
    assert trial_verdict(scored("ok", [("a", "pass")], ("a", "b"))) == "incomplete"
    assert trial_verdict(scored("error", [("a", "error")], ("a",))) == "error"


def test_judges_disagree_only_where_two_decided_differently() -> None:
    def v(check: str, result: str) -> Verdict:
        return Verdict(check_id=check, result=result, decided_by="judge")  # type: ignore[arg-type]

    judged = {
        "a": [v("x", "pass"), v("y", "fail"), v("z", "error")],
        "b": [v("x", "fail"), v("y", "fail"), v("z", "pass")],
    }
    assert disagreements(judged) == {"x"}
