"""Model providers: which endpoints name one, what the scripted one says, resolution."""

import subprocess
import sys
from contextlib import AbstractAsyncContextManager

import pytest

from adhere.errors import SpecError
from adhere.models import (
    OpenAIClient,
    Provider,
    ProviderService,
    ServeContext,
    Served,
    provider,
    provider_for,
    provider_names,
)
from adhere.spec import Endpoint
from adhere.testing._provider import ScriptedProvider, ScriptedService


def endpoint(base_url: str, api: str = "openai") -> Endpoint:
    return Endpoint.model_validate({"api": api, "baseUrl": base_url, "model": "m"})


@pytest.mark.parametrize("url", ["https://api.example.com/v1", "http://127.0.0.1:8123"])
def test_a_url_names_no_provider(url: str) -> None:
    assert provider_for(endpoint(url)) is None
    assert Served().resolve(endpoint(url)) == endpoint(url)


def test_an_unknown_name_is_left_to_fail_as_a_url_does() -> None:
    assert provider_for(endpoint("no-such-provider")) is None


def test_scripted_is_the_test_double_served_in_process() -> None:
    found = provider_for(endpoint("scripted"))
    assert isinstance(found, ScriptedProvider)
    assert "scripted" in provider_names()
    assert found.description == "scripted policy server"
    assert (found.speaks_every_api, found.holds_api_key, found.pod) == (True, False, "in-process")


def test_importing_the_models_package_leaves_the_test_double_alone() -> None:
    code = (
        "import sys, adhere.models\n"
        "adhere.models.provider_names()\n"
        "print(any(m.startswith('adhere.testing') for m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize(("api", "suffix"), [("openai", "/v1"), ("anthropic", "")])
def test_a_running_scripted_service_resolves_to_its_url(api: str, suffix: str) -> None:
    served = Served({"scripted": ScriptedService("http://127.0.0.1:9")})
    resolved = served.resolve(endpoint("scripted", api), role="judge")
    assert resolved.base_url == "http://127.0.0.1:9" + suffix
    assert resolved.model == "m" and resolved.api == api


def test_a_provider_that_is_not_running_is_a_spec_error() -> None:
    with pytest.raises(
        SpecError, match="^a scripted judge needs the scripted policy server running$"
    ):
        Served().resolve(endpoint("scripted"), role="judge")


def test_a_client_refuses_an_endpoint_still_naming_a_provider() -> None:
    with pytest.raises(
        ValueError, match="must be replaced by the URL of a running scripted policy"
    ):
        OpenAIClient(endpoint("scripted"))


def test_a_third_party_provider_registers_by_decorator() -> None:
    @provider("unit-test-local")
    class Local:
        description = "unit-test model server"
        holds_api_key = True
        speaks_every_api = False
        pod = "proxy-sidecar"

        def serve(self, context: ServeContext) -> AbstractAsyncContextManager[ProviderService]:
            raise AssertionError("this test never serves the provider")

    found: Provider | None = provider_for(endpoint("unit-test-local"))
    assert isinstance(found, Local)
    assert "unit-test-local" in provider_names()
    with pytest.raises(ValueError, match="cannot look like a URL"):
        provider("http://x")
