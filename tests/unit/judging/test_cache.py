import pytest

from adhere.core._chat import ChatMessage
from adhere.core._types import Check, CheckKind, Source, SourceSpan, Trajectory, Verdict
from adhere.judging._cache import MemoryVerdictCache, cache_key, trajectory_digest

CHECK = Check(id="c1", source=Source.AGENTS_MD, description="Runs the tests.")
TRAJ = Trajectory(
    system="sys",
    messages=[ChatMessage(role="user", content="hi"), ChatMessage(role="assistant", content="ok")],
    files={"a.py": "x = 1\n"},
    meta={"trial_id": "t1", "duration": 3.2},
)


def test_trajectory_digest_covers_what_the_judge_sees_only():
    digest = trajectory_digest(TRAJ)
    assert len(digest) == 64
    assert trajectory_digest(TRAJ.model_copy(update={"meta": {"trial_id": "t2"}})) == digest
    for change in (
        {"system": "other"},
        {"files": {"a.py": "x = 2\n"}},
        {"messages": [ChatMessage(role="user", content="hi")]},
        {"sources": [SourceSpan(source=Source.SYSTEM_PROMPT, message_index=-1, start=0, end=1)]},
        {"meta": {"deleted_files": ["b.py"]}},
        {"subagents": [Trajectory(system="sub")]},
    ):
        assert trajectory_digest(TRAJ.model_copy(update=change)) != digest, change


@pytest.mark.parametrize(
    "change",
    [
        {"id": "c2"},
        {"description": "Runs all the tests."},
        {"kind": CheckKind.TESTING},
        {"source": Source.SYSTEM_PROMPT},
        {"condition": "it edits code"},
    ],
)
def test_cache_key_changes_with_every_check_field(change):
    digest = trajectory_digest(TRAJ)
    key = cache_key(CHECK, digest, "judge-model", "v1")
    assert key == cache_key(CHECK.model_copy(), digest, "judge-model", "v1")
    assert cache_key(CHECK.model_copy(update=change), digest, "judge-model", "v1") != key


def test_cache_key_changes_with_trajectory_model_and_prompt_version():
    digest = trajectory_digest(TRAJ)
    key = cache_key(CHECK, digest, "m", "v1")
    assert cache_key(CHECK, "0" * 64, "m", "v1") != key
    assert cache_key(CHECK, digest, "m2", "v1") != key
    assert cache_key(CHECK, digest, "m", "v2") != key


def test_the_same_model_name_at_another_endpoint_is_another_judge():
    """A cached verdict of 'gpt-x' served by one endpoint is not reused for 'gpt-x' at
    another (a local server, another provider): the scoring config changed."""
    from adhere.judging import served_at
    from adhere.spec import Endpoint

    digest = trajectory_digest(TRAJ)
    hosted = Endpoint(api="openai", base_url="https://api.example/v1/", model="gpt-x")
    local = hosted.model_copy(update={"base_url": "http://127.0.0.1:8080/v1"})
    assert served_at(hosted) == "openai https://api.example/v1"
    at_hosted = cache_key(CHECK, digest, "gpt-x", "v1", served_at(hosted))
    assert at_hosted == cache_key(CHECK, digest, "gpt-x", "v1", served_at(hosted))
    assert at_hosted != cache_key(CHECK, digest, "gpt-x", "v1", served_at(local))
    assert at_hosted != cache_key(CHECK, digest, "gpt-x", "v1")


def test_memory_cache_counts_hits_and_misses():
    cache = MemoryVerdictCache()
    verdict = Verdict(check_id="c1", result="pass", decided_by="judge:a")
    assert cache.get("k") is None
    cache.put("k", verdict)
    assert cache.get("k") == verdict
    assert (cache.hits, cache.misses, len(cache)) == (1, 1, 1)
