"""The exercise format (exercise.yaml, mistakes.yaml): one strict schema for grader and app.

The grader owns it because it is the grader that runs what these files say; the app's content
loader and `validate` import it from here, so both read a file the same way, with the same
defaults and bounds. A typo in a content file fails loudly here, not silently with a default.
"""

from __future__ import annotations

import datetime as dt
import uuid as uuid_module
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

SLUG_RE = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
Framework = Literal["numpy", "torch", "jax"]
FRAMEWORKS: tuple[Framework, ...] = ("numpy", "torch", "jax")


class Strict(BaseModel):
    """Base for content models: unknown keys are errors so typos cannot hide."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Limits(Strict):
    """Resource limits for one grading job."""

    time_ms: int = Field(default=2000, ge=100, le=60000, description="Wall-clock limit per job.")
    memory_mb: int = Field(
        default=1024, ge=64, le=16384, description="Memory limit for the sandboxed process tree."
    )


class Tolerance(Strict):
    """How close a float output must be to the reference."""

    rtol: float = Field(default=1e-4, ge=0, description="Relative tolerance.")
    atol: float = Field(default=2e-4, ge=0, description="Absolute tolerance.")


class Entry(Strict):
    """What the student must define."""

    kind: Literal["function", "class", "experiment"] = Field(
        description=(
            "A function, a class (nn.Module), or an experiment: the position part of a model "
            "that the lab trains and measures."
        )
    )
    name: str = Field(
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description="Name the grader looks up in the file."
    )
    signature: str = Field(description="The signature shown to students, e.g. 'f(x, y)'.")


class ExperimentGoal(Strict):
    """An accuracy the trained model must reach at some multiple of the training length."""

    factor: float = Field(gt=0, description="Length as a multiple of the training length.")
    min_accuracy: float = Field(
        ge=0,
        le=1,
        description=(
            "Share that must be right: at factor 1 of every answerable position, past it of the "
            "new positions only (those at or past the training length); a refusal counts 0."
        ),
    )
    required: bool = Field(
        default=True, description="Required for acceptance; otherwise a stretch goal (score only)."
    )


class Experiment(Strict):
    """How the lab trains and measures an experiment exercise (graders/inside/experiment.py)."""

    slot: Literal["absolute", "relative"] = Field(
        description=(
            "absolute: the student's class(max_len, d_model) adds positions to x (B, T, d); "
            "relative: class(num_heads, head_dim, max_len) maps q, k (B, H, T, hd) to scores."
        )
    )
    offset: int = Field(ge=1, le=8, description="The task: answer the token this many places back.")
    vocab: int = Field(default=10, ge=2, le=64, description="Number of token values.")
    d_model: int = Field(default=32, ge=8, le=128, description="Model width.")
    heads: int = Field(default=2, ge=1, le=8, description="Attention heads per layer.")
    layers: int = Field(default=2, ge=1, le=4, description="Transformer blocks.")
    train_length: int = Field(ge=4, le=64, description="Length of every training sequence.")
    steps: int = Field(default=400, ge=1, le=2000, description="Adam steps.")
    batch: int = Field(default=32, ge=1, le=128, description="Sequences per step.")
    lr: float = Field(default=3e-3, gt=0, le=1, description="Adam learning rate.")
    seed: int = Field(default=0, ge=0, description="Seed of the weights and the data.")
    factors: list[float] = Field(
        default_factory=lambda: [1.0, 1.5, 2.0, 4.0],
        min_length=1,
        description="Evaluation lengths as multiples of the training length.",
    )
    beyond_table: Literal["refuse"] = Field(
        default="refuse",
        description=(
            "What a module that cannot serve a longer sequence does: it raises, the length "
            "is reported as refused and counts as 0% for the goals."
        ),
    )
    goals: list[ExperimentGoal] = Field(min_length=1, description="What the trained model must do.")
    references: list[
        Annotated[
            str,
            StringConstraints(
                pattern=r"^(none|learned|learned-spare|sinusoidal|rope|alibi)(@offset=[1-8])?$"
            ),
        ]
    ] = Field(
        default_factory=list,
        description=(
            "Platform schemes trained next to the exercise's (python -m app experiments); "
            "'rope@offset=6' trains one on the same task with another offset."
        ),
    )

    @model_validator(mode="after")
    def _goals_at_measured_lengths(self) -> Experiment:
        missing = sorted({g.factor for g in self.goals} - set(self.factors))
        if missing:
            raise ValueError(f"goals at factors {missing} are not among the measured factors")
        if self.d_model % self.heads or (self.d_model // self.heads) % 2:
            raise ValueError("d_model / heads must be an even whole number (rotary pairs)")
        return self


class RubricItem(Strict):
    """One thing a person checks by reading the code: points gained (or, negative, lost)."""

    id: str = Field(pattern=SLUG_RE, description="Stable identifier, unique within the rubric.")
    title: str = Field(min_length=1, description="What the grader checks, as the student reads it.")
    points: float = Field(description="Points when it applies; negative for a deduction.")

    @model_validator(mode="after")
    def _not_zero(self) -> RubricItem:
        if self.points == 0:
            raise ValueError(f"rubric item '{self.id}' gives 0 points; give it a value or drop it")
        return self


class Rubric(Strict):
    """Grading by a person beside the tests: the share of the score it decides and its items."""

    weight: float = Field(
        gt=0,
        le=1,
        description=(
            "Share of the score the rubric decides once a person grades it (1: the rubric "
            "alone); the tests decide the rest."
        ),
    )
    items: list[RubricItem] = Field(min_length=1, description="Items a grader may apply.")

    @model_validator(mode="after")
    def _items(self) -> Rubric:
        ids = [i.id for i in self.items]
        if len(set(ids)) != len(ids):
            raise ValueError(f"rubric item ids must be unique: {ids}")
        if not any(i.points > 0 for i in self.items):
            raise ValueError("a rubric needs at least one item with positive points")
        return self

    @property
    def full_marks(self) -> float:
        """The points that make 100% of the rubric's part (every positive item)."""
        return sum(i.points for i in self.items if i.points > 0)


class ExerciseMeta(Strict):
    """exercise.yaml: the metadata of one exercise folder."""

    slug: str = Field(
        pattern=SLUG_RE, description="The exercise's name in URLs; must equal the folder name."
    )
    uuid: uuid_module.UUID = Field(
        description=(
            "Permanent id, unique in the course: it stays when the folder is renamed (`python -m "
            "app new exercise` writes one; or python -c 'import uuid; print(uuid.uuid4())')."
        )
    )
    title: str = Field(min_length=1, description="Title shown in the outline and page heading.")
    order: int = Field(ge=0, description="Position among the exercises (ascending).")
    summary: str = Field(min_length=1, description="One sentence shown in the outline.")
    lesson: str | None = Field(
        default=None, pattern=SLUG_RE, description="Slug of the lesson this exercise practises."
    )
    entry: Entry = Field(description="The function or class the student writes.")
    frameworks: list[Framework] = Field(
        min_length=1, description="Frameworks offered; the first one is the default."
    )
    limits: Limits = Field(default_factory=Limits, description="Per-job resource limits.")
    tolerance: Tolerance = Field(
        default_factory=Tolerance, description="Float comparison tolerance."
    )
    draft: bool = Field(default=False, description="Drafts are visible to instructors only.")
    due: dt.datetime | None = Field(default=None, description="Optional due date.")
    solution_unlock_attempts: int | None = Field(
        default=None,
        ge=1,
        description=(
            "The model solution and discussion open after solving, or after this many submit "
            "attempts (none: only after solving)."
        ),
    )
    hidden_tests: Literal["hidden", "after_due", "visible"] = Field(
        default="hidden",
        description=(
            "What students see of hidden tests: only name, verdict and message (hidden); also "
            "their inputs and expected outputs once the student's due date has passed "
            "(after_due); or everything, always (visible)."
        ),
    )
    experiment: Experiment | None = Field(
        default=None,
        description="Training and goals; required exactly when entry.kind is experiment.",
    )
    rubric: Rubric | None = Field(
        default=None, description="Optional grading by a person with a rubric, beside the tests."
    )

    @model_validator(mode="after")
    def _unique_frameworks(self) -> ExerciseMeta:
        if len(set(self.frameworks)) != len(self.frameworks):
            raise ValueError(f"frameworks are listed twice: {self.frameworks}")
        if (self.entry.kind == "experiment") != (self.experiment is not None):
            raise ValueError(
                "an experiment section is needed exactly when entry.kind is experiment"
            )
        if self.entry.kind == "experiment" and self.frameworks != ["torch"]:
            raise ValueError("experiments run in torch only: frameworks must be [torch]")
        return self

    @property
    def default_framework(self) -> Framework:
        """The framework the editor opens with."""
        return self.frameworks[0]


class Mistake(Strict):
    """A known misconception: wrong code that produces it and the hint that fixes it."""

    id: str = Field(pattern=SLUG_RE, description="Stable identifier, unique within the exercise.")
    title: str = Field(min_length=1, description="Short name shown in feedback and analytics.")
    hint: str = Field(min_length=1, description="What to tell a student whose output matches it.")
    framework: Framework = Field(description="Framework the wrong code is written in.")
    code: str = Field(min_length=1, description="A complete wrong submission producing it.")
    mask_below: float | None = Field(
        default=None,
        lt=0,
        description=(
            "When set, every output value at or below it (and -inf) counts as the same mask "
            "value while matching, so a mistake written with -1e9 also recognises -1e4 or "
            "finfo.min."
        ),
    )
    sandboxed: bool = Field(
        default=False,
        description=(
            "The code came from a student's submission (written by the instructors' \"Explain "
            "this mistake\"): it runs in the sandbox pool, as students' code does, and its "
            "outputs are kept in memory only. Without it (the course's own mistakes) the code "
            "runs in the content sandbox, as every content file does, with its outputs cached "
            "by the exercise's content. No mistake's code runs outside a sandbox."
        ),
    )


class MistakesFile(Strict):
    """mistakes.yaml: the exercise's known misconceptions."""

    mistakes: list[Mistake] = Field(
        default_factory=list, description="Known mistakes, checked in order."
    )

    @model_validator(mode="after")
    def _unique(self) -> MistakesFile:
        ids = [m.id for m in self.mistakes]
        if len(set(ids)) != len(ids):
            raise ValueError(f"mistake ids must be unique, got {ids}")
        return self


def _read_yaml(path: Path) -> Any:
    # libyaml when PyYAML has it: the same objects, 15x faster than the pure-Python parser.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(path.read_text(encoding="utf-8"), Loader=loader)  # noqa: S506 - safe


def read_exercise_meta(folder: Path) -> ExerciseMeta:
    """exercise.yaml of an exercise folder, checked (OSError, yaml.YAMLError, ValidationError)."""
    return ExerciseMeta.model_validate(_read_yaml(folder / "exercise.yaml"))


def read_mistakes(folder: Path) -> MistakesFile:
    """mistakes.yaml of an exercise folder, checked; none declared when the file is absent."""
    path = folder / "mistakes.yaml"
    return MistakesFile.model_validate(_read_yaml(path) or {}) if path.is_file() else MistakesFile()
