"""Provider ``local-model``: registration, resolution, settings and the install check."""

import re
from pathlib import Path

import pytest

from adhere.errors import ModelServerError, SpecError
from adhere.models import ModelServer, ModelServerSettings, Served, provider_for, provider_names
from adhere.models._local_model import LocalModelProvider, LocalModelService, check_apis
from adhere.models._model_server import MODEL_FILE, default_model_server_cache
from adhere.spec import Endpoint

HINT = "bash scripts/install-model-server.sh"


def endpoint(api: str = "openai", base_url: str = "local-model") -> Endpoint:
    return Endpoint.model_validate({"api": api, "baseUrl": base_url, "model": "smollm2"})


def test_local_model_is_a_builtin_provider_needing_no_key() -> None:
    found = provider_for(endpoint())
    assert isinstance(found, LocalModelProvider)
    assert "local-model" in provider_names()
    assert (found.holds_api_key, found.speaks_every_api, found.pod) == (False, False, "in-process")
    assert "SmolLM2" in found.description


@pytest.mark.parametrize(("api", "suffix"), [("openai", "/v1"), ("anthropic", "")])
def test_a_running_service_resolves_each_shape_to_its_root(api: str, suffix: str) -> None:
    served = Served({"local-model": LocalModelService("http://127.0.0.1:9")})
    resolved = served.resolve(endpoint(api))
    assert resolved.base_url == "http://127.0.0.1:9" + suffix
    assert (resolved.api, resolved.model) == (api, "smollm2")


def test_the_responses_shape_gets_the_openai_root() -> None:
    responses = endpoint().model_copy(update={"api": "openai-responses"})
    assert LocalModelService("http://h:1").resolve(responses).base_url == "http://h:1/v1"


def test_gemini_is_refused_with_the_shapes_it_speaks() -> None:
    gemini = endpoint().model_copy(update={"api": "gemini"})
    message = "speaks anthropic, openai, openai-responses, not 'gemini' (model 'smollm2')"
    full = f"endpoint.api: the local model server {message}"
    with pytest.raises(SpecError, match=f"^{re.escape(full)}$"):
        check_apis([endpoint("anthropic"), gemini])
    with pytest.raises(SpecError, match="not 'gemini'"):
        LocalModelService("http://h:1").resolve(gemini)


async def test_serving_a_gemini_endpoint_fails_before_starting_anything(tmp_path: Path) -> None:
    from adhere.models import ServeContext

    gemini = endpoint().model_copy(update={"api": "gemini"})
    provider = LocalModelProvider(ModelServerSettings(cache=tmp_path))
    with pytest.raises(SpecError, match="not 'gemini'"):
        async with provider.serve(ServeContext(judges=[gemini])):
            raise AssertionError("served")


def test_settings_come_from_the_environment_and_arguments_win(tmp_path: Path) -> None:
    env = {
        "ADHERE_MODEL_SERVER_CACHE": str(tmp_path),
        "ADHERE_MODEL_SERVER_SLOTS": "2",
        "ADHERE_MODEL_SERVER_CTX": "4096",
        "ADHERE_MODEL_SERVER_READY_TIMEOUT": "2.5",
    }
    settings = ModelServerSettings.from_env(env)
    assert (settings.cache, settings.slots, settings.ctx) == (tmp_path, 2, 4096)
    assert (settings.ready_timeout, settings.host, settings.port) == (2.5, "127.0.0.1", 0)
    assert ModelServerSettings.from_env(env, slots=1, ctx=1024, port=7).slots == 1
    defaults = ModelServerSettings.from_env({})
    assert (defaults.slots, defaults.ctx) == (4, 32768)
    assert defaults.cache == Path.home() / ".cache" / "adhere" / "model-server"
    assert default_model_server_cache({"ADHERE_MODEL_SERVER_CACHE": "/x"}) == Path("/x")


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("ADHERE_MODEL_SERVER_SLOTS", "four", "positive whole number, got 'four'"),
        ("ADHERE_MODEL_SERVER_CTX", "-1", "positive whole number, got '-1'"),
        ("ADHERE_MODEL_SERVER_READY_TIMEOUT", "0", "positive number, got '0'"),
    ],
)
def test_a_bad_environment_value_names_the_variable(name: str, value: str, expected: str) -> None:
    with pytest.raises(SpecError, match=f"^{name}: expected a {expected}$"):
        ModelServerSettings.from_env({name: value})


def test_too_little_context_per_slot_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="^ctx: a context of 1024 tokens gives each of the 4"):
        ModelServerSettings(cache=tmp_path, slots=4, ctx=1024)
    with pytest.raises(SpecError, match="^slots: expected at least 1 slot"):
        ModelServerSettings(cache=tmp_path, slots=0)


def test_a_missing_binary_says_how_to_install(tmp_path: Path) -> None:
    settings = ModelServerSettings(cache=tmp_path)
    with pytest.raises(ModelServerError, match="not installed") as caught:
        settings.installed()
    assert str(tmp_path / "bin" / "llama-server") in str(caught.value)
    assert HINT in str(caught.value)


def test_a_missing_model_says_how_to_install(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    binary = tmp_path / "bin" / "llama-server"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    with pytest.raises(ModelServerError, match=f"model/{MODEL_FILE} is missing") as caught:
        ModelServerSettings(cache=tmp_path).installed()
    assert HINT in str(caught.value)


def test_a_binary_that_cannot_run_says_how_to_install(tmp_path: Path) -> None:
    for rel in ("bin/llama-server", f"model/{MODEL_FILE}"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    with pytest.raises(ModelServerError, match="is not executable") as caught:
        ModelServerSettings(cache=tmp_path).installed()
    assert HINT in str(caught.value)


async def test_starting_without_an_install_starts_nothing(tmp_path: Path) -> None:
    server = ModelServer(ModelServerSettings(cache=tmp_path))
    with pytest.raises(ModelServerError, match=HINT):
        await server.start()
    assert server.pid is None
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.url


def test_the_command_line_serves_the_cached_model_on_loopback(tmp_path: Path) -> None:
    for rel in ("bin/llama-server", f"model/{MODEL_FILE}"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    (tmp_path / "bin" / "llama-server").chmod(0o755)
    command = ModelServer(ModelServerSettings(cache=tmp_path, slots=2, ctx=8192)).command(4321)
    assert command == [
        str(tmp_path / "bin" / "llama-server"), "-m", str(tmp_path / "model" / MODEL_FILE),
        "--host", "127.0.0.1", "--port", "4321", "--jinja", "-c", "8192", "-np", "2",
    ]  # fmt: skip
