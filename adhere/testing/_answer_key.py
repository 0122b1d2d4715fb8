"""The answer key the scripted policy server uses: conversation → instance → suite reply.

A request is placed by its content: the system prompt and the user messages so far
must equal an instance's system prompt and first user turns. The reply at user turn
``k`` is whatever the instance's suite says a perfect model answers there, with the
items the noisy policy picks answered wrongly. Stateless, so any number of trials can
share one server.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Iterable

from adhere.core import Instance
from adhere.errors import UnknownConversation
from adhere.suites import Suite
from adhere.testing._types import WrongFn
from adhere.wire import Conversation, Reply


class InstanceAnswerKey:
    """Answers for a set of instances, written by their suites."""

    def __init__(self, instances: Iterable[Instance], suite_for: Callable[[str], Suite]) -> None:
        self._by_start: dict[tuple[str, str], list[Instance]] = defaultdict(list)
        for instance in sorted(instances, key=lambda i: i.id):
            self._by_start[(instance.system_prompt, instance.turns[0])].append(instance)
        self._suite_for = suite_for

    def answer(self, conversation: Conversation, wrong: WrongFn) -> Reply:
        """The reply for the conversation's latest user turn."""
        users = [m.content for m in conversation.messages if m.role == "user"]
        if not users:
            raise UnknownConversation("the request has no user message")
        candidates = self._by_start.get((conversation.system, users[0]), [])
        for instance in candidates:
            if instance.turns[: len(users)] == users:
                turn = len(users) - 1
                suite = self._suite_for(instance.suite)
                wrong_item = functools.partial(wrong, instance.id)
                return Reply(text=suite.oracle_reply(instance, turn, wrong_item))
        if not candidates:
            raise UnknownConversation(
                "no instance starts with this system prompt and first user message "
                f"({len(self._by_start)} instances known)"
            )
        raise UnknownConversation(
            f"the user turns do not follow any of {len(candidates)} matching instance(s)"
        )
