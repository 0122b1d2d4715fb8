"""ManyIH reference code against its own tests, in the sandbox (427 separate processes).

With the documented data quirks handled (``['import math']`` read as setup; a 30 s
test timeout), the reference code passes on every sample. Met the way the public
evaluator meets them (tests run as written; 5 s), the 10 samples relying on the
import-list line fail with ``NameError``, and task 123 — about 4.6 s of CPU here —
has no margin under 5 s (it times out on a slower or loaded machine): the published
416 of 427.
"""

import asyncio
import time

import pytest

from adhere.core import ChatMessage, Evidence, Instance, SandboxRun, Trajectory
from adhere.sandbox import Limits, run_asserts, run_many
from adhere.scoring._evidence import sandbox_evidence
from adhere.suites.manyih import CodingSample, ManyIHSuite, load_coding
from tests.helpers import ROOT

DATA = ROOT.parent / "shared" / "data" / "manyih" / "coding.json"


@pytest.fixture(scope="module")
def samples() -> list[CodingSample]:
    return load_coding(DATA)


def answered(code: str, *, fenced: bool = True) -> Trajectory:
    text = f"```python\n{code}\n```" if fenced else code
    return Trajectory(
        messages=[
            ChatMessage(role="user", content="task"),
            ChatMessage(role="assistant", content=text),
        ]
    )


async def _evidence(requests: list[SandboxRun]) -> list[str]:
    return [f"{e.status}: {e.detail}" for e in await _runs(requests)]


async def _runs(requests: list[SandboxRun]) -> list[Evidence]:
    return list(await asyncio.gather(*(sandbox_evidence(r) for r in requests)))


def test_reference_passes_its_tests_on_every_sample(
    samples: list[CodingSample], record_property
) -> None:
    suite = ManyIHSuite()
    instances: list[Instance] = suite.instances(samples)
    requests = []
    for sample, instance in zip(samples, instances, strict=True):
        [request] = suite.evidence(instance, answered(sample.reference_code))
        assert isinstance(request, SandboxRun)
        requests.append(request)
    started = time.perf_counter()
    runs = asyncio.run(_runs(requests))
    elapsed = time.perf_counter() - started
    failing = {s.id: (r.status, r.detail) for s, r in zip(samples, runs, strict=True)}
    assert {k: v for k, v in failing.items() if v[0] != "pass"} == {}
    # the slow-test quirk: task 123 (sample 103) is by far the slowest — about 4.6 s of
    # CPU here, so the public 5 s limit leaves it no margin (on a loaded or slower
    # machine it times out: the published 416 counts it as failed)
    seconds = sorted(((r.data["seconds"], s.id) for s, r in zip(samples, runs, strict=True)))
    assert seconds[-1][1] == 103 and seconds[-1][0] > 2.0
    record_property("sandbox_seconds_for_427_runs", round(elapsed, 1))


def test_the_import_quirk_as_the_public_evaluator_meets_it(samples: list[CodingSample]) -> None:
    """Tests run exactly as written: the 10 samples relying on ``['import math']`` fail."""
    quirky = [s for s in samples if s.test_code.startswith("['import math']")]
    jobs = [run_asserts(s.reference_code, s.test_code, limits=Limits(timeout=30)) for s in quirky]
    results = asyncio.run(run_many(jobs))
    crashed = [s.id for s, r in zip(quirky, results, strict=True) if r.status != "pass"]
    assert crashed == [48, 95, 99, 115, 171, 206, 214, 293, 325, 337]
    assert all("NameError" in r.detail and "math" in r.detail for r in results if not r.passed)
    # with task 123 timing out under a 5 s limit: the published 416 of 427
    assert 427 - len(crashed) - 1 == 416


def test_oracle_and_broken_answers_on_a_subset(samples: list[CodingSample]) -> None:
    """The oracle's restyled code passes the tests; its broken-tests answer does not."""
    suite = ManyIHSuite()
    subset = samples[::8]
    instances = suite.instances(subset)
    requests = []
    for instance in instances:
        good = suite.oracle_reply(instance, 0, lambda key: False)
        bad = suite.oracle_reply(instance, 0, lambda key: key == "tests")
        requests += [suite.evidence(instance, answered(good, fenced=False))[0]]
        requests += [suite.evidence(instance, answered(bad, fenced=False))[0]]
    outcomes = asyncio.run(_evidence(requests))  # type: ignore[arg-type]
    good_runs, bad_runs = outcomes[::2], outcomes[1::2]
    assert all(o.startswith("pass") for o in good_runs), good_runs
    assert all(o.startswith("crash") and "NameError" in o for o in bad_runs), bad_runs
