import pytest

from adhere.errors import SpecError
from adhere.scaffolds import ProxyEndpoint
from adhere.scaffolds._client import client_endpoint, open_trial_client
from adhere.spec import Limits

BASE = "http://127.0.0.1:9000/t/trial-7/upstream-a"


def test_openai_chat_goes_to_v1_with_the_dummy_key_in_a_private_env():
    endpoint = client_endpoint(ProxyEndpoint(base_url=BASE + "/", model="m", api="openai-chat"))
    assert endpoint.api == "openai"
    assert endpoint.base_url == BASE + "/v1"
    assert endpoint.model == "m"
    assert endpoint.api_key is not None and endpoint.api_key.env == "ADHERE_TRIAL_API_KEY"
    assert endpoint.stream is False


def test_anthropic_takes_the_base_url_as_is_and_the_sampling_settings():
    proxy = ProxyEndpoint(
        base_url=BASE, model="m", api="anthropic", stream=True, max_tokens=512, temperature=0.3
    )
    endpoint = client_endpoint(proxy)
    assert (endpoint.api, endpoint.base_url) == ("anthropic", BASE)
    assert (endpoint.stream, endpoint.max_tokens, endpoint.temperature) == (True, 512, 0.3)
    assert client_endpoint(proxy, max_tokens=64).max_tokens == 64


@pytest.mark.parametrize("api", ["openai-responses", "gemini"])
def test_other_shapes_are_refused(api):
    with pytest.raises(SpecError, match=api):
        client_endpoint(ProxyEndpoint(base_url=BASE, model="m", api=api))


async def test_the_client_carries_the_dummy_key(monkeypatch):
    monkeypatch.delenv("ADHERE_TRIAL_API_KEY", raising=False)
    client = open_trial_client(ProxyEndpoint(base_url=BASE, model="m", api_key="sk-dummy-1"))
    try:
        assert "sk-dummy-1" not in repr(client)
        assert client.endpoint.base_url == BASE + "/v1"
    finally:
        await client.aclose()


def test_the_model_endpoints_retry_policy_reaches_the_in_process_client():
    proxy = ProxyEndpoint(base_url="http://127.0.0.1:1/t/x/m", model="m")
    default = client_endpoint(proxy)
    told = client_endpoint(
        ProxyEndpoint(
            base_url="http://127.0.0.1:1/t/x/m", model="m", max_retries=1, backoff_base_seconds=0.01
        )
    )
    assert (told.limits.max_retries, told.limits.backoff_base_seconds) == (1, 0.01)
    assert default.limits.max_retries == Limits().max_retries
