"""The PACIFIC sample format: one generated chain, with its steps and rendering options.

A sample is what ``adhere generate pacific`` writes, one JSON object a line::

    {"id": "pacific-python-n3-l5-prompt-000", "language": "python", "kind": "code",
     "mode": "prompt", "instructions": 3, "target_length": 5, "seed": 7,
     "initial": 19,
     "steps": [{"paper_id": 4, "input": 19, "expected": 25}, ...]}

``language`` is ``python``, ``java`` or ``cpp`` for code samples and ``nl`` for
natural-language ones. The prompt shown to the model is rendered from these fields
(see ``_prompt``) so the file stays small and the rendering stays consistent.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from adhere.suites.pacific._instructions import by_id

Mode = Literal["prompt", "chat"]
Kind = Literal["code", "nl"]
SampleLanguage = Literal["python", "java", "cpp", "nl"]


class Step(BaseModel):
    """One link of the chain: which instruction, its input and its expected output."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    paper_id: int = Field(ge=1, le=22, description="Instruction number, 1-22 (the paper's).")
    input: int | str
    expected: int | str


class Sample(BaseModel):
    """One PACIFIC sample."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    language: SampleLanguage
    kind: Kind
    mode: Mode
    instructions: int = Field(ge=1)
    target_length: int = Field(ge=1)
    seed: int
    initial: int | str
    steps: list[Step] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> Sample:
        if (self.kind == "nl") != (self.language == "nl"):
            raise ValueError(
                "kind 'nl' goes with language 'nl', kind 'code' with a programming one"
            )
        if len(self.steps) != self.instructions:
            raise ValueError(f"expected {self.instructions} steps, got {len(self.steps)}")
        value: int | str = self.initial
        for index, step in enumerate(self.steps, start=1):
            instruction = by_id(step.paper_id)
            if type(step.input) is not type(value) or step.input != value:
                raise ValueError(f"step {index}: input does not equal the previous output")
            if not instruction.accepts(step.input):
                raise ValueError(
                    f"step {index}: input {step.input!r} outside the domain of "
                    f"instruction {step.paper_id} ({instruction.name}, {instruction.in_type})"
                )
            actual = instruction(step.input)
            if type(actual) is not type(step.expected) or actual != step.expected:
                raise ValueError(
                    f"step {index}: expected {step.expected!r} but {instruction.name} "
                    f"gives {actual!r}"
                )
            value = step.expected
        return self

    @property
    def difficulty(self) -> str:
        """The generator cell: ``n<instructions>-l<target length>``."""
        return f"n{self.instructions}-l{self.target_length}"
