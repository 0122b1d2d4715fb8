"""Helpers of the scaffold end-to-end tests: a recording policy registry and trial contexts."""

from dataclasses import dataclass, field

from adhere.core import Check, Instance, Source
from adhere.scaffolds import ProxyEndpoint, TrialContext
from adhere.testing import PolicyServer, default_registry
from adhere.wire import Conversation, Reply

NOTES = "secret contents 42\nsecond line\n"


@dataclass
class Recorder:
    """Conversations the server answered, per policy name (tests read them afterwards)."""

    seen: list[Conversation] = field(default_factory=list)

    def wrap(self, factory):
        def make(options, context):
            policy = factory(options, context)
            recorder = self

            class Recording:
                name = policy.name

                def respond(self, conversation: Conversation) -> Reply:
                    recorder.seen.append(conversation)
                    return policy.respond(conversation)

            return Recording()

        return make


def recording_registry(recorder: Recorder):
    """The built-in policies, each wrapped so the conversations it answers are kept."""
    base = default_registry()
    registry = default_registry()
    for name in base.names():
        registry.register(name, recorder.wrap(base.factory(name)), replace=True)
    return registry


@dataclass
class Harness:
    """A running policy server plus what a test needs to build trial contexts."""

    server: PolicyServer
    recorder: Recorder

    @property
    def url(self) -> str:
        return self.server.url

    def requests_for(self, trial: str) -> int:
        return self.server.stats["by_trial"].get(trial, 0)


def make_context(
    tmp_path,
    *,
    url: str,
    trial: str,
    model: str,
    api: str,
    turns: list[str],
    system_prompt: str = "",
    cache_dir,
    timeout: float = 120.0,
    files: dict[str, str] | None = None,
) -> TrialContext:
    """A trial context with its own workspace copy (``notes.txt`` plus ``files``)."""
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "notes.txt").write_text(NOTES, encoding="utf-8")
    for relative, text in (files or {}).items():
        path = workdir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    instance = Instance(
        id=f"{trial}-instance",
        suite="e2e",
        system_prompt=system_prompt,
        turns=turns,
        checks=[Check(id="c1", source=Source.USER_QUERY, description="answers")],
    )
    return TrialContext(
        trial_id=trial,
        instance=instance,
        workdir=workdir,
        home=tmp_path / "home",
        endpoint=ProxyEndpoint(base_url=f"{url}/t/{trial}", model=model, api=api),
        timeout_seconds=timeout,
        cache_dir=cache_dir,
    )
