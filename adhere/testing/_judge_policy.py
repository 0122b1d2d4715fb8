"""The ``judge`` policy: a scripted LLM judge. A TEST DOUBLE, not a judge.

``judge:seed=S[,pass_rate=P][,bias=B][,garble=G][,drop=D][,noise=N][,arise=A]``
``[,conflict_a=C][,unsure=U][,misread=M]``
answers the judge prompts of :mod:`adhere.judging._prompt` (it reads the checklist
block and the transcript with that module's own readers) with the strict JSON the
judge asks for, deterministically:

* Each item is decided from hashes of the item's check id and a digest of the
  transcript, so every request about the same trajectory gets the same answer for
  that item, whatever the batch, the order or the re-ask.
* Judges with different seeds are different but correlated: an item uses the
  panel-wide hash (shared by every seed) unless ``unit_hash(S, "own", id, t) < N``
  (``noise``, default 0.25), in which case it uses a hash of its own seed. On top,
  the pass threshold is ``P + B`` (``pass_rate`` default 0.8, ``bias`` in [-1, 1],
  default 0), so a judge with a positive bias is more lenient.
* A conditional item (non-null ``condition``) is ``n/a`` when the hash says its
  condition did not arise: ``hash("arise") >= A`` (``arise``, default 0.5). Items
  without a condition are never ``n/a``.
* ``evidence`` is a hash-chosen assistant turn (``null`` when there are none).

Faults, to exercise the judge's re-asking (decided per request, from the digest of
the whole conversation, so a re-ask — whose text differs — gets a fresh draw):

* ``garble=G``: a share G of replies is unusable — prose, or JSON cut off halfway.
* ``drop=D``: each item is left out of the reply with probability D.

Conflict-attribution prompts (:mod:`adhere.judging._conflict_prompt`) are answered
too, from hashes of the transcript digest (panel-wide unless ``noise`` picks the
judge's own seed, as for items): ``A`` when ``hash("side") < conflict_a`` (default
0.5), else ``B``; then, when ``hash("unsure") < unsure`` (default 0), one of ``both``,
``neither``, ``unclear`` instead. ``garble`` applies to these replies as well.

GuideBench's answer-extraction prompts (``parse: llm``) are answered with the answer
the suite's rule-based parser finds in the quoted reply, in the paper's JSON shape;
``misread=M`` makes a share M of extractions (by hash of the request) come back empty,
so the two parsers disagree there.

Replies alternate (by hash) between a bare JSON object and one fenced ```` ```json ````
block after a sentence of prose, both of which the judge accepts.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from adhere.errors import UnknownConversation
from adhere.judging import (
    BEGIN_CONFLICT,
    PromptItem,
    read_checklist,
    read_conflict_question,
    read_transcript,
)
from adhere.suites.guidebench import (
    AnswerKind,
    answer_fields,
    parse_answer,
    published_form,
    read_llm_prompt,
)
from adhere.testing._model_string import PolicyOptions
from adhere.testing._registry import PolicyContext
from adhere.testing._types import unit_hash
from adhere.wire import Conversation, Reply

__all__ = ["JudgePolicy", "make_judge_policy"]

_TURNS = re.compile(r"assistant turns: (\d+)")
_PROSE = (
    "After reading the session, the agent mostly followed its instructions.",
    "I reviewed every turn; a few items look doubtful, the rest are fine.",
)


@dataclass(frozen=True)
class JudgePolicy:
    """Answers judge prompts deterministically (see the module docstring)."""

    seed: int
    pass_rate: float = 0.8
    bias: float = 0.0
    garble: float = 0.0
    drop: float = 0.0
    noise: float = 0.25
    arise: float = 0.5
    conflict_a: float = 0.5
    unsure: float = 0.0
    misread: float = 0.0
    name: str = "judge"

    def respond(self, conversation: Conversation) -> Reply:
        """The verdicts JSON for the checklist of the conversation's last user message.

        Raises:
            UnknownConversation: The request is not a judge prompt.
        """
        user = next((m.content for m in reversed(conversation.messages) if m.role == "user"), "")
        if BEGIN_CONFLICT in user:
            return self.attribute(user, conversation.digest)
        question = read_llm_prompt(user)
        if question is not None:
            return self.extract(*question, conversation.digest)
        try:
            items = read_checklist(user)
        except ValueError as exc:
            raise UnknownConversation(
                f"the judge policy answers judge prompts only ({exc})"
            ) from None
        transcript = read_transcript(user) or ""
        digest = hashlib.sha256(transcript.encode("utf-8")).hexdigest()
        found = _TURNS.search(transcript)
        turns = int(found.group(1)) if found else 0
        seed, request = str(self.seed), conversation.digest
        verdicts = [
            self.decide(item, digest, turns)
            for item in items
            if not (self.drop and unit_hash(seed, "drop", item.check_id, request) < self.drop)
        ]
        text = json.dumps({"verdicts": verdicts}, ensure_ascii=False, indent=1)
        if self.garble and unit_hash(seed, "garble", request) < self.garble:
            if unit_hash(seed, "garble-kind", request) < 0.5:
                return Reply(text=_PROSE[int(unit_hash(seed, "prose", request) * len(_PROSE))])
            return Reply(text=text[: max(1, len(text) // 2)])
        if unit_hash(seed, "fence", request) < 0.5:
            text = f"Here are my verdicts.\n\n```json\n{text}\n```"
        return Reply(text=text)

    def extract(self, reply: str, kind: AnswerKind, request: str) -> Reply:
        """The reply to a GuideBench answer-extraction prompt (see the module docstring)."""
        answer, analysis = answer_fields(kind)
        found = parse_answer(reply, kind, tuple("ABCDEFGH")).value
        value: object = "" if found is None else published_form(kind, found)
        if self.misread and unit_hash(str(self.seed), "misread", request) < self.misread:
            value = ""
        return Reply(text=json.dumps({answer: value, analysis: ""}, ensure_ascii=False))

    def attribute(self, user: str, request: str) -> Reply:
        """The reply to a conflict-attribution prompt (see the module docstring).

        Raises:
            UnknownConversation: The conflict block is malformed.
        """
        try:
            read_conflict_question(user)
        except ValueError as exc:
            raise UnknownConversation(f"not a conflict-attribution prompt ({exc})") from None
        digest = hashlib.sha256((read_transcript(user) or "").encode("utf-8")).hexdigest()
        seed = str(self.seed)
        basis = seed if unit_hash(seed, "own", "conflict", digest) < self.noise else "panel"
        followed = "A" if unit_hash(basis, "side", digest) < self.conflict_a else "B"
        if unit_hash(basis, "unsure", digest) < self.unsure:
            followed = ("both", "neither", "unclear")[int(unit_hash(basis, "which", digest) * 3)]
        text = json.dumps(
            {"followed": followed, "reasoning": f"Scripted judge (seed {self.seed})."}
        )
        if self.garble and unit_hash(seed, "garble", request) < self.garble:
            return Reply(text=text[: max(1, len(text) // 2)])
        return Reply(text=text)

    def decide(self, item: PromptItem, transcript_digest: str, turns: int) -> dict[str, Any]:
        """This judge's verdict entry for one item of a transcript."""
        own = unit_hash(str(self.seed), "own", item.check_id, transcript_digest) < self.noise
        basis = str(self.seed) if own else "panel"

        def draw(purpose: str) -> float:
            return unit_hash(basis, purpose, item.check_id, transcript_digest)

        threshold = min(1.0, max(0.0, self.pass_rate + self.bias))
        if item.conditional and draw("arise") >= self.arise:
            result = "n/a"
        else:
            result = "pass" if draw("pass") < threshold else "fail"
        return {
            "check_id": item.check_id,
            "result": result,
            "reasoning": f"Scripted judge (seed {self.seed}): {result}.",
            "evidence": int(draw("evidence") * turns) if turns else None,
        }


def make_judge_policy(options: PolicyOptions, context: PolicyContext) -> JudgePolicy:
    """Build the ``judge`` policy from its options (the context is not needed)."""
    return JudgePolicy(
        seed=options.integer("seed"),
        pass_rate=options.number("pass_rate", 0.8, minimum=0.0, maximum=1.0),
        bias=options.number("bias", 0.0, minimum=-1.0, maximum=1.0),
        garble=options.number("garble", 0.0, minimum=0.0, maximum=1.0),
        drop=options.number("drop", 0.0, minimum=0.0, maximum=1.0),
        noise=options.number("noise", 0.25, minimum=0.0, maximum=1.0),
        arise=options.number("arise", 0.5, minimum=0.0, maximum=1.0),
        conflict_a=options.number("conflict_a", 0.5, minimum=0.0, maximum=1.0),
        unsure=options.number("unsure", 0.0, minimum=0.0, maximum=1.0),
        misread=options.number("misread", 0.0, minimum=0.0, maximum=1.0),
    )
