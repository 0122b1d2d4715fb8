"""Replay sources backed by recorded rollouts, for the scripted policy server.

Every assistant message of every recorded trajectory is indexed under the digest of
the conversation that preceded it (system prompt plus earlier messages). A request
replays when its conversation digest matches. Options of the ``replay`` policy:

* ``run=PATH`` — which recorded rollout (its artifact directory); optional when the
  server was given exactly one;
* ``model=NAME`` — which recorded model; optional when the run holds one model.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from adhere.artifacts import open_rollout_dir
from adhere.core import conversation_digest
from adhere.errors import UnknownConversation
from adhere.wire import Conversation, Reply


class RecordedRun:
    """Replies of one recorded rollout, per model."""

    def __init__(self, path: str | Path) -> None:
        store = open_rollout_dir(path)
        self.path = str(path)
        self.replies: dict[str, dict[str, Reply]] = {}
        for stored in store.iter_trials():
            trial = stored.result.trial
            trajectory = store.read_trajectory(trial)
            if trajectory is None:
                continue
            table = self.replies.setdefault(trial.model, {})
            for j, message in enumerate(trajectory.messages):
                if message.role != "assistant":
                    continue
                key = conversation_digest(trajectory.system, trajectory.messages[:j])
                table.setdefault(
                    key,
                    Reply(
                        text=message.content,
                        tool_calls=message.tool_calls,
                        reasoning=message.reasoning,
                    ),
                )

    def lookup(self, conversation: Conversation, model: str | None) -> Reply | None:
        """The reply recorded for this conversation by ``model``."""
        if model is None:
            if len(self.replies) != 1:
                raise UnknownConversation(
                    f"the recorded run {self.path} holds models {sorted(self.replies)}; "
                    "choose one with replay:model=NAME"
                )
            model = next(iter(self.replies))
        if model not in self.replies:
            raise UnknownConversation(
                f"the recorded run {self.path} has no model {model!r} "
                f"(it has {sorted(self.replies)})"
            )
        return self.replies[model].get(conversation.digest)


class RecordedRuns:
    """A replay source over one or more recorded runs, chosen by the policy's options."""

    def __init__(self, runs: Mapping[str, RecordedRun]) -> None:
        self.runs = dict(runs)

    def lookup(self, conversation: Conversation) -> Reply | None:
        """Reply from the run and model named by ``replay:run=…,model=…``."""
        name = conversation.options.get("run")
        if name is None:
            if len(self.runs) != 1:
                raise UnknownConversation(
                    f"{len(self.runs)} recorded runs loaded; choose one with replay:run=PATH"
                )
            run = next(iter(self.runs.values()))
        elif name in self.runs:
            run = self.runs[name]
        else:
            raise UnknownConversation(f"no recorded run {name!r} was loaded")
        return run.lookup(conversation, conversation.options.get("model"))
