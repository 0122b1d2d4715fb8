"""PACIFIC's Benchmark options: the protocol, its three choices and prompt templates.

``protocol: paper`` selects the paper's procedure where the paper defines it: its
chain selection (§3.2, §3.3.2), the layout of its prompts (Appendix A.2) and its
parsing pattern taken literally (A.2.3). The default, ``protocol: adhere``, keeps
adhere's. Each choice can also be set alone (``selection``, ``prompt``, ``parse``)
and overrides the protocol's. ``templates: {system|prompt|chat_first|chat_next:
FILE}`` replaces single templates with a file's text (paths relative to the
Benchmark file). docs/pacific.md, "Paper protocol vs adhere default", lists every
difference.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any, Literal

from adhere.errors import SpecError
from adhere.suites.pacific._templates import (
    ADHERE_TEMPLATES,
    PAPER_TEMPLATES,
    TEMPLATE_VARIABLES,
    PromptTemplates,
)

__all__ = [
    "OPTIONS",
    "PROTOCOLS",
    "Protocol",
    "check_template",
    "read_templates",
    "template_files",
]

Selection = Literal["adhere", "paper"]
PromptChoice = Literal["adhere", "paper"]
ParseChoice = Literal["lenient", "strict"]

PROTOCOLS: dict[str, dict[str, str]] = {
    "adhere": {"selection": "adhere", "prompt": "adhere", "parse": "lenient"},
    "paper": {"selection": "paper", "prompt": "paper", "parse": "strict"},
}
"""Each protocol's choices (the keys are Benchmark options that override them)."""

_CHOICES: dict[str, tuple[str, ...]] = {
    "selection": ("adhere", "paper"),
    "prompt": ("adhere", "paper"),
    "parse": ("lenient", "strict"),
}
OPTIONS = ("protocol", *_CHOICES, "templates")
"""Every option PACIFIC takes."""


@dataclass(frozen=True)
class Protocol:
    """The resolved choices of one PACIFIC Benchmark."""

    name: str = "adhere"
    selection: Selection = "adhere"
    prompt: PromptChoice = "adhere"
    parse: ParseChoice = "lenient"

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Protocol:
        """The protocol named by ``protocol`` with any single choice overridden."""
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise SpecError(
                f"unknown PACIFIC options {unknown}; accepted: {', '.join(OPTIONS)}",
                field="spec.options",
            )
        name = options.get("protocol", "adhere")
        if name not in PROTOCOLS:
            raise SpecError(
                f"expected one of {', '.join(PROTOCOLS)}, got {name!r}",
                field="spec.options.protocol",
            )
        chosen = dict(PROTOCOLS[name])
        for key, allowed in _CHOICES.items():
            if key in options:
                if options[key] not in allowed:
                    raise SpecError(
                        f"expected one of {', '.join(allowed)}, got {options[key]!r}",
                        field=f"spec.options.{key}",
                    )
                chosen[key] = options[key]
        return cls(name=name, **chosen)  # type: ignore[arg-type]

    def as_dict(self) -> dict[str, str]:
        """The three choices by option name."""
        return {"selection": self.selection, "prompt": self.prompt, "parse": self.parse}

    def differences(self) -> dict[str, str]:
        """The choices that differ from adhere's default protocol."""
        default = PROTOCOLS["adhere"]
        return {k: v for k, v in self.as_dict().items() if default[k] != v}

    def templates(self, files: Mapping[str, tuple[str, str]] | None = None) -> PromptTemplates:
        """The prompt choice's templates, with those read from ``files`` replacing theirs."""
        base = PAPER_TEMPLATES if self.prompt == "paper" else ADHERE_TEMPLATES
        return base.replaced({key: text for key, (text, _file) in (files or {}).items()})


def template_files(raw: Any) -> dict[str, str]:
    """The ``templates`` option checked: template key → file (one or more keys)."""
    if raw is None:
        return {}
    keys = ", ".join(TEMPLATE_VARIABLES)
    if not isinstance(raw, dict) or not raw:
        raise SpecError(
            f"expected a mapping of template names ({keys}) to files",
            field="spec.options.templates",
        )
    for key, value in raw.items():
        if key not in TEMPLATE_VARIABLES:
            raise SpecError(
                f"unknown template {key!r}; accepted: {keys}",
                field=f"spec.options.templates.{key}",
            )
        if not isinstance(value, str) or not value.strip():
            raise SpecError("expected the path of a template file",
                            field=f"spec.options.templates.{key}")  # fmt: skip
    return dict(raw)


def check_template(key: str, text: str, *, file: str) -> None:
    """SpecError naming the file when ``text`` uses a variable ``key`` does not get."""
    field = f"spec.options.templates.{key}"
    template = Template(text)
    if not template.is_valid():
        raise SpecError("a '$' that starts no variable (write $$ for a dollar sign)",
                        file=file, field=field)  # fmt: skip
    allowed = TEMPLATE_VARIABLES[key]
    extra = sorted(set(template.get_identifiers()) - set(allowed))
    if extra:
        raise SpecError(
            f"unknown template variable(s) {', '.join('$' + v for v in extra)}; the {key} "
            f"template gets {', '.join('$' + v for v in allowed)}",
            file=file,
            field=field,
        )


def read_templates(
    files: Mapping[str, str], base_dir: Path, file: str
) -> dict[str, tuple[str, str]]:
    """Template key → (text, path) of each file (paths relative to ``base_dir``), checked."""
    out: dict[str, tuple[str, str]] = {}
    for key, name in files.items():
        path = Path(name) if Path(name).is_absolute() else base_dir / name
        try:
            text = path.read_text(encoding="utf-8").removesuffix("\n")
        except (OSError, UnicodeDecodeError) as exc:
            raise SpecError(f"cannot read the {key} template {path}: {exc}", file=file,
                            field=f"spec.options.templates.{key}") from None  # fmt: skip
        check_template(key, text, file=str(path))
        out[key] = (text, str(path))
    return out
