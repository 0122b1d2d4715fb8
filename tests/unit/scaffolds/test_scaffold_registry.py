import subprocess
import sys

import pytest

import adhere.scaffolds
from adhere.errors import SpecError
from adhere.scaffolds import get_scaffold, installable, scaffold, scaffold_names

BUILTINS = ["chat", "claude-code", "codex", "droid", "gemini-cli", "kilo", "qwen-code", "reference"]
APIS = {
    "chat": "openai-chat",
    "reference": "openai-chat",
    "claude-code": "anthropic",
    "kilo": "openai-chat",
    "droid": "openai-chat",
    "codex": "openai-responses",
    "qwen-code": "openai-chat",
    "gemini-cli": "gemini",
}


def test_public_names():
    assert adhere.scaffolds.__all__ == [
        "BUILTIN",
        "CACHE_ENV",
        "DEFAULT_IGNORE_DIRS",
        "InstallError",
        "ProxyEndpoint",
        "SandboxLimits",
        "Scaffold",
        "ScaffoldResult",
        "TrialContext",
        "TurnOutcome",
        "VersionSupport",
        "WireApi",
        "WorkspaceLimits",
        "check_agent_sandbox",
        "collect_files",
        "default_cache_dir",
        "get_scaffold",
        "installable",
        "runs_in_sandbox",
        "scaffold",
        "scaffold_names",
        "version_support",
    ]
    for name in adhere.scaffolds.__all__:
        assert getattr(adhere.scaffolds, name) is not None


def test_builtin_names_and_installable_ones():
    assert set(BUILTINS) <= set(scaffold_names())
    assert installable() == ["claude-code", "codex", "droid", "gemini-cli", "kilo", "qwen-code"]


@pytest.mark.parametrize("name", BUILTINS)
def test_each_builtin_has_a_name_an_api_and_install(name):
    instance = get_scaffold(name)
    assert instance.name == name
    assert instance.api == APIS[name]
    assert callable(instance.install)
    assert callable(instance.run)


def test_droid_speaks_anthropic_when_asked():
    assert get_scaffold("droid", provider="anthropic").api == "anthropic"


def test_unknown_scaffold_lists_the_known_ones():
    with pytest.raises(SpecError, match="unknown scaffold 'nope'.*claude-code"):
        get_scaffold("nope")


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("chat", {"temperature": 3}),
        ("claude-code", {"system_prompt_mode": "sideways"}),
        ("droid", {"provider": "openai-responses"}),
        ("reference", {"max_steps": 0}),
    ],
)
def test_bad_options_are_spec_errors(name, options):
    with pytest.raises(SpecError, match=f"bad options for scaffold '{name}'"):
        get_scaffold(name, **options)


def test_decorator_registers_a_class():
    @scaffold("unit-test-scaffold")
    class Mine:
        name = "unit-test-scaffold"
        api = "anthropic"

        def __init__(self, *, flavour="plain"):
            self.flavour = flavour

    assert "unit-test-scaffold" in scaffold_names()
    assert get_scaffold("unit-test-scaffold", flavour="salty").flavour == "salty"


def test_importing_the_package_loads_no_adapter():
    code = (
        "import sys, adhere.scaffolds\n"
        "heavy = [m for m in sys.modules if m.startswith('adhere.scaffolds._') and m not in "
        "('adhere.scaffolds._registry', 'adhere.scaffolds._types', 'adhere.scaffolds._install', "
        "'adhere.scaffolds._versions', 'adhere.scaffolds._workspace', "
        "'adhere.scaffolds._sandbox')]\n"
        "print(heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
