import pytest

from adhere.errors import SpecError
from adhere.testing import (
    Faults,
    ModelStringError,
    PolicyContext,
    PolicyNotFound,
    PolicyOptions,
    PolicyRegistry,
    default_registry,
    parse_model_string,
)
from adhere.testing._scripts import ScriptStep
from adhere.wire import Reply


def test_bare_name():
    parsed = parse_model_string("oracle")
    assert parsed.policy == "oracle"
    assert dict(parsed.options) == {}
    assert parsed.faults == Faults()


def test_options_and_generic_faults_are_split():
    parsed = parse_model_string("noisy:rate=0.25,seed=7,fail_first=2,fail_status=429,delay=0.5")
    assert parsed.text == "noisy:rate=0.25,seed=7,fail_first=2,fail_status=429,delay=0.5"
    assert dict(parsed.options) == {"rate": "0.25", "seed": "7"}
    assert parsed.faults == Faults(fail_first=2, fail_status=429, retry_after=0.0, delay=0.5)


def test_hold_after_and_release_are_generic_faults():
    parsed = parse_model_string("oracle:hold_after=4,release=/tmp/x/go")
    assert dict(parsed.options) == {}
    assert parsed.faults == Faults(hold_after=4, release="/tmp/x/go")
    assert parse_model_string("oracle:hold_after=0").faults.hold_after == 0
    assert parse_model_string("oracle").faults.hold_after is None  # no hold by default


def test_bare_first_item_is_the_name_option():
    parsed = parse_model_string("script:hello,retry_after=1.5")
    assert dict(parsed.options) == {"name": "hello"}
    assert parsed.faults.retry_after == 1.5


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("9lives", "policy name"),
        ("oracle:", "nothing after"),
        ("noisy:rate=0.2,Seed", "must be key=value or a flag"),
        ("agent:edit,emoji,emoji", "flag 'emoji' is given twice"),
        ("noisy:Rate=0.2", "option name"),
        ("noisy:rate=", "empty value"),
        ("noisy:rate=0.1,rate=0.2", "given twice"),
        ("oracle:fail_first=-1", "at least 0"),
        ("oracle:fail_first=two", "an integer"),
        ("oracle:fail_status=200", "at least 400"),
        ("oracle:delay=nan", "finite"),
        ("oracle:retry_after=soon", "a number"),
        ("oracle:hold_after=-1", "at least 0"),
        ("oracle:hold_after=x", "an integer"),
    ],
)
def test_malformed_strings_are_rejected(text, fragment):
    with pytest.raises(ModelStringError, match=fragment) as caught:
        parse_model_string(text)
    assert isinstance(caught.value, SpecError)
    assert caught.value.field == "model"


class _Key:
    def answer(self, conversation, wrong):
        raise AssertionError("not called")


CONTEXT = PolicyContext(answer_key=_Key(), scripts={"hello": [ScriptStep(text="hi")]})


def _create(text, context=CONTEXT):
    return default_registry().create(parse_model_string(text), context)


def test_builtins_build():
    assert _create("oracle").name == "oracle"
    assert _create("noisy:rate=0.3,seed=2,garble=0.1").name == "noisy"
    assert _create("script:hello").name == "script"


@pytest.mark.parametrize(
    ("text", "error", "fragment"),
    [
        ("gpt-4o", PolicyNotFound, "unknown policy 'gpt-4o'"),
        ("script:nope", PolicyNotFound, "no script named 'nope'"),
        ("replay", PolicyNotFound, "without a replay source"),
        ("oracle:rate=0.1", ModelStringError, "unknown option 'rate' for policy 'oracle'"),
        ("noisy:seed=1", ModelStringError, "needs option 'rate'"),
        ("noisy:rate=1.5", ModelStringError, "at most 1"),
        ("noisy:rate=0.1,sede=3", ModelStringError, "unknown option 'sede'"),
        ("script", ModelStringError, "needs option 'name'"),
        ("noisy:rate=0.2,seed", ModelStringError, "unknown flag 'seed' for policy 'noisy'"),
    ],
)
def test_selection_errors(text, error, fragment):
    with pytest.raises(error, match=fragment):
        _create(text)


def test_oracle_without_answer_key_is_not_found():
    with pytest.raises(PolicyNotFound, match="without an answer key"):
        _create("oracle", PolicyContext())


def test_registry_takes_new_policies():
    class Echo:
        name = "echo"

        def __init__(self, upper):
            self.upper = upper

        def respond(self, conversation):
            return Reply(text="echo")

    def factory(options: PolicyOptions, context: PolicyContext):
        return Echo(options.text("upper", "no") == "yes")

    registry = default_registry()
    registry.register("echo", factory)
    policy = registry.create(parse_model_string("echo:upper=yes"), CONTEXT)
    assert isinstance(policy, Echo) and policy.upper
    assert "echo" in registry.names()
    with pytest.raises(ValueError, match="already registered"):
        registry.register("echo", factory)
    with pytest.raises(ValueError, match="invalid policy name"):
        PolicyRegistry().register("no spaces", factory)
