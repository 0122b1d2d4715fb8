"""The result tables' columns are the documented ones; the stored instances' names."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from adhere.artifacts import RolloutStore, decode_instances, encode_instances
from adhere.core import Check, CheckKind, Instance, Source, VerifierRef
from adhere.errors import StoreError
from adhere.results import DTYPES, TABLES, frame
from adhere.store import FileStore
from adhere.wire import cached_input_tokens_of
from tests.unit.results.docs_tables import documented_columns


def test_the_documented_columns_are_the_tables_columns() -> None:
    documented = documented_columns()
    assert list(documented) == list(TABLES)
    for name, columns in TABLES.items():
        assert documented[name] == [(c.name, c.type, c.nullable) for c in columns], name


@pytest.mark.parametrize("name", list(TABLES))
def test_an_empty_table_has_the_documented_columns_and_dtypes(name: str) -> None:
    df = frame(name, [])  # type: ignore[arg-type]
    documented = documented_columns()[name]
    assert list(df.columns) == [column for column, _, _ in documented]
    for column, kind, _ in documented:
        assert df[column].dtype == pd.api.types.pandas_dtype(DTYPES[kind]), column  # type: ignore[index]


INSTANCE = Instance(
    id="i-1",
    suite="octobench",
    system_prompt="Be brief.",
    turns=["one", "two"],
    checks=[
        Check(
            id="SP_brief",
            source=Source.SYSTEM_PROMPT,
            kind=CheckKind.TESTING,
            description="Brief.",
            verifier=VerifierRef(name="no_emoji"),
            condition="If it answers",
        )
    ],
    metadata={"category": "SP"},
)


def test_stored_instances_use_the_documented_names_and_read_back() -> None:
    (line,) = encode_instances([INSTANCE]).decode().splitlines()
    data = json.loads(line)
    assert set(data) == {
        "instance_id",
        "suite",
        "system_prompt",
        "user_query",
        "workspace",
        "metadata",
        "scaffold",
        "checks",
    }
    assert set(data["checks"][0]) == {
        "check_id",
        "source",
        "check_type",
        "description",
        "verifier",
        "condition",
    }
    assert (data["instance_id"], data["user_query"]) == ("i-1", ["one", "two"])
    assert (data["checks"][0]["check_id"], data["checks"][0]["check_type"]) == (
        "SP_brief",
        "testing",
    )
    assert decode_instances(line.encode(), where="x") == [INSTANCE]


def test_stores_written_under_the_old_names_still_read(tmp_path) -> None:
    old = INSTANCE.model_dump_json()  # what instances.jsonl held before: the core names
    assert '"turns"' in old and '"kind"' in old
    store = FileStore(tmp_path)
    store.write_bytes("r/instances.jsonl", (old + "\n\n").encode())
    assert RolloutStore(store, "r").read_instances() == [INSTANCE]
    RolloutStore(store, "s").write_instances([INSTANCE])
    assert RolloutStore(store, "s").read_instances() == [INSTANCE]
    assert '"instance_id"' in (tmp_path / "s" / "instances.jsonl").read_text()


def test_a_bad_stored_instance_names_line_and_field() -> None:
    data = json.loads(encode_instances([INSTANCE]))
    data["checks"][0]["check_type"] = "vibes"
    with pytest.raises(StoreError, match=r"runs/r/instances.jsonl:1: checks.0.check_type"):
        decode_instances(json.dumps(data).encode(), where="runs/r/instances.jsonl")
    data["checks"][0]["check_type"] = "testing"
    data["id"] = "again"
    with pytest.raises(StoreError, match=r"both 'id' and 'instance_id'"):
        decode_instances(json.dumps(data).encode(), where="x")


@pytest.mark.parametrize(
    ("api", "response", "cached"),
    [
        ("anthropic", {"usage": {"input_tokens": 9, "cache_read_input_tokens": 4}}, 4),
        ("openai-chat", {"usage": {"prompt_tokens_details": {"cached_tokens": 3}}}, 3),
        ("openai-responses", {"usage": {"input_tokens_details": {"cached_tokens": 2}}}, 2),
        ("gemini", {"usageMetadata": {"cachedContentTokenCount": 5}}, 5),
        ("openai-chat", {"usage": {"prompt_tokens": 7}}, None),
        ("anthropic", {"usage": {"cache_read_input_tokens": True}}, None),
        ("gemini", None, None),
    ],
)
def test_cached_input_tokens_per_api_shape(api: str, response: object, cached: int | None) -> None:
    assert cached_input_tokens_of(api, response) == cached
