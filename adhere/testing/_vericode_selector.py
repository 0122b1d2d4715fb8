"""The ``vericode-selector`` policy: a scripted instruction selector. A TEST DOUBLE, not a model.

``vericode-selector[:seed=S][,params=P][,garble=G]`` answers the VeriCode selector
prompts of :func:`adhere.suites.vericode.selector_prompt` deterministically:

* it reads the task text between ``<task>`` tags, the candidate list (``N. [id] …``,
  in the order given) and how many to keep;
* relevance is judged from the task text alone with the suite's keyword tags (files,
  errors, pandas — :func:`adhere.suites.vericode.derive_tags`), conflicts by the
  suite's table; it keeps the first relevant, non-conflicting candidates;
* with probability ``params`` (default 0.3) per kept instruction with parameters it
  proposes a value other than the default — sometimes valid, sometimes out of range or
  of the wrong type, sometimes with an extra unknown key — so the rule-based
  validation has something to drop or reset;
* ``garble=G`` (default 0): a share G of replies is prose without JSON.

Draws are hashes of ``seed``, the task text and the instruction id, so the same
prompt always gets the same reply.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from adhere.errors import UnknownConversation
from adhere.suites.vericode import by_id, conflicts, derive_tags
from adhere.testing._model_string import PolicyOptions
from adhere.testing._registry import PolicyContext
from adhere.testing._types import unit_hash
from adhere.wire import Conversation, Reply

__all__ = ["VeriCodeSelectorPolicy", "make_vericode_selector"]

_TASK = re.compile(r"<task>\n?(.*?)\n?</task>", re.DOTALL)
_CANDIDATE = re.compile(r"^\d+\. \[([a-z]+_\d+)\]", re.MULTILINE)
_KEEP = re.compile(r"keep the first (\d+)")


@dataclass(frozen=True)
class VeriCodeSelectorPolicy:
    """Chooses instructions by keyword relevance (see the module docstring)."""

    seed: int = 0
    params: float = 0.3
    garble: float = 0.0
    name: str = "vericode-selector"

    def respond(self, conversation: Conversation) -> Reply:
        """The selection JSON for the selector prompt in the last user message.

        Raises:
            UnknownConversation: The request is not a VeriCode selector prompt.
        """
        user = next((m.content for m in reversed(conversation.messages) if m.role == "user"), "")
        task, keep = _TASK.search(user), _KEEP.search(user)
        candidates = _CANDIDATE.findall(user)
        if task is None or keep is None or not candidates:
            raise UnknownConversation(
                "the vericode-selector policy answers VeriCode selector prompts only"
            )
        text, seed = task.group(1), str(self.seed)
        if self.garble and unit_hash(seed, "garble", text) < self.garble:
            return Reply(text="These instructions all look useful for the task.")
        tags = set(derive_tags(text))
        kept: list[dict[str, Any]] = []
        for candidate in candidates:
            if len(kept) >= int(keep.group(1)):
                break
            instruction = by_id(candidate)
            if instruction.needs and not instruction.needs & tags:
                continue
            if any(conflicts(candidate, k["id"]) for k in kept):
                continue
            kept.append({"id": candidate, "params": self._params(candidate, text)})
        return Reply(text=json.dumps({"selected": kept}))

    def _params(self, instruction_id: str, text: str) -> dict[str, Any]:
        instruction = by_id(instruction_id)
        seed = str(self.seed)
        if not instruction.params or unit_hash(seed, "params", text, instruction_id) >= self.params:
            return instruction.defaults()
        pick = unit_hash(seed, "how", text, instruction_id)
        param = instruction.params[0]
        if param.choices:
            value: Any = param.choices[int(pick * len(param.choices))] if pick < 0.8 else "sphinx"
        elif pick < 0.5:
            value = min(param.maximum, int(param.default) + 1 + int(pick * 10))
        elif pick < 0.8:
            value = param.maximum + 1
        else:
            value = "strict"
        out = {param.name: value}
        if pick > 0.9:
            out["strictness"] = "high"
        return out


def make_vericode_selector(
    options: PolicyOptions, context: PolicyContext
) -> VeriCodeSelectorPolicy:
    """Build the ``vericode-selector`` policy from its options (the context is not needed)."""
    return VeriCodeSelectorPolicy(
        seed=options.integer("seed", 0),
        params=options.number("params", 0.3, minimum=0.0, maximum=1.0),
        garble=options.number("garble", 0.0, minimum=0.0, maximum=1.0),
    )
