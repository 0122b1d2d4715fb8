"""Scoring one GuideBench reply under the chosen parser (rules, public, LLM). Pure.

Under ``parse: adhere`` the rule-based parser reads the final answer and normalizes it;
under ``public`` the public evaluator's reading decides; under ``llm`` the judges'
extraction (``ModelAsk`` evidence), compared the way the public evaluator compares.
Beside it the verdict keeps what the rule-based parser found (``details.rules``), so
the two parsers' agreement can be reported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adhere.core import Evidence, EvidenceRequest, Instance, Trajectory, Verdict
from adhere.errors import SpecError
from adhere.suites.guidebench._llm_parse import LLM_REQUEST, agrees, llm_answer, llm_request
from adhere.suites.guidebench._metrics import VERIFIER
from adhere.suites.guidebench._paper import label_text, parse_public
from adhere.suites.guidebench._parse import parse_answer
from adhere.suites.guidebench._task import AnswerKind

__all__ = ["CHECK_ID", "LLM_DECIDER", "answer_key", "evidence_requests", "score_reply"]

CHECK_ID = "answer"
LLM_DECIDER = "guidebench.llm-parse"


def answer_key(instance: Instance) -> tuple[AnswerKind, str, tuple[str, ...], str]:
    """The answer key an instance carries: kind, gold, option letters, analysis."""
    try:
        key = instance.metadata["answer_key"]
        return key["kind"], str(key["gold"]), tuple(key["options"]), str(key.get("analysis", ""))
    except (KeyError, TypeError) as exc:
        raise SpecError(
            f"instance {instance.id!r} is not a GuideBench instance (no answer key)",
            field="metadata.answer_key",
        ) from exc


def _parse_mode(instance: Instance) -> str:
    protocol = instance.metadata.get("protocol")
    return str(protocol.get("parse", "adhere")) if isinstance(protocol, dict) else "adhere"


def _final_reply(trajectory: Trajectory) -> tuple[int | None, str]:
    """The index and text of the last non-empty assistant reply (``None``, ``""``: none)."""
    replies = [m.content for m in trajectory.assistant_turns()]
    used = max((i for i, r in enumerate(replies) if r.strip()), default=None)
    return used, replies[used] if used is not None else ""


def _outcome(value: str | None, gold: str) -> str:
    if value is None:
        return "invalid"
    return "correct" if value == gold else "wrong"


def evidence_requests(instance: Instance, trajectory: Trajectory) -> Sequence[EvidenceRequest]:
    """With ``parse: llm``: the extraction question for the rollout's judge panel."""
    if _parse_mode(instance) != "llm":
        return []
    template = instance.metadata.get("parser_prompt")  # the Benchmark's parser template
    return [
        llm_request(
            _final_reply(trajectory)[1],
            answer_key(instance)[0],
            template if isinstance(template, str) else None,
            str(instance.metadata.get("category", "")),
        )
    ]


def score_reply(
    instance: Instance,
    trajectory: Trajectory,
    evidence: Mapping[str, Evidence] | None = None,
) -> Verdict:
    """One verdict: the last assistant reply's final answer against the reference.

    Under ``parse: adhere`` the rule-based parser reads it and normalizes it; under
    ``public`` the public evaluator's reading; under ``llm`` the judges' extraction
    (``evidence``), compared the way the public evaluator compares. Beside it the
    verdict keeps what the rule-based parser found (``details.rules``), so the two
    parsers' agreement can be reported.
    """
    kind, gold, options, _analysis = answer_key(instance)
    used, text = _final_reply(trajectory)
    mode = _parse_mode(instance)
    rules = parse_answer(text, kind, options)
    rules_outcome = _outcome(rules.value, gold)
    if mode == "adhere":
        return Verdict(
            check_id=CHECK_ID,
            result="pass" if rules_outcome == "correct" else "fail",
            decided_by=VERIFIER,
            reasoning=rules.error,
            evidence=used,
            details={
                "category": rules_outcome,
                "got": rules.value,
                "expected": gold,
                "raw": rules.raw,
                "via": rules.via,
                "normalized": list(rules.steps),
            },
        )
    reference = instance.metadata["answer_key"].get("reference")
    if mode == "public":
        found = parse_public(text, kind, reference)
        via, decided_by = "public json", VERIFIER
    else:
        asked = (evidence or {}).get(LLM_REQUEST)
        if asked is None or asked.status == "error":
            detail = asked.detail if asked is not None else "no LLM parser evidence"
            return Verdict(
                check_id=CHECK_ID,
                result="error",
                decided_by=LLM_DECIDER,
                reasoning=f"the LLM parser gave no answer: {detail}",
                evidence=used,
                details={"rules": {"got": rules.value, "category": rules_outcome}},
            )
        found, extractions = llm_answer(asked, kind, reference)
        via, decided_by = "llm", LLM_DECIDER
    outcome = "correct" if found.correct else ("invalid" if found.value is None else "wrong")
    details: dict[str, Any] = {
        "category": outcome,
        "got": found.value,
        "expected": label_text(reference),
        "label": found.label,
        "raw": found.value,
        "via": via,
        "normalized": [],
        "rules": {"got": rules.value, "category": rules_outcome},
    }
    if mode == "llm":
        details["extractions"] = extractions
        details["rules"]["agrees"] = agrees(found, rules.value, kind, options)
    return Verdict(
        check_id=CHECK_ID,
        result="pass" if found.correct else "fail",
        decided_by=decided_by,
        reasoning=found.error,
        evidence=used,
        details=details,
    )
