"""The scripted policy server: a TEST DOUBLE that stands in for model endpoints offline.

It is a real HTTP server speaking OpenAI Chat Completions (``/v1/chat/completions``),
OpenAI Responses (``/v1/responses``), Anthropic Messages (``/v1/messages``) and Gemini
(``/v1beta/models/{model}:generateContent`` and ``:streamGenerateContent``), streaming
or not, but its replies come from deterministic policies chosen by the request's
``model`` string, not from a model: ``oracle`` (perfect answers from the suite's answer
key), ``noisy:rate=R,seed=S`` (seeded, order-independent wrong answers), ``replay``
(recorded replies), ``script:NAME`` (scripted turns from YAML) and
``agent:BEHAVIOUR[,FLAG…]`` (drives a real agent CLI through a tool loop with the tools
it offers, optionally with deliberate violations). Every policy also takes the fault
options ``fail_first``, ``fail_status``, ``retry_after``, ``delay``, ``rps``,
``hold_after`` and ``release``. See ``docs/policy-server.md``.

Everything only the test double needs lives here: the policies, the answer key built
from a run's instances, replay of recorded rollouts, ``adhere serve-policy``, and the
model provider ``scripted`` (an endpoint ``baseUrl: scripted`` names it; the runner
and the operator find it through the provider registry of :mod:`adhere.models`, never
by importing this package). The API shapes it speaks are :mod:`adhere.wire`'s.
"""

from adhere.testing._answer_key import InstanceAnswerKey
from adhere.testing._app import PolicyServerConfig, create_app
from adhere.testing._builtin import DictReplaySource, default_registry
from adhere.testing._model_string import (
    Faults,
    ModelString,
    ModelStringError,
    PolicyNotFound,
    PolicyOptions,
    parse_model_string,
)
from adhere.testing._registry import PolicyContext, PolicyFactory, PolicyRegistry
from adhere.testing._replay import RecordedRun, RecordedRuns
from adhere.testing._scripts import ScriptedCall, ScriptStep, load_scripts, parse_script
from adhere.testing._serve import serve
from adhere.testing._server import PolicyServer, ThreadedPolicyServer
from adhere.testing._types import AnswerKey, Policy, ReplaySource, WrongFn, unit_hash
from adhere.wire import Conversation, Reply

__all__ = [
    "AnswerKey",
    "Conversation",
    "DictReplaySource",
    "Faults",
    "InstanceAnswerKey",
    "ModelString",
    "ModelStringError",
    "Policy",
    "PolicyContext",
    "PolicyFactory",
    "PolicyNotFound",
    "PolicyOptions",
    "PolicyRegistry",
    "PolicyServer",
    "PolicyServerConfig",
    "RecordedRun",
    "RecordedRuns",
    "ReplaySource",
    "Reply",
    "ScriptStep",
    "ScriptedCall",
    "ThreadedPolicyServer",
    "WrongFn",
    "create_app",
    "default_registry",
    "load_scripts",
    "parse_model_string",
    "parse_script",
    "serve",
    "unit_hash",
]
