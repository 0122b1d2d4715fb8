"""Differential test: adhere's public-compatible ManyIH checkers against the public ones.

Needs a local copy of the public ManyIH repository (``JHU-CLSP/ManyIH``; a git
directory — a bare mirror is fine — given by ``ADHERE_MANYIH_PUBLIC`` or found at
``/work/.mirror/JHU-CLSP+ManyIH/repo``). The public ``manyih/coding/styles`` package is
read with ``git show`` into a temporary directory, imported from there for the run,
and removed afterwards; none of it is kept or written into this repository.

The corpus (``corpus``): every published sample's reference code, adhere's restyling
of it to the sample's winners, to each losing instruction's style set and to seeded
random style sets (one style per group), the noisy oracle's deliberately broken
answers, and hand-written edge cases for every known public defect. Every program is
checked against all 41 styles by both implementations; the script prints the agreement
(and, for information, the corrected checkers' agreement with the public ones per
style) and exits non-zero unless public-compatible mode agrees on every pair.

``--golden PATH`` writes the generated verdicts (program text, and one character per
style in ``STYLE_ORDER``: ``p`` pass, ``f`` fail, ``e`` the public checker raises) as
gzipped JSON, for the unit test that runs without the public code.

    uv run python bench/manyih_public_diff.py                      # agreement only
    uv run python bench/manyih_public_diff.py --golden tests/unit/manyih/public_golden.json.gz
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from adhere.suites.manyih import (
    GROUPS,
    STYLES,
    ManyIHSuite,
    answer_key,
    check_style,
    conflicts,
    load_coding,
    public_verdict,
    restyle,
)

DATA = Path(os.environ.get("ADHERE_MANYIH_DATA", "/work/shared/data/manyih/coding.json"))
MIRROR = Path(os.environ.get("ADHERE_MANYIH_PUBLIC", "/work/.mirror/JHU-CLSP+ManyIH/repo"))
STYLE_ORDER = sorted(STYLES)

EDGE_CASES = [
    "def f(a, b):\n    return a == b\n",  # '=' of '==' read as an assignment
    "def f(a, b):\n    return a<=b\n",
    "def f(a):\n    a += 1\n    return a\n",  # '+=' judged as '+' and '='
    "def f(a):\n    a+=1\n    return a\n",
    "def f(a):\n    return a << 2 >> 1\n",
    "def f(a):\n    a <<= 2\n    return a\n",
    "def f(a):\n    return None is a\n",
    "def f(a):\n    return a is None\n",
    "def f(a):\n    return a == None\n",
    "def f(a):\n    return True == a\n",
    "def f(a):\n    if a is not None:\n        return a\n    return 0\n",
    "def f(a):\n    if a:\n        r = a\n        return r\n    r = 0\n    return r\n",
    "def f(a):\n    if a:\n        return\n    return None\n",
    "MAX_SIZE = 10\ndef f(a):\n    return a\n",
    "def f(*args, key=None):\n    return args\n",
    "f = lambda ab: ab\n",
    "def f() -> int:\n    return 1\n",
    "def f(a: int) -> int:\n    return -a\n",
    "s = 'a#b' + 'c'\n",
    "s = '''x'''\nt = \"y\"\n",
    "x = (1,\n",
    "def f(a):\n  if a:\n      return 1\n  return 2\n",
    "def f(a):\n    '''Doc.'''\n    return a\n",
    'def f(a):\n    """Doc.\n\n    More.\n    """\n    return a\n',
    "# Licensed under the Apache License, Version 2.0\ndef f(a):\n    return a\n",
    "# MIT License\ndef f(a):\n    return a\n",
    "# SPDX-License-Identifier: MIT\ndef f(a):\n    return a\n",
    "def f(a):\n\n    s = '''\n\n'''\n    return s\n",
    "def f(a):\n\tif a:\n\t\treturn 1\n\treturn 2\n",
    "def f(a):\n  b = [1,\n       2]\n  return b\n",
    "def f(a):\n    return\n",
    "def f(a): return a if a else None\n",
    "class C:\n    def m(self, xx):\n        return xx\n",
    "def f(a):\n    x = -1\n    return sorted(a, key=len)\n",
    "def f(a):\n    return a ** 2 // 3 % 4\n",
    "def f(a):\n    return [i for i in a if i != None]\n",
    "def f(a):\n    apache = 1\n    return a\n",
    "def f(a):\n    b = a\n    return (b)\n",
    "def f(a)\n    return a\n",
    "def f(a):\n    if a:\n        return 1\n  return 2\n",
]


def load_public(repo: Path, into: Path) -> Callable[[str, str], tuple[bool, str]]:
    """The public ``check_style_instruction``, imported from a temporary copy."""
    listing = subprocess.run(
        ["git", "--git-dir", str(repo), "ls-tree", "--name-only", "HEAD", "manyih/coding/styles/"],
        check=True, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    package = into / "manyih_public_styles"
    package.mkdir()
    for name in listing:
        blob = subprocess.run(["git", "--git-dir", str(repo), "show", f"HEAD:{name}"],
                              check=True, capture_output=True).stdout  # fmt: skip
        (package / Path(name).name).write_bytes(blob)
    sys.path.insert(0, str(into))
    module = importlib.import_module("manyih_public_styles")
    checker: Callable[[str, str], tuple[bool, str]] = module.check_style_instruction
    return checker


ORACLE: list[tuple[str, list[str]]] = []
"""The oracle's answers (restyled to the winners) with their winners, filled by corpus()."""


def corpus(seed: int = 0, random_sets: int = 3) -> list[str]:
    """Distinct programs: references, restylings, broken answers, edge cases."""
    samples = load_coding(DATA)
    suite = ManyIHSuite()
    rng = random.Random(seed)
    programs: dict[str, None] = dict.fromkeys(EDGE_CASES)
    for instance in suite.instances(samples):
        key = answer_key(instance)
        programs.setdefault(key.reference)
        oracle = restyle(key.task, key.winners).code
        ORACLE.append((oracle, key.winners))
        programs.setdefault(oracle)
        losers = [s for s in key.styles if s not in key.winners]
        kept = [s for s in key.winners if not any(conflicts(s, loser) for loser in losers)]
        programs.setdefault(restyle(key.task, [*kept, *losers[:1]]).code)
        for _ in range(random_sets):
            picks = [rng.choice(ids) for ids in GROUPS.values()]
            programs.setdefault(restyle(key.task, picks).code)
        broken = rng.sample(key.winners, k=min(2, len(key.winners)))
        programs.setdefault(restyle(key.task, key.winners, violate=broken).code)
    return [p for p in programs if p.strip()]


def _public_safe(check: Callable[[str, str], tuple[bool, str]], code: str, sid: str) -> str:
    try:
        return "p" if check(code, sid)[0] else "f"
    except Exception:  # noqa: BLE001 - the public evaluator turns any raise into an error
        return "e"


def _ours(code: str, sid: str) -> str:
    verdict = public_verdict(code, sid)
    return "e" if verdict is None else "p" if verdict else "f"


def main(argv: list[str] | None = None) -> int:
    """Run the differential test; 0 when public-compatible mode agrees everywhere."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--golden", type=Path, help="write the verdicts here (.json.gz)")
    parser.add_argument("--random-sets", type=int, default=3)
    args = parser.parse_args(argv)
    if not (MIRROR / "HEAD").exists() and not (MIRROR / ".git").exists():
        print(f"no public ManyIH repository at {MIRROR} (set ADHERE_MANYIH_PUBLIC)")
        return 2
    programs = corpus(random_sets=args.random_sets)
    with tempfile.TemporaryDirectory(prefix="manyih-public-") as tmp:
        public = load_public(MIRROR, Path(tmp))
        theirs = ["".join(_public_safe(public, p, s) for s in STYLE_ORDER) for p in programs]
    ours = ["".join(_ours(p, s) for s in STYLE_ORDER) for p in programs]
    corrected = [
        "".join("p" if check_style(p, s).passed else "f" for s in STYLE_ORDER) for p in programs
    ]
    pairs = len(programs) * len(STYLE_ORDER)
    differ: list[tuple[int, str]] = []
    vs_corrected: Counter[str] = Counter()
    for i, (t, o, c) in enumerate(zip(theirs, ours, corrected, strict=True)):
        for sid, a, b, d in zip(STYLE_ORDER, t, o, c, strict=True):
            if a != b:
                differ.append((i, sid))
            if (a == "p") != (d == "p"):
                vs_corrected[sid] += 1
    print(f"programs: {len(programs)}; styles: {len(STYLE_ORDER)}; pairs: {pairs}")
    print(f"public-compatible agrees with the public checkers on {pairs - len(differ)} / {pairs}")
    raised = sum(t.count("e") for t in theirs)
    print(f"pairs where the public checker raises: {raised}")
    n_corr = sum(vs_corrected.values())
    print(
        f"corrected (default) checkers agree on {pairs - n_corr} / {pairs}; differences by style:"
    )
    for sid, n in vs_corrected.most_common():
        print(f"  {sid:32} {n}")
    checks = sum(len(w) for _, w in ORACLE)
    failed = sum(public_verdict(code, s) is not True for code, w in ORACLE for s in w)
    print(f"the oracle's answers fail {failed} of {checks} winning-style checks (public)")
    for i, sid in differ[:20]:
        print(f"DIFFERS: program {i} style {sid}\n{programs[i]}")
    if args.golden:
        payload = {"styles": STYLE_ORDER, "programs": programs, "verdicts": theirs}
        text = json.dumps(payload, separators=(",", ":")).encode("utf-8")
        args.golden.write_bytes(gzip.compress(text, compresslevel=9, mtime=0))  # reproducible
        print(f"wrote {args.golden} ({args.golden.stat().st_size} bytes)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
