"""Provider ``scripted``: the scripted policy server (a test double) a run starts itself.

An endpoint with ``baseUrl: scripted`` is served by a :class:`PolicyServer` bound to
127.0.0.1 for as long as the run (or scoring pass, or workflow) lasts. Its ``model``
is a policy's model string. The server speaks all four API shapes, so any scaffold
can talk to it; it needs no key; in a trial pod it runs inside ``adhere trial run``,
with no proxy sidecar.

What the server gets from the run: an answer key over the run's instances (when the
run has instances), and the recorded runs that ``replay:run=PATH`` models name
(paths relative to the spec files).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from adhere.artifacts import open_rollout_dir
from adhere.errors import SpecError
from adhere.models import PodPlan, ServeContext, provider
from adhere.spec import Endpoint
from adhere.testing._answer_key import InstanceAnswerKey
from adhere.testing._app import PolicyServerConfig
from adhere.testing._builtin import DictReplaySource, default_registry
from adhere.testing._model_string import parse_model_string
from adhere.testing._registry import PolicyContext
from adhere.testing._replay import RecordedRun, RecordedRuns
from adhere.testing._server import PolicyServer

__all__ = ["ScriptedProvider", "ScriptedService"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScriptedService:
    """A running scripted policy server, resolving ``scripted`` endpoints to its URL.

    Attributes:
        url: The server's base URL (without ``/v1``).
    """

    url: str

    def resolve(self, endpoint: Endpoint) -> Endpoint:
        """``endpoint`` pointed at the server (``/v1`` appended for OpenAI endpoints)."""
        root = self.url + ("/v1" if endpoint.api == "openai" else "")
        return endpoint.model_copy(update={"base_url": root})


@provider("scripted")
class ScriptedProvider:
    """The scripted policy server as a model provider (a test double)."""

    description = "scripted policy server"
    holds_api_key = False
    speaks_every_api = True
    pod: PodPlan = "in-process"

    def check(self, endpoint: Endpoint, *, role: str, context: ServeContext) -> None:
        """Refuse a model string the server would refuse at every request (field ``model``).

        The policy is built as the server builds it for a request, with the run's
        answer key, so a malformed string, an unknown policy or option, a bad option
        value or a policy the run cannot serve is an error before the first trial. A
        ``replay:run=PATH`` must name a recorded rollout directory.
        """
        parsed = parse_model_string(endpoint.model)
        registry = default_registry()
        registry.factory(parsed.policy)
        replay = None
        if parsed.policy == "replay":
            run = parsed.options.get("run")
            if run:
                path = Path(run) if Path(run).is_absolute() else context.base_dir / run
                try:
                    open_rollout_dir(path)
                except SpecError as exc:
                    raise SpecError(f"replay run {run!r}: {exc.message}", field="model") from None
            replay = DictReplaySource({})
        answers = None
        if context.suite_for is not None:
            answers = InstanceAnswerKey(context.instances, context.suite_for)
        registry.create(parsed, PolicyContext(answer_key=answers, replay=replay))

    @asynccontextmanager
    async def serve(self, context: ServeContext) -> AsyncIterator[ScriptedService]:
        """Start a policy server for ``context``; stop it on exit."""
        answers = None
        if context.suite_for is not None:
            answers = InstanceAnswerKey(context.instances, context.suite_for)
        replay = replay_source(context.models, context.base_dir)
        server = PolicyServer(PolicyServerConfig(answer_key=answers, replay=replay))
        url = await server.start()
        log.info("scripted policy server (test double) on %s", url)
        try:
            yield ScriptedService(url)
        finally:
            await server.stop()


def replay_source(models: Sequence[Endpoint], base_dir: Path) -> RecordedRuns | None:
    """Recorded runs named by ``replay:run=PATH`` models (paths relative to ``base_dir``)."""
    runs: dict[str, RecordedRun] = {}
    for endpoint in models:
        parsed = parse_model_string(endpoint.model)
        run = parsed.options.get("run")
        if parsed.policy == "replay" and run and run not in runs:
            path = Path(run) if Path(run).is_absolute() else base_dir / run
            runs[run] = RecordedRun(path)
    return RecordedRuns(runs) if runs else None
