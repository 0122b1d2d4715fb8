"""Feedback correction, the pure half: failed checks → a ``<feedback>`` block → an instance."""

import pytest

from adhere.core import Check, Instance, Source, Verdict
from adhere.judging._feedback import (
    FEEDBACK_INTRO,
    FeedbackItem,
    feedback_items,
    find_feedback,
    inject_feedback,
    render_feedback,
    strip_feedback,
)


def instance(turns=("Edit utils.py.",)) -> Instance:
    return Instance(
        id="i1",
        suite="octobench",
        turns=list(turns),
        checks=[
            Check(id="SP_no_emoji", source=Source.SYSTEM_PROMPT, description="No emoji."),
            Check(
                id="MD_read_before_edit",
                source=Source.AGENTS_MD,
                description="Every edited file\n  was read first.",
            ),
            Check(id="UQ_done", source=Source.USER_QUERY, description="The task is done."),
            Check(id="TS_args", source=Source.TOOL_SCHEMA, description="Valid arguments."),
        ],
    )


def verdict(check_id, result, reasoning="", decided_by="verifier:x"):
    return Verdict(check_id=check_id, result=result, decided_by=decided_by, reasoning=reasoning)


VERDICTS = [
    # out of checklist order on purpose: the feedback follows the checklist
    verdict("MD_read_before_edit", "fail", "message 1: Edit changed utils.py\nunread"),
    verdict("UQ_done", "error", "the judge reply did not parse", "panel:majority"),
    verdict("SP_no_emoji", "fail", "message 5 contains emoji: 🎉", "verifier:no_emoji"),
    verdict("TS_args", "pass"),
]


def test_only_failed_checks_in_checklist_order() -> None:
    items = feedback_items(instance(), VERDICTS)
    assert [i.check_id for i in items] == ["SP_no_emoji", "MD_read_before_edit"]
    assert items[0] == FeedbackItem(
        check_id="SP_no_emoji",
        source=Source.SYSTEM_PROMPT,
        description="No emoji.",
        reason="message 5 contains emoji: 🎉",
        decided_by="verifier:no_emoji",
    )
    assert (
        feedback_items(instance(), [verdict("UQ_done", "error"), verdict("TS_args", "n/a")]) == []
    )


def test_the_block_reads_as_documented() -> None:
    block = render_feedback(feedback_items(instance(), VERDICTS))
    assert block == "\n".join(
        [
            "<feedback>",
            FEEDBACK_INTRO,
            "- [SP_no_emoji] (source: system prompt) No emoji.",
            "  Reason (verifier:no_emoji): message 5 contains emoji: 🎉",
            "- [MD_read_before_edit] (source: AGENTS.md / CLAUDE.md) Every edited file was "
            "read first.",
            "  Reason (verifier:x): message 1: Edit changed utils.py unread",
            "</feedback>",
        ]
    )
    # deterministic: same input, same text
    assert block == render_feedback(feedback_items(instance(), list(VERDICTS)))
    assert render_feedback([]) == ""


def test_long_reasons_are_cut_and_empty_ones_left_out() -> None:
    items = [
        FeedbackItem("A", Source.MEMORY, "Answer in French.", reason="x" * 50, decided_by="j"),
        FeedbackItem("B", None, "", reason="", decided_by="j"),
    ]
    block = render_feedback(items, max_reason=10)
    assert "  Reason (j): xxxxxxxxx…" in block.splitlines()
    assert "- [B] (source: unknown) (no description)" in block.splitlines()
    assert not any(line.startswith("  Reason") and "B" in line for line in block.splitlines())


def test_verdicts_of_unknown_checks_come_last() -> None:
    items = feedback_items(instance(), [verdict("ZZ_extra", "fail"), *VERDICTS])
    assert [i.check_id for i in items] == ["SP_no_emoji", "MD_read_before_edit", "ZZ_extra"]
    assert items[-1].source is None and items[-1].source_label == "unknown"


@pytest.mark.parametrize(
    ("placement", "expected"),
    [
        ("append", ["Edit utils.py.\n\nBLOCK", "Then test."]),
        ("prepend", ["BLOCK\n\nEdit utils.py.", "Then test."]),
        ("new-turn", ["Edit utils.py.", "Then test.", "BLOCK"]),
    ],
)
def test_placements(placement, expected) -> None:
    original = instance(("Edit utils.py.", "Then test."))
    injected = inject_feedback(original, "BLOCK", placement=placement)
    assert injected.turns == expected
    assert injected.id == original.id and injected.checks == original.checks
    assert original.turns == ["Edit utils.py.", "Then test."]  # not mutated
    assert inject_feedback(original, "", placement=placement) is original


def test_the_control_placement_sends_nothing() -> None:
    assert inject_feedback(instance(), "BLOCK", placement="none") == instance()


def test_reading_the_block_back() -> None:
    block = render_feedback(feedback_items(instance(), VERDICTS))
    text = inject_feedback(instance(), block).turns[0]
    found = find_feedback(text)
    assert [(i.check_id, i.source, i.description) for i in found] == [
        ("SP_no_emoji", Source.SYSTEM_PROMPT, "No emoji."),
        ("MD_read_before_edit", Source.AGENTS_MD, "Every edited file was read first."),
    ]
    assert strip_feedback(text) == "Edit utils.py."
    assert find_feedback("no block here - [X] (source: memory) y") == []
