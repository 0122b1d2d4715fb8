"""The ``checkgen`` policy: a scripted checklist writer. A TEST DOUBLE, not a model.

``checkgen[:seed=S][,drop=D][,vary=V][,garble=G][,mergefault=F]`` answers the checklist-generation
prompts of :mod:`adhere.judging._checkgen_prompt` (it reads the instruction blocks
with that module's own reader) with the strict JSON they ask for, deterministically:

* Every instruction block is cut into sentences (at ``.``, ``!``, ``?``, ``;`` and
  line ends; list bullets and the tool's ``Parameters:`` line are left out). A
  sentence becomes one check when it holds one of the words *must, never, always, do
  not / don't, only, use, should, avoid, without, every, keep*; in a ``User query``
  block every sentence does (a request is an instruction). Identical sentences of a
  category give one check.
* The check reads ``Check whether the assistant complied with: "<sentence>"`` in the
  block's category; its type is guessed from the sentence (test → testing, config /
  setting / dependency → configuration, rename / edit / change / modify / delete →
  modification, explain / describe / list / what / why → understanding, add / create /
  implement / write / function → implementation, else compliance).

What varies with the rollout — so N rollouts of one instance give overlapping but not
identical lists, which exercises deduplication — is drawn from hashes of ``seed``,
the sentence and a digest of the prompt's agent-turns section (the same rollout gets
the same list on every attempt):

* ``drop=D`` (default 0.2): each check is left out with probability D.
* ``vary=V`` (default 0.5): each check is reworded with probability V, in ways the
  merger treats as the same check: "the agent" for "the assistant", "Check if" for
  "Check whether", "has complied" for "complied", or the category spelled as its source
  tag (``AgentsMd`` for ``Agents.md``).
* The order of the checks is shuffled.

Faults, to exercise re-asking (drawn from the digest of the whole request, so a
re-ask — whose text differs — gets a fresh draw):

* ``garble=G`` (default 0): a share G of replies is prose, or JSON cut off halfway.

Replies alternate (by hash) between a bare JSON object and one fenced ```` ```json ````
block after a sentence of prose, both of which the parser accepts.

It also plays the **merging** model (``adhere generate checklist --merge llm``): to a
merge prompt (:mod:`adhere.judging._checkgen_merge_prompt`, read back with
:func:`~adhere.judging.read_merge_candidates`) it answers with one check per
category and quoted instruction sentence (the text between the quotes of its own
``complied with: "…"`` descriptions; other descriptions group by their lower-cased
text), worded ``Check whether the assistant complied with: "<sentence>"``, listing
every candidate key of the group under ``merges``. ``mergefault=F`` (default 0) makes
a share F of merge replies unusable, drawn per request: JSON cut off halfway, or one
group left out (which the strict parser refuses: every candidate must be kept).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from adhere.errors import UnknownConversation
from adhere.judging import (
    InstructionBlock,
    category_named,
    read_instruction_blocks,
    read_merge_candidates,
    read_turns,
)
from adhere.testing._model_string import PolicyOptions
from adhere.testing._registry import PolicyContext
from adhere.testing._types import unit_hash
from adhere.wire import Conversation, Reply

__all__ = ["CheckgenPolicy", "make_checkgen_policy", "sentences"]

_KEYWORDS = re.compile(
    r"\b(must|never|always|do not|don't|only|use|uses|using|should|avoid|without|every|keep)\b",
    re.IGNORECASE,
)
_SPLIT = re.compile(r"(?<=[.!?;])\s+|\n+")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)]|#+)\s*")
_TYPES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(tests?|pytest|unittest)\b", re.I), "testing"),
    (re.compile(r"\b(config\w*|settings?|dependenc\w*|environment)\b", re.I), "configuration"),
    (re.compile(r"\b(rename\w*|edit\w*|change\w*|modif\w*|delete\w*)\b", re.I), "modification"),
    (re.compile(r"\b(explain\w*|describe\w*|list|what|why|how)\b", re.I), "understanding"),
    (re.compile(r"\b(add|create|implement\w*|write|function)\b", re.I), "implementation"),
)
_QUOTED = re.compile(r'complied with: "(?P<sentence>.*)"\.?$')
_PROSE = (
    "Here is what I think the agent should be checked on: mostly the rules it was given.",
    "I read the instructions; the checklist would cover the system prompt and the request.",
)


def sentences(block: InstructionBlock) -> list[str]:
    """The sentences of a block that become checks (see the module docstring)."""
    out: list[str] = []
    for raw in _SPLIT.split(block.text):
        text = _BULLET.sub("", raw).strip()
        if not text or text.startswith(("Parameters:", "[…")) or len(text.split()) < 2:
            continue
        if block.category == "User query" or _KEYWORDS.search(text):
            out.append(text)
    return out


def _check_type(sentence: str) -> str:
    for pattern, kind in _TYPES:
        if pattern.search(sentence):
            return kind
    return "compliance"


@dataclass(frozen=True)
class CheckgenPolicy:
    """Answers checklist-generation prompts deterministically (see the module docstring)."""

    seed: int = 0
    drop: float = 0.2
    vary: float = 0.5
    garble: float = 0.0
    mergefault: float = 0.0
    name: str = "checkgen"

    def respond(self, conversation: Conversation) -> Reply:
        """The checks JSON for the prompt in the conversation's last user message.

        Raises:
            UnknownConversation: The request is not a checklist-generation prompt.
        """
        user = next((m.content for m in reversed(conversation.messages) if m.role == "user"), "")
        try:
            candidates = read_merge_candidates(user)
        except ValueError:
            pass
        else:
            return self._merge(candidates, conversation.digest)
        try:
            blocks = read_instruction_blocks(user)
        except ValueError as exc:
            raise UnknownConversation(
                f"the checkgen policy answers checklist-generation prompts only ({exc})"
            ) from None
        seed, request = str(self.seed), conversation.digest
        if self.garble and unit_hash(seed, "garble", request) < self.garble:
            if unit_hash(seed, "garble-kind", request) < 0.5:
                return Reply(text=_PROSE[int(unit_hash(seed, "prose", request) * len(_PROSE))])
            text = json.dumps({"checks": self.checks(blocks, "")})
            return Reply(text=text[: max(1, len(text) // 2)])
        turns = read_turns(user) or ""
        rollout = hashlib.sha256(turns.encode("utf-8")).hexdigest()
        text = json.dumps({"checks": self.checks(blocks, rollout)}, ensure_ascii=False, indent=1)
        if unit_hash(seed, "fence", request) < 0.5:
            text = f"Here is the checklist.\n\n```json\n{text}\n```"
        return Reply(text=text)

    def _merge(self, candidates: list[tuple[str, str, str, str]], request: str) -> Reply:
        groups: dict[tuple[str, str], dict[str, Any]] = {}
        for key, category, kind, description in candidates:
            found = _QUOTED.search(description)
            sentence = found["sentence"] if found else description.lower()
            group = groups.setdefault(
                (category, sentence),
                {
                    "category": category,
                    "description": (
                        f'Check whether the assistant complied with: "{sentence}"'
                        if found
                        else description
                    ),
                    "check_type": kind,
                    "merges": [],
                },
            )
            group["merges"].append(key)
        entries = list(groups.values())
        seed = str(self.seed)
        if self.mergefault and unit_hash(seed, "mergefault", request) < self.mergefault:
            if unit_hash(seed, "mergefault-kind", request) < 0.5 and len(entries) > 1:
                entries = entries[1:]
            else:
                text = json.dumps({"checks": entries})
                return Reply(text=text[: max(1, len(text) // 2)])
        return Reply(text=json.dumps({"checks": entries}, ensure_ascii=False, indent=1))

    def checks(self, blocks: list[InstructionBlock], rollout: str) -> list[dict[str, Any]]:
        """The check entries for these blocks, as drawn for one rollout."""
        seed = str(self.seed)
        found: list[tuple[float, dict[str, Any]]] = []
        seen: set[tuple[str, str]] = set()
        for block in blocks:
            for sentence in sentences(block):
                key = (block.category, sentence)
                if key in seen:
                    continue
                seen.add(key)
                if self.drop and unit_hash(seed, "drop", *key, rollout) < self.drop:
                    continue
                entry = self._entry(block.category, sentence, rollout)
                found.append((unit_hash(seed, "order", *key, rollout), entry))
        return [entry for _, entry in sorted(found, key=lambda f: f[0])]

    def _entry(self, category: str, sentence: str, rollout: str) -> dict[str, Any]:
        seed = str(self.seed)
        description = f'Check whether the assistant complied with: "{sentence}"'
        spelled = category
        if self.vary and unit_hash(seed, "vary", category, sentence, rollout) < self.vary:
            pick = int(unit_hash(seed, "how", category, sentence, rollout) * 4)
            if pick == 0:
                description = f'Check whether the agent complied with: "{sentence}"'
            elif pick == 1:
                description = f'Check if the assistant complied with: "{sentence}"'
            elif pick == 2:
                description = f'Check whether the assistant has complied with: "{sentence}"'
            else:
                spelled = category_named(category).source.value
        kind = _check_type(sentence)
        return {"category": spelled, "description": description, "check_type": kind}


def make_checkgen_policy(options: PolicyOptions, context: PolicyContext) -> CheckgenPolicy:
    """Build the ``checkgen`` policy from its options (the context is not needed)."""
    return CheckgenPolicy(
        seed=options.integer("seed", 0),
        drop=options.number("drop", 0.2, minimum=0.0, maximum=1.0),
        vary=options.number("vary", 0.5, minimum=0.0, maximum=1.0),
        garble=options.number("garble", 0.0, minimum=0.0, maximum=1.0),
        mergefault=options.number("mergefault", 0.0, minimum=0.0, maximum=1.0),
    )
