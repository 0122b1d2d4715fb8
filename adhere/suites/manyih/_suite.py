"""ManyIH as a suite: coding samples (and the IF subset) as Instances, scored from evidence.

Options (``spec.options`` of the Benchmark):

``subset`` (default ``coding``)
    ``coding`` (the style-instruction coding subset) or ``if`` (the instruction-
    following subset's schema, see ``_ifsubset``).
``interface`` (default ``ordinal``)
    ``ordinal`` (``[[Privilege k]]``) or ``scalar`` (``[[z=v]]``).
``tiers`` (default: each sample as it is)
    A tier variant or a list of them, e.g. ``[6, 8, 12]``: every sample once per
    variant (instances ``…-t6``, ``…-t8``; the sample itself keeps its plain id).
``perturbations`` (default 0)
    K scalar-value perturbations per sample (instances ``…-p1`` … ``…-pK``) next to the
    sample itself; needs ``interface: scalar``.
``perturbSeed``, ``tierSeed`` (default 0)
    Seeds of the perturbations and of the losers an 8-tier variant keeps.
``testTimeout`` (default 30)
    Seconds for one sample's unit tests (the sandbox's wall-clock limit).
``samples`` (default: all)
    Keep N samples evenly spaced through the file (a quick subset), before variants.
``protocol`` (default ``adhere``), ``checkers``, ``prompt``, ``extract``, ``perturb``
    ``protocol: paper`` selects the paper's procedure (public-compatible checkers, the
    published prompt, the public extraction, §6.4 shifts); each choice can be set alone
    (see ``_protocol``). ``perturbShift`` (default 3): the largest shift.
``templates`` (default: adhere's wording)
    ``{system: FILE, user: FILE}`` prompt templates (``_protocol.TEMPLATE_VARIABLES``).

Sources: ``path`` (the published ``coding.json``, a file written by ``adhere generate
manyih``, or an IF-subset file) or ``generate: {problems, n, groups, instructions,
tiers, conflicts, winners, seed}`` (``problems`` is a path, relative to the spec).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from adhere.core import Evidence, EvidenceRequest, Instance, Trajectory, Verdict
from adhere.errors import SpecError
from adhere.metrics import ScoredTrial, Table
from adhere.spec import BenchmarkSpec
from adhere.suites._registry import WrongItem, suite
from adhere.suites.manyih._coding_score import coding_evidence, coding_score
from adhere.suites.manyih._generate import GenerateParams, generate, load_problems
from adhere.suites.manyih._hierarchy import INTERFACES, Interface
from adhere.suites.manyih._ifsubset import if_evidence, if_score, if_to_instance, load_if
from adhere.suites.manyih._instances import answer_key, sample_to_instance
from adhere.suites.manyih._metrics import report_tables
from adhere.suites.manyih._oracle import oracle_code
from adhere.suites.manyih._protocol import (
    Protocol,
    Templates,
    prompts_for,
    read_templates,
    template_files,
)
from adhere.suites.manyih._sample import CodingSample, load_coding, parse_sample
from adhere.suites.manyih._variants import perturb, tier_variant

__all__ = ["ManyIHSuite"]

_OPTIONS = {
    "subset": "subset",
    "interface": "interface",
    "tiers": "tiers",
    "perturbations": "perturbations",
    "perturbSeed": "perturb_seed",
    "tierSeed": "tier_seed",
    "testTimeout": "test_timeout",
    "samples": "samples",
    "protocol": "protocol",
    "checkers": "checkers",
    "prompt": "prompt",
    "extract": "extract",
    "perturb": "perturb",
    "perturbShift": "perturb_shift",
    "templates": "templates",
}
_GENERATE = {"problems", "n", "groups", "instructions", "tiers", "conflicts", "winners", "seed"}


@suite("manyih")
class ManyIHSuite:
    """Many-tier instruction hierarchies (SUITES.md §3)."""

    name = "manyih"

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(_OPTIONS))
        if unknown:
            raise SpecError(
                f"unknown ManyIH options {unknown}; accepted: {', '.join(_OPTIONS)}",
                field="spec.options",
            )
        self.subset = options.get("subset", "coding")
        if self.subset not in ("coding", "if"):
            raise SpecError("expected coding or if", field="spec.options.subset")
        interface = options.get("interface", "ordinal")
        if interface not in INTERFACES:
            raise SpecError("expected ordinal or scalar", field="spec.options.interface")
        self.interface: Interface = interface
        tiers = options.get("tiers")
        tiers = [tiers] if isinstance(tiers, int) and not isinstance(tiers, bool) else tiers
        if tiers is not None and not (
            isinstance(tiers, list)
            and tiers
            and all(isinstance(t, int) and not isinstance(t, bool) and t > 0 for t in tiers)
        ):
            raise SpecError("expected a positive integer or a list of them",
                            field="spec.options.tiers")  # fmt: skip
        self.tiers: list[int] | None = tiers
        self.perturbations = self._int(options, "perturbations", 0, minimum=0)
        self.perturb_seed = self._int(options, "perturbSeed", 0)
        self.tier_seed = self._int(options, "tierSeed", 0)
        timeout = options.get("testTimeout", 30.0)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise SpecError("expected a positive number of seconds",
                            field="spec.options.testTimeout")  # fmt: skip
        self.test_timeout = float(timeout)
        self.samples = self._int(options, "samples", 0, minimum=1) if "samples" in options else 0
        self.protocol = Protocol.from_options(options)
        self.perturb_shift = self._int(options, "perturbShift", 3, minimum=1)
        self.template_files = template_files(options.get("templates"))
        self.templates = Templates()
        if self.perturbations and self.interface != "scalar":
            raise SpecError(
                "scalar perturbations only change the scalar rendering; set interface: scalar",
                field="spec.options.perturbations",
            )

    @staticmethod
    def _int(
        options: Mapping[str, Any], name: str, default: int, minimum: int | None = None
    ) -> int:
        value = options.get(name, default)
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or (minimum is not None and value < minimum)
        ):
            raise SpecError(f"expected an integer{'' if minimum is None else f' >= {minimum}'}",
                            field=f"spec.options.{name}")  # fmt: skip
        return value

    # -- loading -----------------------------------------------------------------

    def load(self, spec: BenchmarkSpec, *, base_dir: Path, file: str = "") -> list[Instance]:
        """Instances from a data file or from generator parameters."""
        self.templates = read_templates(self.template_files, base_dir, file)
        if spec.source.generate is not None:
            if self.subset != "coding":
                raise SpecError("only the coding subset has a generator", file=file,
                                field="spec.source.generate")  # fmt: skip
            samples = self._generated(spec.source.generate, base_dir, file)
        elif spec.source.path is not None:
            path = Path(spec.source.path)
            path = path if path.is_absolute() else base_dir / path
            if not path.is_file():
                raise SpecError(f"{path} does not exist (expected a ManyIH data file)",
                                file=file, field="spec.source.path")  # fmt: skip
            if self.subset == "if":
                return [if_to_instance(s, i) for i, s in enumerate(load_if(path))]
            samples = load_coding(path)
            if self.samples and len(samples) > self.samples:
                picks = sorted({i * len(samples) // self.samples for i in range(self.samples)})
                samples = [samples[i] for i in picks]
        else:
            raise SpecError("ManyIH reads 'path' or 'generate'", file=file, field="spec.source")
        return self.instances(samples)

    def instances(self, samples: Sequence[CodingSample]) -> list[Instance]:
        """Instances of coding samples under this suite's options (variants included)."""
        out = []
        for sample in samples:
            variants = self.tiers or [len(sample.instructions)]
            for tiers in variants:
                try:
                    variant = tier_variant(sample, tiers, seed=self.tier_seed)
                except ValueError as exc:
                    raise SpecError(str(exc), field="spec.options.tiers") from None
                suffix = "" if tiers == len(sample.instructions) else f"-t{tiers}"
                if suffix and self.protocol.prompt == "published":
                    raise SpecError("the published prompt exists for the samples as published "
                                    f"only, not for {tiers}-tier variants; set prompt: adhere",
                                    field="spec.options.tiers")  # fmt: skip
                out.append(self._instance(variant, suffix))
                for k in range(1, self.perturbations + 1):
                    moved = perturb(variant, k, seed=self.perturb_seed, mode=self.protocol.perturb,
                                    shift=self.perturb_shift)  # fmt: skip
                    out.append(self._instance(moved, f"{suffix}-p{k}"))
        return out

    def _instance(self, sample: CodingSample, suffix: str) -> Instance:
        system, user = prompts_for(sample, self.interface, self.protocol.prompt, self.templates)
        return sample_to_instance(
            sample,
            interface=self.interface,
            suffix=suffix,
            timeout=self.test_timeout,
            prompts=(system, user),
            protocol=self.protocol.as_dict(),
        )

    @staticmethod
    def _generated(raw: dict[str, Any], base_dir: Path, file: str) -> list[CodingSample]:
        unknown = sorted(set(raw) - _GENERATE)
        if unknown:
            raise SpecError(f"unknown generator parameter; expected one of {sorted(_GENERATE)}",
                            file=file, field=f"spec.source.generate.{unknown[0]}")  # fmt: skip
        if "problems" not in raw:
            raise SpecError("the path of a problem set", file=file,
                            field="spec.source.generate.problems")  # fmt: skip
        problems_path = Path(str(raw["problems"]))
        problems_path = problems_path if problems_path.is_absolute() else base_dir / problems_path
        kwargs = {k: v for k, v in raw.items() if k != "problems"}
        if "conflicts" in kwargs:
            kwargs["conflicts"] = tuple(kwargs["conflicts"])
        try:
            params = GenerateParams(**kwargs)
            made = generate(load_problems(problems_path), params)
        except SpecError as exc:
            message = str(exc).split(": ", 1)[-1]
            raise SpecError(
                message, file=file, field=f"spec.source.generate.{exc.field or 'problems'}"
            ) from None
        except TypeError as exc:
            raise SpecError(str(exc), file=file, field="spec.source.generate") from None
        return [parse_sample(s, where=f"generated[{i}]") for i, s in enumerate(made.samples)]

    # -- scoring -------------------------------------------------------------------

    def evidence(self, instance: Instance, trajectory: Trajectory) -> Sequence[EvidenceRequest]:
        """The unit tests of the reply's code, to run in the sandbox (IF: code checks)."""
        if instance.metadata.get("subset") == "if":
            return if_evidence(instance, trajectory, self.test_timeout)
        return coding_evidence(instance, trajectory, self.protocol)

    def score(
        self,
        instance: Instance,
        trajectory: Trajectory,
        evidence: Mapping[str, Evidence] | None = None,
    ) -> list[Verdict]:
        """The tests verdict (from the sandbox's evidence) and one per winning style."""
        if instance.metadata.get("subset") == "if":
            return if_score(instance, trajectory, dict(evidence or {}))
        return coding_score(instance, trajectory, evidence, self.protocol)

    # -- scripted policies and reports -------------------------------------------

    def oracle_reply(self, instance: Instance, turn: int, wrong: WrongItem) -> str:
        """The reference code restyled to every winning style (items ``wrong`` picks broken)."""
        if instance.metadata.get("subset") == "if":
            reference = instance.metadata.get("answer_key", {}).get("reference_response")
            if not reference:
                raise SpecError(f"IF instance {instance.id!r} has no reference_response",
                                field="reference_response")  # fmt: skip
            return str(reference)
        code = oracle_code(answer_key(instance), wrong)
        return f"Here is the solution.\n\n```python\n{code}```\n"

    def breakdowns(self) -> Sequence[str]:
        """Reports break results down by tier variant and by conflict count."""
        return ("tiers", "n_conflicts")

    def metric_names(self) -> tuple[str, str]:
        """ISR is the paper's Acc (tests and every winning style); CSR the check pass rate."""
        return ("Acc", "check pass rate")

    def report_tables(self, trials: Iterable[ScoredTrial]) -> tuple[list[Table], list[Table]]:
        """Acc / Acc_test / Acc_style per tier variant, flip rates, per-group failures."""
        return report_tables(trials)
