"""The judges' ``ask``: one model client per judge endpoint, each call recorded.

:class:`JudgeAsks` is what every judging path (scoring, checklist generation, the
feedback workflow, the Ray judge workers) hands the panel: a :class:`PanelJudge` per
judge whose ``ask`` sends the judge's prompt through its endpoint's client and keeps a
:class:`JudgeCallRecord` of the call (latency, tokens, failure).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from adhere.artifacts import JudgeCallRecord
from adhere.core import ChatMessage
from adhere.judging import Ask, JudgeCall, PanelJudge, endpoint_key, served_at
from adhere.models import EndpointLimiter, ModelClient, open_client
from adhere.scoring._judge_calls import judge_call_record
from adhere.spec import Endpoint, JudgePanel
from adhere.wire import ChatRequest


class JudgeAsks:
    """One model client per judge endpoint, turned into the ``ask`` the panel uses.

    Args:
        endpoints: Judge name → endpoint (``scripted`` already resolved to a URL).
        limiters: Judge name → a limiter to share (the Ray path's limiter actors);
            by default each client keeps its endpoint's limits on its own.
        on_record: Called with each call's record as the call ends (the scoring pass
            appends it to ``judge_calls.jsonl`` then, so a killed pass keeps the
            records of the calls it paid for).
    """

    def __init__(
        self,
        endpoints: Mapping[str, Endpoint],
        limiters: Mapping[str, EndpointLimiter] | None = None,
        *,
        on_record: Callable[[JudgeCallRecord], None] | None = None,
    ) -> None:
        self.on_record = on_record
        shared = limiters or {}
        self.clients: dict[str, ModelClient] = {
            name: open_client(endpoint, limiter=shared.get(name))
            for name, endpoint in endpoints.items()
        }
        self.calls = 0
        self.records: list[JudgeCallRecord] = []
        """One record per call (latency, tokens, failure), for ``judge_calls.jsonl``."""

    def judges(self, panel: JudgePanel) -> list[PanelJudge]:
        """The panel's judges, each asking through its endpoint's client.

        Judges on one endpoint (API, URL and model, as the clients call it) share a
        prompt-prefix cache: the panel orders their calls on a trial together, with
        the endpoint's ``prefixConcurrency``.
        """
        judges = []
        for j in panel.spec.judges:
            endpoint = self.clients[j.name].endpoint
            judges.append(
                PanelJudge(
                    j.name,
                    j.endpoint.model,
                    self.ask_for(j.name),
                    endpoint=endpoint_key(endpoint),
                    prefix_concurrency=endpoint.limits.prefix_concurrency,
                    served_at=served_at(j.endpoint),
                )
            )
        return judges

    def ask_for(self, judge: str) -> Ask:
        """The ``ask`` of one judge."""
        client = self.clients[judge]

        async def ask(call: JudgeCall) -> str:
            self.calls += 1
            started = time.monotonic()
            try:
                response = await client.complete(
                    ChatRequest(
                        messages=(ChatMessage(role="user", content=call.user),),
                        system=call.system,
                        max_tokens=call.max_tokens,
                        temperature=0.0,
                    )
                )
            except Exception as exc:
                self._record(judge_call_record(call, judge, time.monotonic() - started, error=exc))
                raise
            self._record(judge_call_record(call, judge, time.monotonic() - started, response))
            return response.message.content

        return ask

    def _record(self, record: JudgeCallRecord) -> None:
        self.records.append(record)
        if self.on_record is not None:
            self.on_record(record)

    async def aclose(self) -> None:
        """Close every client."""
        for client in self.clients.values():
            await client.aclose()
