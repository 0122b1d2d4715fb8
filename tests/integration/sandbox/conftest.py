"""Helpers for the sandbox tests: find processes by a marker in their command line."""

import os
import uuid
from pathlib import Path

import pytest

from adhere.sandbox import sandbox_info


def processes_with(marker: str) -> list[int]:
    """Host pids whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline and int(entry.name) != os.getpid():
            found.append(int(entry.name))
    return found


@pytest.fixture
def leftovers():
    """``leftovers(marker)``: host pids whose command line contains ``marker``."""
    return processes_with


@pytest.fixture
def marker() -> str:
    """A unique number usable as ``sleep``'s argument, to find its process later."""
    return f"{100 + uuid.uuid4().int % 10**6 / 10**7:.7f}"


@pytest.fixture(scope="session")
def netns() -> bool:
    """Whether ``unshare --net`` works on this machine.

    Tests of the ``netns`` isolation skip only where the kernel or container forbids
    namespaces: there the sandbox runs in ``guard`` mode, which the same tests cover
    under their ``guard`` parameter, so no behaviour goes untested. On the machines CI
    uses namespaces work and nothing skips; ``test_probe_agrees_with_unshare`` fails
    if the probe ever says otherwise while ``unshare`` itself works.
    """
    return sandbox_info().netns


@pytest.fixture(scope="session")
def system_python() -> str:
    """An interpreter uid 65534 can run (for the privilege-drop tests), else skip.

    Skips only where runs cannot drop privileges at all (not root, or no readable
    system interpreter): then there is no uid switch to test, and the tests of runs
    that keep their uid (``test_forks_as_root_…``, writes outside) cover that case.
    """
    candidate = "/usr/bin/python3"
    if not os.path.exists(candidate):
        pytest.skip("no /usr/bin/python3")
    if sandbox_info(candidate).drops_to is None:
        pytest.skip("runs do not drop privileges here (not root, or interpreter unreadable)")
    return candidate
