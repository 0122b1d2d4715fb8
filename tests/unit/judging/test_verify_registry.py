import importlib
import sys
import textwrap

import pytest
from pydantic import BaseModel

from adhere.core import Check, Verdict, VerifierRef
from adhere.errors import SpecError
from adhere.judging import _verify
from adhere.judging._verify import (
    Outcome,
    VerifierParams,
    VerifyContext,
    get_verifier,
    verifier,
    verifier_names,
)
from adhere.judging._verify_run import needs_judge, run_check, run_checks, validate_checks
from tests.unit.judging.test_verif_support import check, ctx, instance, say, traj

BUILTIN = {
    "code_rules",
    "command_executed",
    "file_rules",
    "length_limit",
    "memory_updated",
    "no_emoji",
    "no_invented_results",
    "read_before_edit",
    "reply_language",
    "reply_matches",
    "skill_invoked",
    "tests_run",
    "tool_args_valid",
    "tool_order",
    "uses_emoji",
}


@pytest.fixture
def registry():
    """The live registry; verifiers the test registers (``test_only_*``) are removed after."""
    yield _verify._REGISTRY
    for name in [n for n in _verify._REGISTRY.registered() if n.startswith("test_only_")]:
        _verify._REGISTRY.unregister(name)


def test_builtin_names_are_listed():
    assert BUILTIN <= set(verifier_names())


def test_every_builtin_module_registers_exactly_its_names(registry):
    for name, module in _verify._BUILTIN.items():
        importlib.import_module(module)
        assert name in registry, f"{module} does not register {name}"
    assert set(_verify._BUILTIN) == BUILTIN


def test_builtin_verifiers_have_documented_parameters():
    for name in BUILTIN:
        registered = get_verifier(name)
        assert registered.summary, name
        if registered.params is not None:
            for field in registered.params.model_fields:
                assert field in (registered.params.__doc__ or ""), f"{name}.{field} undocumented"


def test_unknown_verifier_lists_known_names():
    with pytest.raises(SpecError) as err:
        get_verifier("no_such_thing")
    assert "no_emoji" in str(err.value) and "no_such_thing" in str(err.value)
    assert err.value.field == "verifier.name"


def test_bad_parameter_names_the_verifier_and_parameter():
    with pytest.raises(SpecError) as err:
        get_verifier("no_emoji").validate({"scope": "sometimes"})
    assert "no_emoji" in str(err.value) and "scope" in str(err.value)
    assert err.value.field == "verifier.params.scope"


def test_unknown_parameter_is_rejected_with_the_known_ones():
    with pytest.raises(SpecError) as err:
        get_verifier("length_limit").validate({"max_wrds": 3})
    message = str(err.value)
    assert "max_wrds" in message and "max_words" in message


def test_cross_field_rules_are_spec_errors():
    with pytest.raises(SpecError, match="at least one"):
        get_verifier("length_limit").validate({})
    with pytest.raises(SpecError, match="exactly one"):
        get_verifier("reply_language").validate({"language": "en", "same_as_user": True})
    with pytest.raises(SpecError, match="regular expression"):
        get_verifier("command_executed").validate({"pattern": "git ("})


def test_run_check_pass_and_fail_carry_name_params_and_evidence():
    context = ctx(traj(say("Fine."), say("Done 🎉")))
    verdict = run_check(check("no_emoji"), context)
    assert isinstance(verdict, Verdict)
    assert verdict.result == "fail"
    assert verdict.decided_by == "verifier:no_emoji"
    assert verdict.evidence == 1
    assert verdict.details["params"] == {"scope": "all", "include_reasoning": False, "files": False}


def test_run_check_validates_before_running(registry):
    ran = []

    class P(VerifierParams):
        limit: int

    @verifier("test_only_counting", params=P)
    def counting(ctx: VerifyContext, *, limit: int) -> Outcome:
        ran.append(limit)
        return Outcome("pass", "ok")

    with pytest.raises(SpecError, match="test_only_counting"):
        run_check(check("test_only_counting", limit="many"), ctx(traj()))
    assert ran == []
    assert run_check(check("test_only_counting", limit="3"), ctx(traj())).result == "pass"
    assert ran == [3]


def test_a_raising_verifier_gives_an_error_verdict_never_a_pass(registry):
    @verifier("test_only_broken")
    def broken(ctx: VerifyContext) -> Outcome:
        raise KeyError("missing thing")

    verdict = run_check(check("test_only_broken"), ctx(traj()))
    assert verdict.result == "error"
    assert "KeyError" in verdict.reasoning and "missing thing" in verdict.reasoning


def test_a_verifier_returning_garbage_gives_an_error_verdict(registry):
    @verifier("test_only_garbage")
    def garbage(ctx: VerifyContext) -> Outcome:
        return "pass"  # type: ignore[return-value]

    assert run_check(check("test_only_garbage"), ctx(traj())).result == "error"


def test_outcome_rejects_unknown_results():
    with pytest.raises(ValueError):
        Outcome("error", "no")  # type: ignore[arg-type]


def test_verifier_without_model_accepts_its_own_keywords(registry):
    @verifier("test_only_plain")
    def plain(ctx: VerifyContext, *, word: str = "x") -> Outcome:
        return Outcome("pass", word)

    assert run_check(check("test_only_plain", word="hi"), ctx(traj())).reasoning == "hi"
    with pytest.raises(SpecError, match="has no parameter 'other'"):
        run_check(check("test_only_plain", other=1), ctx(traj()))


def test_needs_judge_and_run_checks_skip_unbound_checks():
    unbound = Check(id="j", source="SP", description="judge me")
    bound = check("no_emoji")
    assert needs_judge(unbound) and not needs_judge(bound)
    verdicts = run_checks([unbound, bound], ctx(traj(say("hello"))))
    assert [v.check_id for v in verdicts] == [bound.id]
    with pytest.raises(SpecError, match="judge panel"):
        run_check(unbound, ctx(traj()))


def test_validate_checks_names_the_check():
    bad = Check(
        id="SP_emoji",
        source="SP",
        description="d",
        verifier=VerifierRef(name="no_emoji", params={"scpoe": "all"}),
    )
    with pytest.raises(SpecError) as err:
        validate_checks([check("no_emoji"), bad], file="instances.jsonl")
    assert err.value.field == "checks.SP_emoji.verifier.params.scpoe"
    assert "instances.jsonl" in str(err.value)


def test_context_build_overlays_changes_and_removes_deletions():
    inst = instance(files={"a.py": "old", "b.py": "keep", "c.py": "gone"})
    trajectory = traj(files={"a.py": "new", "d.py": "added"}, meta={"deleted_files": ["c.py"]})
    context = VerifyContext.build(inst, trajectory)
    assert dict(context.final_files) == {"a.py": "new", "b.py": "keep", "d.py": "added"}
    assert context.initial_files["a.py"] == "old"


def test_entry_point_verifiers_are_found_lazily(tmp_path, monkeypatch, registry):
    (tmp_path / "adhere_test_plugin.py").write_text(
        textwrap.dedent(
            """
            from adhere.judging._verify import Outcome, VerifierParams, verifier

            class Params(VerifierParams):
                word: str = "hello"

            @verifier("test_only_plugin", params=Params)
            def plugin(ctx, *, word):
                return Outcome("pass", f"plugin says {word}")

            def bare(ctx):
                return Outcome("n/a", "bare plugin")
            """
        )
    )
    dist = tmp_path / "adhere_test_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: adhere-test-plugin\nVersion: 1.0\n"
    )
    (dist / "entry_points.txt").write_text(
        "[adhere.verifiers]\n"
        "test_only_plugin = adhere_test_plugin:plugin\n"
        "test_only_bare = adhere_test_plugin:bare\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert {"test_only_plugin", "test_only_bare"} <= set(verifier_names())
        assert "adhere_test_plugin" not in sys.modules  # listing names imports nothing
        verdict = run_check(check("test_only_plugin", word="hi"), ctx(traj()))
        assert (verdict.result, verdict.reasoning) == ("pass", "plugin says hi")
        with pytest.raises(SpecError, match="word"):
            get_verifier("test_only_plugin").validate({"word": 3})
        assert run_check(check("test_only_bare"), ctx(traj())).result == "n/a"
    finally:
        sys.modules.pop("adhere_test_plugin", None)


def test_params_model_must_be_a_pydantic_model_type():
    registered = get_verifier("no_emoji")
    assert registered.params is not None and issubclass(registered.params, BaseModel)
    assert registered(ctx(traj(say("hi")))).result == "pass"


def test_unknown_verifier_on_a_check_names_the_check_once():
    bad = Check(id="X1", source="SP", description="d", verifier=VerifierRef(name="nope"))
    with pytest.raises(SpecError) as err:
        validate_checks([bad])
    assert err.value.field == "checks.X1.verifier.name"
    assert str(err.value).count("verifier.name") == 1 and "'nope'" in str(err.value)
