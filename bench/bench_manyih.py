"""ManyIH coding, scored end to end: adhere's evaluator against the public approach.

The whole published subset — 427 samples, each answered with its reference code
restyled by the oracle — is scored twice on this machine:

adhere (what ``adhere score`` does)
    per sample, the 12 instructions' styles through adhere's checkers (one tokenize
    pass and one parse shared by the 12 checks), and the unit tests in the sandbox: a
    separate, resource-limited, network-less process per sample, ``parallelism``
    at once (default: the CPU count), through the runner's own evidence path.

baseline — the public evaluator's APPROACH, reimplemented here (not its code)
    per sample, one regex pass over the raw text per style (strings and comments
    included), and the tests run with ``exec`` INSIDE THIS BENCHMARK PROCESS with a
    ``SIGALRM`` timeout of 5 s, one sample after another, tests as written. This is
    the unsafe approach adhere exists to replace: untrusted code would run with this
    process's rights, files and network. It runs the published reference solutions
    only, and only here — never in adhere's evaluator. (The public harness also
    disables ``os`` functions process-wide before ``exec``; that would break this
    process, so it is left out — it is no isolation either.)

Printed: wall-clock seconds of each half and the ratios; how many samples pass their
tests each way (the baseline meets the data quirks as published: 416 of 427); and
how often the regex approach disagrees with adhere's checkers on answers that, by
adhere's checkers, meet every winning style.

Run: uv run python bench/bench_manyih.py [--parallelism N] [--rounds R]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import re
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from adhere.core import ChatMessage, SandboxRun, Trajectory
from adhere.scoring._evidence import sandbox_evidence
from adhere.suites.manyih import (
    CodingSample,
    ManyIHSuite,
    check_styles,
    extract_code,
    load_coding,
)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "manyih" / "coding.json"


# -- adhere ----------------------------------------------------------------------------


def adhere_styles(answers: list[str], styles: list[list[str]]) -> list[dict[str, bool]]:
    """The 12 instructions of every sample through adhere's checkers."""
    out = []
    for answer, ids in zip(answers, styles, strict=True):
        outcomes = check_styles(extract_code(answer), ids)
        out.append({sid: o.passed for sid, o in outcomes.items()})
    return out


async def adhere_tests(requests: list[SandboxRun], parallelism: int) -> list[str]:
    """The sandboxed unit-test runs, ``parallelism`` at once, via the runner's evidence path."""
    os.environ["ADHERE_SANDBOX_PARALLELISM"] = str(parallelism)
    found = await asyncio.gather(*(sandbox_evidence(r) for r in requests))
    return [e.status for e in found]


# -- baseline: the public approach, reimplemented (UNSAFE: exec in this process) --------


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def fire(signum: int, frame: object) -> None:
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def baseline_tests(samples: list[CodingSample], answers: list[str]) -> list[str]:
    """UNSAFE baseline: ``exec`` of code + tests as written, in this process, 5 s each."""
    out = []
    for sample, answer in zip(samples, answers, strict=True):
        program = extract_code(answer) + "\n" + sample.test_code
        sink = io.StringIO()
        try:
            with _alarm(5.0), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                exec(program, {"__name__": "__baseline__"})  # noqa: S102 - the unsafe baseline
            out.append("pass")
        except _Timeout:
            out.append("timeout")
        except AssertionError:
            out.append("fail")
        except BaseException:  # noqa: BLE001 - any other exception fails the sample
            out.append("crash")
    return out


_OPS = r"(?:==|!=|<=|>=|\+=|-=|\*=|/=|//|\*\*|[+\-*/%<>=])"
_TARGET = re.compile(r"\b([A-Za-z_]\w*)\s*=(?!=)")
_PARAMS = re.compile(r"def\s+\w+\s*\((.*?)\)", re.DOTALL)


def _names(code: str) -> list[str]:
    """Assignment targets and parameters, the regex way (keyword arguments included)."""
    found = _TARGET.findall(code)
    for params in _PARAMS.findall(code):
        found += [p.split(":")[0].split("=")[0].strip(" *") for p in params.split(",")]
    return [n for n in found if n and n not in ("self", "_")]


def _indents(code: str) -> list[str]:
    return re.findall(r"^([ \t]+)\S", code, re.MULTILINE)


REGEX_CHECKS: dict[str, Callable[[str], bool]] = {
    "indent_2": lambda c: all("\t" not in w and len(w) % 2 == 0 for w in _indents(c))
    and min((len(w) for w in _indents(c)), default=2) == 2,
    "indent_4": lambda c: all("\t" not in w and len(w) % 4 == 0 for w in _indents(c)),
    "indent_tab": lambda c: all(set(w) == {"\t"} for w in _indents(c)),
    "indent_spaces": lambda c: all("\t" not in w for w in _indents(c)),
    "quotes_single": lambda c: re.search(r'(?<!")"(?!"")', c.replace('"""', "")) is None,
    "quotes_double": lambda c: "'" not in c,
    "quotes_docstring_triple_double": lambda c: "'''" not in c,
    "naming_snake": lambda c: all(re.fullmatch(r"[a-z_][a-z0-9_]*", n) for n in _names(c)),
    "naming_camel": lambda c: all(re.fullmatch(r"[a-z][a-zA-Z0-9]*", n) for n in _names(c)),
    "naming_consonant_start": lambda c: all(n[0].lower() not in "aeiou_" for n in _names(c)),
    "op_space_around": lambda c: re.search(rf"\S{_OPS}|{_OPS}\S", re.sub(r"\*\*?\w", "", c))
    is None,
    "op_space_none": lambda c: re.search(rf"\s{_OPS}|{_OPS}\s", c) is None,
    "op_space_minimal": lambda c: re.search(r"\S=|=\S", c.replace("==", "")) is None
    and re.search(r"\s[+\-*/%<>]\s", c) is None,
    "op_space_arithmetic": lambda c: re.search(r"\S[+\-*/%<>]|[+\-*/%<>]\S", c) is None,
    "types_full": lambda c: all(":" in p or not p.strip() for p in _PARAMS.findall(c))
    and c.count("->") >= c.count("def "),
    "types_none": lambda c: "->" not in c and all(":" not in p for p in _PARAMS.findall(c)),
    "types_args_only": lambda c: "->" not in c
    and all(":" in p or not p.strip() for p in _PARAMS.findall(c)),
    "types_args_required": lambda c: all(":" in p or not p.strip() for p in _PARAMS.findall(c)),
    "var_min3": lambda c: all(len(n) >= 3 for n in _names(c)),
    "var_single": lambda c: all(len(n) == 1 for n in _names(c)),
    "var_min5": lambda c: all(len(n) >= 5 for n in _names(c)),
    "var_max2": lambda c: all(len(n) <= 2 for n in _names(c)),
    "license_mit": lambda c: "MIT License" in c,
    "license_apache": lambda c: "Apache License" in c,
    "license_none": lambda c: "License" not in c and "license" not in c,
    "doc_required": lambda c: len(re.findall(r"def .*:\n\s*(\"\"\"|''')", c)) == c.count("def "),
    "doc_none": lambda c: re.search(r"def .*:\n\s*(\"\"\"|''')", c) is None,
    "doc_oneline": lambda c: re.search(r'"""[^"]*\n[^"]*"""', c) is None,
    "blank_internal_none": lambda c: re.search(r"\n\s*\n[ \t]+\S", c) is None,
    "blank_internal_one": lambda c: len(re.findall(r"\n\s*\n[ \t]+\S", c)) == c.count("def "),
    "blank_internal_required": lambda c: len(re.findall(r"\n\s*\n[ \t]+\S", c)) >= c.count("def "),
    "return_variable": lambda c: all(
        re.fullmatch(r"\w+", r.strip()) for r in re.findall(r"return (.+)", c)
    ),
    "return_direct": lambda c: re.search(r"(\w+) = .*\n\s*return \1\s*$", c, re.MULTILINE) is None,
    "return_explicit_none": lambda c: re.search(r"return\s*$", c, re.MULTILINE) is None,
    "singleton_is": lambda c: re.search(r"[!=]= *(None|True|False)|(None|True|False) *[!=]=", c)
    is None,
    "singleton_eq": lambda c: re.search(r"\bis (not )?(None|True|False)|(None|True|False) is", c)
    is None,
    "singleton_variable_first": lambda c: re.search(r"(None|True|False) *(is|==|!=)", c) is None,
    "singleton_yoda": lambda c: re.search(r"\w *(is( not)?|==|!=) *(None|True|False)", c) is None,
    "line_79": lambda c: max((len(line) for line in c.splitlines()), default=0) <= 79,
    "line_120": lambda c: max((len(line) for line in c.splitlines()), default=0) <= 120,
    "line_unlimited": lambda c: True,
}


def baseline_styles(answers: list[str], styles: list[list[str]]) -> list[dict[str, bool]]:
    """One regex pass over the raw text per style (the public approach)."""
    out = []
    for answer, ids in zip(answers, styles, strict=True):
        code = extract_code(answer)
        out.append({sid: REGEX_CHECKS[sid](code) for sid in ids})
    return out


# -- the run ------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--parallelism", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--rounds", type=int, default=1, help="Best of R rounds of each half.")
    args = parser.parse_args()

    samples = load_coding(DATA)
    suite = ManyIHSuite()
    instances = suite.instances(samples)
    answers = [suite.oracle_reply(i, 0, lambda key: False) for i in instances]
    styles = [[item.style_id for item in s.instructions] for s in samples]
    trajectories = [
        Trajectory(
            messages=[
                ChatMessage(role="user", content=i.turns[0]),
                ChatMessage(role="assistant", content=a),
            ]
        )
        for i, a in zip(instances, answers, strict=True)
    ]
    requests = [
        r
        for i, t in zip(instances, trajectories, strict=True)
        for r in suite.evidence(i, t)
        if isinstance(r, SandboxRun)
    ]
    checks = sum(len(ids) for ids in styles)
    print(
        f"{len(samples)} samples, {checks} style checks + {len(requests)} test runs; "
        f"{os.cpu_count()} CPUs; adhere sandbox parallelism {args.parallelism}"
    )

    best: dict[str, float] = {}
    results: dict[str, object] = {}

    def timed(name: str, fn: Callable[[], object]) -> None:
        started = time.perf_counter()
        results[name] = fn()
        best[name] = min(best.get(name, float("inf")), time.perf_counter() - started)

    for _ in range(args.rounds):  # interleaved, so load drift hits both halves alike
        timed("adhere styles", lambda: adhere_styles(answers, styles))
        timed("adhere tests", lambda: asyncio.run(adhere_tests(requests, args.parallelism)))
        timed("baseline styles", lambda: baseline_styles(answers, styles))
        timed("baseline tests", lambda: baseline_tests(samples, answers))

    adhere_total = best["adhere styles"] + best["adhere tests"]
    baseline_total = best["baseline styles"] + best["baseline tests"]
    print(
        f"styles: adhere {best['adhere styles']:.2f} s "
        f"({checks / best['adhere styles']:,.0f} checks/s), regex baseline "
        f"{best['baseline styles']:.2f} s ({checks / best['baseline styles']:,.0f} checks/s); "
        f"ratio {best['adhere styles'] / best['baseline styles']:.2f}x"
    )
    print(
        f"tests:  adhere sandbox {best['adhere tests']:.2f} s "
        f"({len(requests) / best['adhere tests']:.1f} runs/s), in-process exec baseline "
        f"{best['baseline tests']:.2f} s; ratio "
        f"{best['adhere tests'] / best['baseline tests']:.2f}x"
    )
    print(
        f"total:  adhere {adhere_total:.2f} s, baseline {baseline_total:.2f} s; "
        f"ratio {adhere_total / baseline_total:.2f}x"
    )

    ours = Counter(results["adhere tests"])  # type: ignore[arg-type]
    theirs = Counter(results["baseline tests"])  # type: ignore[arg-type]
    print(f"tests passed: adhere {ours['pass']}/{len(samples)} {dict(ours)}; "
          f"baseline {theirs['pass']}/{len(samples)} {dict(theirs)}")  # fmt: skip

    disagree: Counter[str] = Counter()
    judged: Counter[str] = Counter()
    adhere_seen = results["adhere styles"]
    regex_seen = results["baseline styles"]
    for mine, naive, sample in zip(adhere_seen, regex_seen, samples, strict=True):  # type: ignore[call-overload]
        won = {s for v in sample.metadata["expected_styles"].values() for s in v}
        for sid in won:
            judged[sid] += 1
            if mine[sid] != naive[sid]:
                disagree[sid] += 1
    print(
        "winning styles of the oracle's answers (all met by adhere's checkers) that the regex "
        f"approach fails: {sum(disagree.values())} of {sum(judged.values())}"
    )
    for sid, count in disagree.most_common():
        print(f"  {sid:32} {count:4} of {judged[sid]}")


if __name__ == "__main__":
    main()
