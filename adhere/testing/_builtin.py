"""The built-in policies: oracle, noisy, replay, script, agent, judge and checkgen.

``oracle``
    Asks the answer key for the perfect reply: ``answer_key.answer(conv, wrong)``
    with ``wrong`` always false.
``noisy:rate=R[,seed=S][,garble=G]``
    Like ``oracle``, but item ``k`` of instance ``i`` is answered wrongly when
    ``unit_hash(S, i, k) < R``: the same items go wrong whatever the order or
    concurrency of requests. ``seed`` defaults to 0, ``garble`` to 0. With ``garble``,
    the whole reply is swapped, when ``unit_hash(S, "garble", digest) < G``, for a
    fixed non-answer such as ``I am not sure.`` (no answer tags, no tool calls).
``replay``
    The reply the replay source recorded for this conversation.
``script:NAME``
    Plays the script ``NAME`` (see :mod:`adhere.testing._scripts`).
``agent:BEHAVIOUR[,FLAG…][,key=value…]``
    Drives an agent CLI through a loop with the tools it offers (see
    :mod:`adhere.testing._agent`).
``judge:seed=S[,pass_rate=P][,bias=B][,garble=G][,drop=D]``
    Answers judge prompts with deterministic verdicts (see
    :mod:`adhere.testing._judge_policy`).
``checkgen[:seed=S][,drop=D][,vary=V][,garble=G][,mergefault=F]``
    Answers checklist-generation prompts with checks derived from the instructions
    (see :mod:`adhere.testing._checkgen_policy`).
``vericode-selector[:seed=S][,params=P][,garble=G]``
    Answers VeriCode instruction-selector prompts by keyword relevance (see
    :mod:`adhere.testing._vericode_selector`).

Policies that lack what they need (no answer key, no replay source, no such script)
are reported as not found.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from adhere.errors import UnknownConversation
from adhere.testing._agent import make_agent
from adhere.testing._checkgen_policy import make_checkgen_policy
from adhere.testing._judge_policy import make_judge_policy
from adhere.testing._model_string import PolicyNotFound, PolicyOptions
from adhere.testing._registry import PolicyContext, PolicyRegistry, policy
from adhere.testing._scripts import ScriptPolicy
from adhere.testing._types import AnswerKey, ReplaySource, unit_hash
from adhere.testing._vericode_selector import make_vericode_selector
from adhere.wire import Conversation, Reply

__all__ = [
    "GARBLED_REPLIES",
    "DictReplaySource",
    "NoisyPolicy",
    "OraclePolicy",
    "ReplayPolicy",
    "default_registry",
]

GARBLED_REPLIES = (
    "I am not sure.",
    "I cannot tell from the information given.",
    "Let me think about this some more.",
)


def _never(instance_id: str, item_key: str) -> bool:
    return False


@dataclass(frozen=True)
class OraclePolicy:
    """Answers every item the way a perfect model would."""

    answer_key: AnswerKey
    name: str = "oracle"

    def respond(self, conversation: Conversation) -> Reply:
        """The answer key's perfect reply."""
        return self.answer_key.answer(conversation, _never)


@dataclass(frozen=True)
class NoisyPolicy:
    """Answers a seeded, order-independent fraction of items wrongly; may garble replies."""

    answer_key: AnswerKey
    rate: float
    seed: int = 0
    garble: float = 0.0
    name: str = "noisy"

    def is_wrong(self, instance_id: str, item_key: str) -> bool:
        """Whether this item is answered wrongly (a pure function of seed and ids)."""
        return unit_hash(str(self.seed), instance_id, item_key) < self.rate

    def respond(self, conversation: Conversation) -> Reply:
        """The answer key's reply with the chosen items wrong, or a garbled reply."""
        reply = self.answer_key.answer(conversation, self.is_wrong)
        if (
            self.garble > 0
            and unit_hash(str(self.seed), "garble", conversation.digest) < self.garble
        ):
            pick = unit_hash(str(self.seed), "garbage", conversation.digest)
            return Reply(text=GARBLED_REPLIES[int(pick * len(GARBLED_REPLIES))])
        return reply


@dataclass(frozen=True)
class ReplayPolicy:
    """Answers with recorded replies."""

    source: ReplaySource
    name: str = "replay"

    def respond(self, conversation: Conversation) -> Reply:
        """The recorded reply.

        Raises:
            UnknownConversation: Nothing was recorded for this conversation.
        """
        reply = self.source.lookup(conversation)
        if reply is None:
            raise UnknownConversation(
                f"no recorded reply for conversation {conversation.digest[:16]} "
                f"({len(conversation.messages)} messages, "
                f"{conversation.assistant_turns} assistant turns)"
            )
        return reply


class DictReplaySource:
    """A :class:`ReplaySource` backed by a mapping of conversation digest to reply."""

    def __init__(self, replies: Mapping[str, Reply]) -> None:
        self._replies = dict(replies)

    def lookup(self, conversation: Conversation) -> Reply | None:
        """The reply stored under the conversation's digest."""
        return self._replies.get(conversation.digest)


def _need_answer_key(policy: str, context: PolicyContext) -> AnswerKey:
    if context.answer_key is None:
        raise PolicyNotFound(
            f"policy {policy!r} is not available: this server was started without an answer key"
        )
    return context.answer_key


@policy("oracle")
def _oracle(options: PolicyOptions, context: PolicyContext) -> OraclePolicy:
    return OraclePolicy(_need_answer_key("oracle", context))


@policy("noisy")
def _noisy(options: PolicyOptions, context: PolicyContext) -> NoisyPolicy:
    return NoisyPolicy(
        answer_key=_need_answer_key("noisy", context),
        rate=options.number("rate", minimum=0.0, maximum=1.0),
        seed=options.integer("seed", 0),
        garble=options.number("garble", 0.0, minimum=0.0, maximum=1.0),
    )


@policy("replay")
def _replay(options: PolicyOptions, context: PolicyContext) -> ReplayPolicy:
    if context.replay is None:
        raise PolicyNotFound(
            "policy 'replay' is not available: this server was started without a replay source"
        )
    # Sources holding several recorded runs or models choose by these (see the docs).
    options.text("run", "")
    options.text("model", "")
    return ReplayPolicy(context.replay)


@policy("script")
def _script(options: PolicyOptions, context: PolicyContext) -> ScriptPolicy:
    name = options.text("name")
    steps = context.scripts.get(name)
    if steps is None:
        known = ", ".join(sorted(context.scripts)) or "none loaded"
        raise PolicyNotFound(f"no script named {name!r} (known: {known})")
    return ScriptPolicy(name, steps)


policy("agent")(make_agent)
policy("judge")(make_judge_policy)
policy("checkgen")(make_checkgen_policy)
policy("vericode-selector")(make_vericode_selector)


def default_registry() -> PolicyRegistry:
    """A fresh registry holding the built-in policies, ready for more."""
    return PolicyRegistry(builtins=True)
