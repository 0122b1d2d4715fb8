"""A seeded mutator over adhere's input files: specs, bindings and datasets.

Seeds are the examples and small data fixtures of the repository, copied into a
temporary directory as *groups* (the files ``adhere validate`` is given together, and
the data files they read). A case picks a group and one of its files, and applies one
mutation — deleting a key, retyping a value, a list for a scalar, huge numbers, deep
nesting, a duplicated key, non-UTF-8 bytes, truncation, stray characters … — to the
parsed document (then dumped back) or to the raw bytes. Cases are reproducible from
their number and the seed.
"""

from __future__ import annotations

import copy
import json
import random
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.helpers import ROOT

EXAMPLES = ROOT / "examples"
FIXTURES = ROOT / "tests" / "unit"


@dataclass
class Group:
    """Files validated together, and the files a case may mutate."""

    name: str
    files: list[Path]
    targets: list[Path]
    originals: dict[Path, bytes] = field(default_factory=dict)

    def restore(self) -> None:
        for path, data in self.originals.items():
            path.write_bytes(data)


_PACIFIC_PATH = """\
apiVersion: adhere.dev/v1alpha1
kind: Benchmark
metadata: {name: pacific-file}
spec:
  suite: pacific
  source: {path: samples.jsonl}
---
apiVersion: adhere.dev/v1alpha1
kind: Rollout
metadata: {name: pacific-file}
spec:
  benchmark: pacific-file
  models:
    - name: oracle
      endpoint: {api: openai, baseUrl: scripted, model: oracle}
  scaffolds: [chat]
  storage: file://./runs
"""

_MANYIH_IF = """\
apiVersion: adhere.dev/v1alpha1
kind: Benchmark
metadata: {name: manyih-if}
spec:
  suite: manyih
  source: {path: if_fixture.json}
  options: {subset: if}
---
apiVersion: adhere.dev/v1alpha1
kind: Rollout
metadata: {name: manyih-if}
spec:
  benchmark: manyih-if
  models:
    - name: oracle
      endpoint: {api: anthropic, baseUrl: scripted, model: oracle}
  scaffolds: [chat]
  storage: file://./runs
"""

_VERICODE_FILE = """\
apiVersion: adhere.dev/v1alpha1
kind: Benchmark
metadata: {name: vericode-file}
spec:
  suite: vericode
  source: {path: livecodebench.jsonl}
  options: {protocols: [single], ks: [0, 1], limit: 2}
"""

_GUIDEBENCH_FILE = """\
apiVersion: adhere.dev/v1alpha1
kind: Benchmark
metadata: {name: coupons-file}
spec:
  suite: guidebench
  source: {path: coupons.json}
  options: {perCategory: 3, reasoning: false}
"""


def build_groups(root: Path) -> list[Group]:
    """Copy the seeds under ``root`` and describe the groups."""
    from adhere.suites.guidebench import CouponParams, generate_coupon_tasks
    from adhere.suites.pacific import GeneratorParams, generate

    ex = root / "examples"
    for name in (
        "quickstart",
        "octobench-sample",
        "octobench-conflict",
        "vericode",
        "guidebench-coupons",
        "kubernetes",
        "real-model",
        "manyih",
        "guidebench",
    ):
        shutil.copytree(EXAMPLES / name, ex / name)
    extra = root / "extra"
    extra.mkdir()
    (extra / "pacific.yaml").write_text(_PACIFIC_PATH, encoding="utf-8")
    with (extra / "samples.jsonl").open("w", encoding="utf-8") as out:
        params = GeneratorParams(instructions=(3,), lengths=(3,), per_language=1, seed=3)
        for sample in generate(params):
            out.write(sample.model_dump_json() + "\n")
    (extra / "manyih.yaml").write_text(_MANYIH_IF, encoding="utf-8")
    shutil.copy(FIXTURES / "manyih" / "if_fixture.json", extra / "if_fixture.json")
    (extra / "vericode.yaml").write_text(_VERICODE_FILE, encoding="utf-8")
    shutil.copy(FIXTURES / "vericode" / "fixtures" / "livecodebench.jsonl", extra)
    (extra / "guidebench.yaml").write_text(_GUIDEBENCH_FILE, encoding="utf-8")
    coupons = generate_coupon_tasks(CouponParams(n=3, seed=5))
    (extra / "coupons.json").write_text(json.dumps(coupons, ensure_ascii=False), encoding="utf-8")

    def group(name: str, files: list[Path], data: list[Path] = ()) -> Group:
        targets = [*files, *data]
        return Group(name, files, targets, {p: p.read_bytes() for p in targets})

    octo = ex / "octobench-sample"
    conflict = ex / "octobench-conflict"
    return [
        group("quickstart", sorted((ex / "quickstart").glob("*.yaml"))),
        group(
            "octobench-sample",
            [
                octo / "benchmark.yaml",
                octo / "bindings.yaml",
                octo / "judges.yaml",
                octo / "rollout.yaml",
            ],
            [octo / "instances.jsonl"],
        ),  # fmt: skip
        group(
            "octobench-conflict",
            [conflict / "benchmark.yaml", conflict / "rollout.yaml"],
            [conflict / "instances.jsonl"],
        ),
        group(
            "vericode",
            [ex / "vericode" / "llm-selected.yaml"],
            [ex / "vericode" / "llm-selected.jsonl"],
        ),
        group(
            "vericode-builtin",
            [
                ex / "vericode" / n
                for n in ("benchmark-paper.yaml", "benchmark.yaml", "rollout.yaml")
            ],
        ),  # rollout-paper.yaml reads keys from Secrets
        group("guidebench-coupons", sorted((ex / "guidebench-coupons").glob("*.yaml"))),
        group("kubernetes", [ex / "kubernetes" / "smoke.yaml"]),
        group("kubernetes-sweep", [ex / "kubernetes" / "sweep.yaml"]),
        group("real-model", sorted((ex / "real-model").glob("*.yaml"))),
        group("manyih-options", [ex / "manyih" / "perturb.yaml"]),
        group("guidebench-options", [ex / "guidebench" / "direct.yaml"]),
        group("pacific-file", [extra / "pacific.yaml"], [extra / "samples.jsonl"]),
        group("manyih-if", [extra / "manyih.yaml"], [extra / "if_fixture.json"]),
        group("vericode-file", [extra / "vericode.yaml"], [extra / "livecodebench.jsonl"]),
        group("guidebench-file", [extra / "guidebench.yaml"], [extra / "coupons.json"]),
    ]


# --- structural mutations (on parsed data) ------------------------------------------

_DEEP = "__adhere_fuzz_deep__"
_SCALARS: list[Any] = ["x", "", 0, 1, -1, 1.5, True, False, None, "9" * 40]
_HUGE: list[Any] = [10**30, -(10**30), 2**63, 1e308, -1e308, float("inf"), float("nan"), -1, 0]


def _slots(value: Any, out: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """Every (container, key) pair inside ``value``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                out.append((item, key))
                stack.append(child)
        elif isinstance(item, list):
            for index, child in enumerate(item):
                out.append((item, index))
                stack.append(child)
    return out


def _random_value(rng: random.Random) -> Any:
    return rng.choice(
        [*_SCALARS, [], {}, [1, "a"], {"a": 1}, ["x"] * 3, {"name": "x"}, "x" * 100_000]
    )


def _structural(rng: random.Random, data: Any, *, share: bool = False) -> tuple[Any, str]:
    """One structural mutation; ``share``: a swapped-in value is shared, not copied
    (YAML then writes an alias, which may make a value contain itself)."""
    slots = _slots(data, [])
    if not slots:
        return _random_value(rng), "replace the whole document"
    container, key = rng.choice(slots)
    old = container[key]
    kind = rng.choice(
        ["delete", "retype", "retype", "listify", "huge", "unknown", "empty", "deep", "deep",
         "swap", "dictify", "long"]
    )  # fmt: skip
    if kind == "delete":
        if isinstance(container, dict):
            del container[key]
        else:
            container.pop(key)
    elif kind == "retype":
        container[key] = _random_value(rng)
    elif kind == "listify":
        container[key] = [old]
    elif kind == "dictify":
        container[key] = {"value": old}
    elif kind == "huge":
        container[key] = rng.choice(_HUGE)
    elif kind == "unknown":
        target = container if isinstance(container, dict) else old
        if isinstance(target, dict):
            target["zzUnknownField"] = 1
        else:
            container[key] = {"zzUnknownField": old}
    elif kind == "empty":
        container[key] = rng.choice(["", [], {}, None])
    elif kind == "deep":
        container[key] = _DEEP
    elif kind == "swap":
        other_container, other_key = rng.choice(slots)
        other = other_container[other_key]
        container[key] = other if share else copy.deepcopy(other)
    else:
        container[key] = "y" * rng.choice([1000, 200_000])
    return data, f"{kind} at {key!r}"


def _deepen(rng: random.Random, text: str) -> str:
    depth = rng.choice([150, 3000, 50_000])
    opener, closer = rng.choice([("[", "]"), ('{"a": ', "}")])
    nested = opener * depth + "1" + closer * depth
    return text.replace(f"'{_DEEP}'", nested).replace(f'"{_DEEP}"', nested).replace(_DEEP, nested)


def _mutate_yaml(rng: random.Random, text: str) -> tuple[str, str]:
    documents = [d for d in yaml.safe_load_all(text) if d is not None]
    index = rng.randrange(len(documents))
    documents[index], what = _structural(rng, documents[index], share=True)
    dumped = yaml.safe_dump_all(documents, sort_keys=False, allow_unicode=True, width=10**6)
    return _deepen(rng, dumped), what


def _mutate_json(rng: random.Random, text: str) -> tuple[str, str]:
    data, what = _structural(rng, json.loads(text))
    return _deepen(rng, json.dumps(data, ensure_ascii=False)), what


def _mutate_jsonl(rng: random.Random, text: str) -> tuple[str, str]:
    lines = text.splitlines()
    candidates = [i for i, line in enumerate(lines) if line.strip()]
    index = rng.choice(candidates)
    data, what = _structural(rng, json.loads(lines[index]))
    lines[index] = _deepen(rng, json.dumps(data, ensure_ascii=False))
    return "\n".join(lines) + "\n", f"line {index + 1}: {what}"


# --- text mutations (on the bytes) --------------------------------------------------

_KEY_LINE = re.compile(rb"^([ \t-]*)([A-Za-z_][\w-]*):[ \t]*(\S[^\n]*)?$", re.M)
_BAD_BYTES = [b"\xff", b"\xfe\xff", b"\xc3\x28", b"\x80\x81", b"\xed\xa0\x80", b"\xf0\x28\x8c"]
_STRAY = list("{}[]:,-&*!|>\"'#%@`\t\n\\") + ["\x00", "\x1b", "\u2028", "\ufeff", "---\n", "..."]


def _duplicate_key(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    matches = list(_KEY_LINE.finditer(data))
    if not matches:
        return data + b"\nkind: Rollout\nkind: Rollout\n", "append a duplicated key"
    match = rng.choice(matches)
    indent = match.group(1).replace(b"-", b" ")
    value = rng.choice([b"999", b"other", b"[1, 2]", b"{}", b"true"])
    extra = b"\n" + indent + match.group(2) + b": " + value
    return data[: match.end()] + extra + data[match.end() :], f"duplicate key {match.group(2)!r}"


def _text(rng: random.Random, data: bytes, yaml_like: bool) -> tuple[bytes, str]:
    kinds = ["bytes", "bytes", "truncate", "stray", "bigint", "empty", "bom"]
    if yaml_like:
        kinds += ["dupkey", "dupkey", "dupkey", "bomb", "tab"]
    kind = rng.choice(kinds)
    at = rng.randrange(len(data) + 1)
    if kind == "dupkey":
        return _duplicate_key(rng, data)
    if kind == "bytes":
        return data[:at] + rng.choice(_BAD_BYTES) + data[at:], f"bad bytes at {at}"
    if kind == "truncate":
        return data[:at], f"truncate at {at}"
    if kind == "stray":
        char = rng.choice(_STRAY).encode("utf-8")
        return data[:at] + char + data[at:], f"insert {char!r} at {at}"
    if kind == "bigint":
        numbers = list(re.finditer(rb"(?<![\w.])\d+(?![\w.])", data))
        if numbers:
            number = rng.choice(numbers)
            return data[: number.start()] + b"9" * 5000 + data[number.end() :], "huge integer"
        return data + b"\n" + b"9" * 5000, "huge integer appended"
    if kind == "empty":
        return rng.choice([b"", b"\n", b"---\n", b"# nothing\n", b"null\n", b"[]"]), "empty"
    if kind == "bom":
        return b"\xef\xbb\xbf" + data, "byte-order mark"
    if kind == "tab":
        return re.sub(rb"^  ", b"\t", data, count=1, flags=re.M), "tab indentation"
    bomb = b"bomb: &a0 [1,1,1,1,1,1,1,1,1,1]\n" + b"".join(
        b"b%d: &a%d [" % (i, i) + b",".join([b"*a%d" % (i - 1)] * 10) + b"]\n" for i in range(1, 9)
    )
    return data + b"\n" + bomb, "alias bomb"


def mutate(rng: random.Random, path: Path, data: bytes) -> tuple[bytes, str]:
    """One mutation of a file's bytes (parsed when the mutation is structural)."""
    suffix = path.suffix
    yaml_like = suffix in (".yaml", ".yml")
    if rng.random() < 0.55:
        text = data.decode("utf-8")
        parse: Callable[[random.Random, str], tuple[str, str]] = (
            _mutate_yaml if yaml_like else _mutate_jsonl if suffix == ".jsonl" else _mutate_json
        )
        out, what = parse(rng, text)
        return out.encode("utf-8", errors="surrogatepass"), what
    return _text(rng, data, yaml_like)
