"""Scaffold versions: what each adapter claims, and a chosen version installs apart."""

from pathlib import Path

import pytest

from adhere.errors import SpecError
from adhere.scaffolds import BUILTIN, get_scaffold, installable, version_support

CLIS = installable()


@pytest.mark.parametrize("name", CLIS)
def test_the_pin_is_the_first_tested_version(name):
    support = version_support(name)
    assert support.pinned == get_scaffold(name).tool.version
    assert support.tested[0] == support.pinned
    assert support.package.startswith("npm @")
    assert set(support.unavailable).isdisjoint(support.tested)


def test_in_process_scaffolds_have_no_versions():
    for name in ("chat", "reference"):
        support = version_support(name)
        assert support.pinned == BUILTIN and not support.installs


def test_claude_code_claims_the_octobench_version():
    assert version_support("claude-code").is_tested("2.0.69")


@pytest.mark.parametrize(("name", "version"), [("kilo", "0.10.2"), ("droid", "0.42.2")])
def test_the_papers_kilo_and_droid_versions_are_known_not_installable(name, version):
    why = version_support(name).unavailable[version]
    assert "not on npm" in why
    with pytest.raises(SpecError, match=f"version {version} cannot be installed: .*not on npm"):
        get_scaffold(name, version=version)


def test_a_chosen_version_moves_the_packages_and_the_cache_directory():
    pinned = get_scaffold("claude-code").tool
    tool = get_scaffold("claude-code", version="2.0.69").tool
    assert tool.version == "2.0.69"
    assert tool.packages == ("@anthropic-ai/claude-code@2.0.69",)
    assert tool.directory(Path("/c")) == Path("/c/claude-code-2.0.69")
    assert tool.directory(Path("/c")) != pinned.directory(Path("/c"))
    assert get_scaffold("claude-code", version=pinned.version).tool == pinned


def test_droid_moves_its_binary_package_and_keeps_the_wrapper():
    pinned = get_scaffold("droid").tool
    moved = get_scaffold("droid", version="0.215.0").tool
    assert moved.packages[0] == pinned.packages[0]  # the wrapper, versioned apart
    assert moved.packages[1].endswith("@0.215.0")
    assert moved.packages[1].rsplit("@", 1)[0] == pinned.packages[1].rsplit("@", 1)[0]


def test_a_version_is_checked_like_any_option():
    with pytest.raises(SpecError) as caught:
        get_scaffold("kilo", version=7)
    assert caught.value.field == "options.version"
