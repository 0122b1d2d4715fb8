"""Protocol choices of GuideBench: the prompt frame and how answers are parsed. Pure.

``protocol: paper`` selects the paper's procedure as its public code defines it
(Dlxxx/GuideBench, ``generate_resp.py`` and ``evaluate.py``): one user message in the
paper's frame (tagged ``<Instruction>``, ``<Guidelines>``, ``<Context>``,
``<Options>``; a JSON object with ``CandidateAnswer``/``CandidateAnalysis`` or
``OptimalOption``/``AnswerAnalysis``), no system prompt, and the public evaluator's
parsing (the whole reply as JSON after stripping a ```` ```json ```` fence, exact
comparison with the published reference, placeholder labels for missing answers in
precision and recall). The default, ``protocol: adhere``, keeps adhere's frame and its
normalizing parser. Each choice can be set alone (``prompt``, ``parse``), overriding
the protocol's; ``parse: llm`` has the rollout's judge panel extract the answer as the
paper's Appendix B.9 does, then compares the way the public evaluator does.

Prompt templates (``templates: {KEY: FILE}``, paths relative to the Benchmark file)
replace the wording; they are ``string.Template`` text (``$name``/``${name}``, ``$$``
for a dollar sign) with the variables of :data:`TEMPLATE_VARIABLES`. The ``parser``
template replaces the question ``parse: llm`` asks the judge panel; it gets
:data:`PARSER_VARIABLES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any, Literal

from adhere.errors import SpecError

__all__ = [
    "PROTOCOLS",
    "PARSER_VARIABLES",
    "TEMPLATE_KEYS",
    "TEMPLATE_VARIABLES",
    "Protocol",
    "Templates",
    "read_templates",
]

PromptFrame = Literal["adhere", "paper"]
Parsing = Literal["adhere", "public", "llm"]

PROTOCOLS: dict[str, dict[str, str]] = {
    "adhere": {"prompt": "adhere", "parse": "adhere"},
    "paper": {"prompt": "paper", "parse": "public"},
}
"""Each protocol's choices (the keys are Benchmark options that override them)."""

_CHOICES: dict[str, tuple[str, ...]] = {
    "prompt": ("adhere", "paper"),
    "parse": ("adhere", "public", "llm"),
}

TEMPLATE_VARIABLES: dict[str, str] = {
    "instruction": "the task's Instruction",
    "guidelines": "the rules as the paper's code shows them: Python's text of the list of "
    "{'type', 'rule_id', 'rule_text'} objects (empty without guidelines)",
    "rules": "the rules numbered one a line, '1. （type）text' (empty without guidelines)",
    "context": "the task's Context",
    "options": "the MultipleOptions text as published (empty for question-answer tasks)",
    "category": "the category key (price, relevance, math, chat, summary, hallucination)",
    "answer_field": "the JSON field of the answer: CandidateAnswer or OptimalOption",
    "analysis_field": "the JSON field of the analysis: CandidateAnalysis or AnswerAnalysis",
    "shots": "the worked examples of the 2-shot ablation (empty otherwise)",
}
"""The variables every user template gets (the system template gets the same)."""

PARSER_VARIABLES: dict[str, str] = {
    "reply": "the model's final reply, as it wrote it",
    "answer_field": "the JSON field of the answer: CandidateAnswer or OptimalOption",
    "analysis_field": "the JSON field of the analysis: CandidateAnalysis or AnswerAnalysis",
    "answer_format": "what the answer may be, in adhere's wording (e.g. the integer 0 or 1)",
    "category": "the category key (price, relevance, math, chat, summary, hallucination)",
}
"""The variables the ``parser`` template (the question of ``parse: llm``) gets."""

TEMPLATE_KEYS = ("system", "user", "binary", "relevance", "numeric", "option", "parser")
"""``system``; ``user`` for every category, or one per answer kind (it wins over ``user``):
``binary`` (price), ``relevance``, ``numeric`` (math), ``option`` (chat, summary,
hallucination); ``parser``: the question ``parse: llm`` asks the judge panel."""


@dataclass(frozen=True)
class Protocol:
    """The resolved choices of one GuideBench Benchmark."""

    name: str = "adhere"
    prompt: PromptFrame = "adhere"
    parse: Parsing = "adhere"

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Protocol:
        """The protocol named by ``protocol`` with any single choice overridden."""
        name = options.get("protocol", "adhere")
        if name not in PROTOCOLS:
            raise SpecError(f"expected one of {sorted(PROTOCOLS)}", field="spec.options.protocol")
        chosen = dict(PROTOCOLS[name])
        for key, allowed in _CHOICES.items():
            if key in options:
                if options[key] not in allowed:
                    raise SpecError(f"expected one of {list(allowed)}", field=f"spec.options.{key}")
                chosen[key] = options[key]
        return cls(name=name, **chosen)  # type: ignore[arg-type]

    def as_dict(self) -> dict[str, str]:
        """The choices by option name."""
        return {"prompt": self.prompt, "parse": self.parse}

    def differences(self) -> dict[str, str]:
        """The choices that differ from adhere's default protocol."""
        default = PROTOCOLS["adhere"]
        return {k: v for k, v in self.as_dict().items() if default[k] != v}


@dataclass(frozen=True)
class Templates:
    """Template texts read from files: key → ``(text, file)``."""

    texts: Mapping[str, tuple[str, str]] = field(default_factory=dict)

    def user_for(self, kind: str) -> tuple[str, str] | None:
        """The user template of an answer kind (its own, else ``user``), or ``None``."""
        return self.texts.get(kind) or self.texts.get("user")

    def system(self) -> tuple[str, str] | None:
        """The system template, or ``None``."""
        return self.texts.get("system")

    def parser(self) -> tuple[str, str] | None:
        """The ``parse: llm`` question's template, or ``None``."""
        return self.texts.get("parser")


def fill(template: tuple[str, str], values: Mapping[str, str], key: str) -> str:
    """A template with its ``$variables`` filled (SpecError naming the file and variable)."""
    text, file = template
    try:
        return Template(text).substitute(values)
    except KeyError as exc:
        which = "the parser template gets" if key == "parser" else "templates get"
        raise SpecError(
            f"unknown template variable {exc.args[0]!r}; {which} {', '.join(sorted(values))}",
            file=file,
            field=f"spec.options.templates.{key}",
        ) from None
    except ValueError as exc:
        raise SpecError(
            f"bad template text: {exc} (write $$ for a dollar sign)",
            file=file,
            field=f"spec.options.templates.{key}",
        ) from None


def check_template_files(raw: Any) -> dict[str, str]:
    """The ``templates`` option checked: a mapping of :data:`TEMPLATE_KEYS` to file paths."""
    if raw is None:
        return {}
    if (
        not isinstance(raw, dict)
        or not raw
        or set(raw) - set(TEMPLATE_KEYS)
        or not all(isinstance(v, str) and v for v in raw.values())
    ):
        raise SpecError(
            f"expected a mapping of {', '.join(TEMPLATE_KEYS)} (any of them) to files",
            field="spec.options.templates",
        )
    return dict(raw)


def read_templates(files: Mapping[str, str], base_dir: Path, file: str = "") -> Templates:
    """The template files' text (paths relative to ``base_dir``), each checked now."""
    texts: dict[str, tuple[str, str]] = {}
    for key, name in files.items():
        path = Path(name) if Path(name).is_absolute() else base_dir / name
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise SpecError(
                f"cannot read the {key} template {path}: {exc}",
                file=file,
                field=f"spec.options.templates.{key}",
            ) from None
        variables = PARSER_VARIABLES if key == "parser" else TEMPLATE_VARIABLES
        fill((text, str(path)), dict.fromkeys(variables, ""), key)  # fail early
        texts[key] = (text, str(path))
    return Templates(texts)
