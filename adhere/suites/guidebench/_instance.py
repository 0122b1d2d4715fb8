"""A GuideBench task as an Instance: prompts, the one answer Check, report metadata.

:func:`task_to_instance` is pure: the prompt variant and protocol chosen by the
Benchmark's options (:mod:`._suite`) go in, the Instance the trial runs comes out.
:func:`subset` is the ``perCategory`` option's pick.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adhere.core import Check, CheckKind, Instance, Source, VerifierRef
from adhere.suites.guidebench._frame import build_prompts
from adhere.suites.guidebench._metrics import VERIFIER
from adhere.suites.guidebench._paper import label_text
from adhere.suites.guidebench._protocol import Protocol, Templates
from adhere.suites.guidebench._scoring import CHECK_ID
from adhere.suites.guidebench._task import CATEGORIES, Task, published_form


def task_to_instance(
    task: Task,
    *,
    guidelines: bool = True,
    reasoning: bool = True,
    protocol: Protocol | None = None,
    templates: Templates | None = None,
    demos: Sequence[Task] = (),
    variant: Mapping[str, Any] | None = None,
    edit: Mapping[str, Any] | None = None,
) -> Instance:
    """The Instance a task is run as, in the chosen prompt variant and protocol."""
    info = task.info
    protocol = protocol or Protocol()
    shown = published_form(info.kind, task.gold)
    parser = templates.parser() if templates is not None else None
    system, user = build_prompts(
        task, protocol, templates, guidelines=guidelines, reasoning=reasoning, demos=demos
    )
    return Instance(
        id=task.id,
        suite="guidebench",
        system_prompt=system,
        turns=[user],
        checks=[
            Check(
                id=CHECK_ID,
                source=Source.ANSWER,
                kind=CheckKind.COMPLIANCE,
                description=f"The final answer is {shown!r} ({info.title}).",
                verifier=VerifierRef(name=VERIFIER),
            )
        ],
        metadata={
            "category": task.category,
            "rule_update": task.rule_update,
            "source": task.source,
            "guidelines": guidelines,
            "reasoning": "cot" if reasoning else "direct",
            "index": task.index,
            "gold": task.gold,
            # the default protocol adds nothing, so instances (and the fingerprints of
            # earlier runs) stay as they were
            **(
                {"protocol": {"name": protocol.name, **protocol.as_dict()}}
                if protocol != Protocol()
                else {}
            ),
            **({"variant": dict(variant)} if variant else {}),
            # the question parse: llm asks, from the Benchmark's parser template
            **({"parser_prompt": parser[0]} if parser and protocol.parse == "llm" else {}),
            # the gold label precision/recall count under the paper's parsing (a failed
            # run's verdict carries none)
            **(
                {"gold_label": label_text(task.published_reference)}
                if protocol.parse != "adhere"
                else {}
            ),
            **_edit_metadata(edit),
            "answer_key": {
                "kind": info.kind,
                "gold": task.gold,
                "options": [letter for letter, _ in task.options],
                "analysis": task.analysis,
                **({"reference": task.published_reference} if protocol.parse != "adhere" else {}),
            },
        },
    )


def _edit_metadata(edit: Mapping[str, Any] | None) -> dict[str, Any]:
    """Scalar keys for reports (``rule_edit``, ``edit_pair``, ``edit_original_answer``)."""
    if edit is None:
        return {}
    if "edited_id" in edit:
        return {"rule_edit": "original", "edit_pair": edit["edited_id"]}
    return {
        "rule_edit": "edited",
        "edit_pair": edit["original_id"],
        "edit_original_answer": edit["original_answer"],
        "edit": dict(edit),
    }


def subset(tasks: Sequence[Task], per_category: int) -> list[Task]:
    """``per_category`` tasks of each category, evenly spaced through its file order."""
    out = []
    for key in CATEGORIES:
        mine = [t for t in tasks if t.category == key]
        if len(mine) <= per_category:
            out += mine
            continue
        picks = sorted({i * len(mine) // per_category for i in range(per_category)})
        out += [mine[i] for i in picks]
    return out
