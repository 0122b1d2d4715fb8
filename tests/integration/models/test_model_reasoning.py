"""adhere's own clients send the endpoint's reasoning setting and record reasoning tokens.

Against the scripted policy server, whose ``script:agent`` first answers with visible
reasoning and reports its token count where the API shape has a field for it.
"""

import pytest

from adhere.core import ChatMessage
from adhere.judging import JudgeCall
from adhere.models import open_client
from adhere.scoring._judge_calls import judge_call_record
from adhere.spec import Reasoning
from adhere.wire import ChatRequest
from adhere.wire._server_codec import count_tokens
from tests.integration.models.conftest import SCRIPTS

THOUGHT = SCRIPTS["agent"][0].reasoning


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_the_setting_goes_out_and_the_reasoning_tokens_come_back(
    server, make_endpoint, api, stream
):
    records = []
    endpoint = make_endpoint(
        server.url,
        api,
        "script:agent",
        stream=stream,
        max_tokens=10000,
        reasoning=Reasoning(effort="medium"),
    )
    client = open_client(endpoint, on_call=records.append)
    try:
        response = await client.complete(
            ChatRequest(messages=(ChatMessage(role="user", content="Fix the app"),))
        )
    finally:
        await client.aclose()
    (record,) = records
    assert response.message.reasoning == THOUGHT
    if api == "openai":
        assert record.request["reasoning_effort"] == "medium"
        assert response.usage.reasoning_tokens == count_tokens(THOUGHT)
    else:
        assert record.request["thinking"] == {"type": "enabled", "budget_tokens": 8192}
        assert "temperature" not in record.request
        assert response.usage.reasoning_tokens is None  # Anthropic has no separate count
    call = JudgeCall(id="c", system="", user="Fix the app", max_tokens=10000, judge="j", model="m")
    line = judge_call_record(call, "j", 0.5, response)
    if api == "openai":
        assert line["reasoning_tokens"] == count_tokens(THOUGHT)
    else:
        assert "reasoning_tokens" not in line
