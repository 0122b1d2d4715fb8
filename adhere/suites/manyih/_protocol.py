"""Protocol choices of the ManyIH coding subset: checkers, prompts, extraction, perturbation.

``protocol: paper`` selects the paper's procedure (its numbers came from the public
code): the public-compatible checkers, the data's published ``prompt`` field, the
public evaluator's code extraction and the §6.4 perturbation (a small shift of each
value). The default, ``protocol: adhere``, keeps adhere's corrected checkers, its own
prompt wording, its extraction and redrawn values. Each choice can also be set alone
(``checkers``, ``prompt``, ``extract``, ``perturb``), overriding the protocol's.

Prompt templates (``templates: {system: FILE, user: FILE}``, paths relative to the
Benchmark file) replace adhere's wording; they are ``string.Template`` text
(``$name`` or ``${name}``; ``$$`` for a dollar sign) with the variables of
:data:`TEMPLATE_VARIABLES`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any, Literal

from adhere.errors import SpecError
from adhere.suites.manyih._hierarchy import (
    META_PROMPTS,
    Interface,
    Tagged,
    levels,
    render_prompt,
    tag,
)
from adhere.suites.manyih._sample import CodingSample, entry_point, tagged

__all__ = [
    "PROTOCOLS",
    "TEMPLATE_VARIABLES",
    "Protocol",
    "Templates",
    "extract_public",
    "fill_template",
    "prompts_for",
    "published_prompt",
    "read_templates",
    "template_files",
]

Checkers = Literal["corrected", "public-compatible"]
PromptSource = Literal["adhere", "published"]
Extraction = Literal["adhere", "public"]
Perturbation = Literal["redraw", "shift"]

PROTOCOLS: dict[str, dict[str, str]] = {
    "adhere": {"checkers": "corrected", "prompt": "adhere", "extract": "adhere",
               "perturb": "redraw"},
    "paper": {"checkers": "public-compatible", "prompt": "published", "extract": "public",
              "perturb": "shift"},
}  # fmt: skip
"""Each protocol's choices (the keys are Benchmark options that override them)."""

_CHOICES = {
    "checkers": ("corrected", "public-compatible"),
    "prompt": ("adhere", "published"),
    "extract": ("adhere", "public"),
    "perturb": ("redraw", "shift"),
}

TEMPLATE_VARIABLES: dict[str, dict[str, str]] = {
    "system": {
        "interface": "ordinal or scalar",
        "meta_prompt": "adhere's system prompt for the interface",
    },
    "user": {
        "task": "the task text (the data's original_prompt)",
        "instructions": "the tagged instructions, one '- [[…]]text[[/…]]' line each, "
        "in prompt order",
        "published": "the data's prompt field, its tags in the chosen interface",
        "function": "the name of the tested function",
        "interface": "ordinal or scalar",
    },
}
"""The variables each template gets."""


@dataclass(frozen=True)
class Protocol:
    """The resolved choices of one ManyIH Benchmark."""

    name: str = "adhere"
    checkers: Checkers = "corrected"
    prompt: PromptSource = "adhere"
    extract: Extraction = "adhere"
    perturb: Perturbation = "redraw"

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
                    raise SpecError(f"expected one of {list(allowed)}",
                                    field=f"spec.options.{key}")  # fmt: skip
                chosen[key] = options[key]
        return cls(name=name, **chosen)  # type: ignore[arg-type]

    def differences(self) -> dict[str, str]:
        """The choices that differ from adhere's default protocol."""
        default = PROTOCOLS["adhere"]
        return {k: v for k, v in self.as_dict().items() if default[k] != v}

    def as_dict(self) -> dict[str, str]:
        """The four choices by option name."""
        return {"checkers": self.checkers, "prompt": self.prompt, "extract": self.extract,
                "perturb": self.perturb}  # fmt: skip


_PUBLIC_TAG = re.compile(
    r"\[\[Privilege\s+\d+\]\](.*?)\[\[/Privilege\]\]|\[\[z=-?\d+\]\](.*?)\[\[/z\]\]", re.DOTALL
)


def published_prompt(published: str, items: Sequence[Tagged], interface: Interface) -> str:
    """The data's own prompt, each tag rewritten for ``items``' values in ``interface``.

    The text around the tags is kept exactly; the n-th tag is the instruction at
    position n (ordinal ranks recomputed from the values, so a perturbation shows).
    """
    shown = levels(items, interface)
    by_position = {item.position: item for item in items}
    count = iter(range(len(items) + 1))

    def retag(match: re.Match[str]) -> str:
        item = by_position.get(next(count))
        if item is None:
            raise SpecError("the published prompt has more tags than instructions", field="prompt")
        return tag(item.text, shown[item.key], interface)

    return _PUBLIC_TAG.sub(retag, published)


def fill_template(text: str, values: Mapping[str, str], *, file: str, which: str) -> str:
    """``text`` with its ``$variables`` filled (SpecError naming the file and variable)."""
    try:
        return Template(text).substitute(values)
    except KeyError as exc:
        raise SpecError(
            f"unknown template variable {exc.args[0]!r}; {which} templates get "
            f"{', '.join(sorted(TEMPLATE_VARIABLES[which]))}",
            file=file, field=f"spec.options.templates.{which}",
        ) from None  # fmt: skip
    except ValueError as exc:
        raise SpecError(f"bad template text: {exc}", file=file,
                        field=f"spec.options.templates.{which}") from None  # fmt: skip


def system_values(interface: Interface) -> dict[str, str]:
    """The system template's variables."""
    return {"interface": interface, "meta_prompt": META_PROMPTS[interface]}


_THINK_END = "</think>"
_PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)
_PLAIN_BLOCK = re.compile(r"```\n(.*?)```", re.DOTALL)


def extract_public(reply: str) -> str:
    """The code of a reply as the public evaluator takes it.

    Text before the last ``</think>`` is dropped (with an unclosed ``<think>``, the
    text after it); then the first block opened by exactly ```` ```python ```` and a
    newline, else the first opened by ```` ``` ```` and a newline, else the whole reply
    — stripped of surrounding whitespace, so the first line loses its indentation.
    """
    if _THINK_END in reply:
        reply = reply.rsplit(_THINK_END, 1)[1]
    elif "<think>" in reply:
        reply = reply.split("<think>", 1)[0]
    for pattern in (_PYTHON_BLOCK, _PLAIN_BLOCK):
        found = pattern.search(reply)
        if found:
            return found.group(1).strip()
    return reply.strip()


@dataclass(frozen=True)
class Templates:
    """Prompt templates read from files: ``(text, file)`` per kind, or ``None``."""

    system: tuple[str, str] | None = None
    user: tuple[str, str] | None = None


def prompts_for(
    sample: CodingSample,
    interface: Interface,
    source: PromptSource,
    templates: Templates | None = None,
) -> tuple[str, str]:
    """The system prompt and user turn of a coding sample under the chosen wording."""
    templates = templates or Templates()
    items = tagged(sample)
    published = published_prompt(sample.prompt, items, interface)
    rendered = render_prompt(sample.original_prompt, items, interface)
    if templates.user is not None:
        shown = levels(items, interface)
        bullets = "\n".join(
            f"- {tag(i.text, shown[i.key], interface)}"
            for i in sorted(items, key=lambda i: i.position)
        )
        values = {"task": sample.original_prompt.strip(), "instructions": bullets,
                  "published": published, "function": entry_point(sample),
                  "interface": interface}  # fmt: skip
        user = fill_template(templates.user[0], values, file=templates.user[1], which="user")
    else:
        user = published if source == "published" else rendered
    system = META_PROMPTS[interface]
    if templates.system is not None:
        text, file = templates.system
        system = fill_template(text, system_values(interface), file=file, which="system")
    return system, user


def template_files(raw: Any) -> dict[str, str]:
    """The ``templates`` option checked: ``{system: FILE, user: FILE}`` (either or both)."""
    if raw is None:
        return {}
    if (
        not isinstance(raw, dict)
        or not raw
        or set(raw) - {"system", "user"}
        or not all(isinstance(v, str) and v for v in raw.values())
    ):
        raise SpecError("expected {system: FILE, user: FILE} (either or both)",
                        field="spec.options.templates")  # fmt: skip
    return dict(raw)


def read_templates(files: Mapping[str, str], base_dir: Path, file: str) -> Templates:
    """The template files' text (paths relative to ``base_dir``)."""
    texts: dict[str, tuple[str, str]] = {}
    for which, name in files.items():
        path = Path(name) if Path(name).is_absolute() else base_dir / name
        try:
            texts[which] = (path.read_text(encoding="utf-8"), str(path))
        except (OSError, UnicodeDecodeError) as exc:
            raise SpecError(f"cannot read the {which} template {path}: {exc}", file=file,
                            field=f"spec.options.templates.{which}") from None  # fmt: skip
    return Templates(**texts)
