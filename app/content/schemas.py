"""Strict schemas for course content: a typo in a content file must fail loudly, not silently."""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Literal

from pydantic import Field, model_validator

from graders import SLUG_RE, Strict

# The exercise format is the grader's (graders/exercise_format.py); lessons and quizzes are here.


# --------------------------------------------------------------------------- quizzes


class Choice(Strict):
    """One option of a choice question."""

    id: str = Field(description="Stable identifier of the option, unique within its question.")
    text: str = Field(description="What the student reads (inline markdown and $math$ allowed).")
    correct: bool = Field(default=False, description="Whether choosing this option is right.")
    why: str | None = Field(
        default=None, description="Why this option is right or wrong, shown after answering."
    )


class QuestionBase(Strict):
    """Fields every quiz question has."""

    id: str = Field(
        pattern=SLUG_RE, description="Stable identifier, unique within the lesson's quiz."
    )
    prompt: str = Field(description="The question in markdown; may use {param} placeholders.")
    explanation: str = Field(description="Shown after answering: why the right answer is right.")
    params: dict[str, list[int]] = Field(
        default_factory=dict,
        description=(
            "Parameterised variant: each name draws one value per student from its list; "
            "the prompt and answers may refer to it as {name}."
        ),
    )


class SingleChoice(QuestionBase):
    """Exactly one option is right."""

    type: Literal["single"] = Field(description="Question type: pick exactly one option.")
    choices: list[Choice] = Field(min_length=2, description="The options, in display order.")

    @model_validator(mode="after")
    def _one_correct(self) -> SingleChoice:
        if sum(c.correct for c in self.choices) != 1:
            raise ValueError("a single-choice question needs exactly one correct choice")
        _unique_ids(self.choices)
        return self


class MultipleChoice(QuestionBase):
    """Select all that apply: the answer is right only if the chosen set is exactly right."""

    type: Literal["multiple"] = Field(description="Question type: select all that apply.")
    choices: list[Choice] = Field(min_length=2, description="The options, in display order.")

    @model_validator(mode="after")
    def _some_correct(self) -> MultipleChoice:
        if not any(c.correct for c in self.choices):
            raise ValueError("a multiple-choice question needs at least one correct choice")
        _unique_ids(self.choices)
        return self


class Numeric(QuestionBase):
    """A number, typed by the student; arithmetic such as 512*768 is accepted."""

    type: Literal["numeric"] = Field(description="Question type: a number.")
    answer: str = Field(
        description="The right value: a number or an expression over the params ('max_len*d')."
    )
    tolerance: float = Field(
        default=0.0, ge=0, description="Absolute tolerance; 0 means the integer must be exact."
    )
    accept: list[str] = Field(
        default_factory=list,
        description="Answers that must be graded right (validate checks).",
    )
    reject: list[str] = Field(
        default_factory=list,
        description="Answers that must be graded wrong (validate checks).",
    )


class Shape(QuestionBase):
    """A tensor shape such as (512, 768) or [max_len, d_model]; order matters."""

    type: Literal["shape"] = Field(description="Question type: a tensor shape.")
    answer: list[str] = Field(
        min_length=1,
        description="One entry per axis: a number, a param name, or a symbol such as 'max_len'.",
    )
    aliases: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Other names accepted for a symbol, e.g. {'max_len': ['max_T', 'L']}.",
    )
    accept: list[str] = Field(
        default_factory=list,
        description="Answers that must be graded right (validate checks).",
    )
    reject: list[str] = Field(
        default_factory=list,
        description="Answers that must be graded wrong (validate checks).",
    )


Question = Annotated[SingleChoice | MultipleChoice | Numeric | Shape, Field(discriminator="type")]


def _unique_ids(choices: list[Choice]) -> None:
    ids = [c.id for c in choices]
    if len(set(ids)) != len(ids):
        raise ValueError(f"choice ids must be unique, got {ids}")


# --------------------------------------------------------------------------- lessons


class LessonMeta(Strict):
    """Front matter of a lesson markdown file."""

    slug: str = Field(pattern=SLUG_RE, description="Permanent URL name: /lessons/<slug>.")
    title: str = Field(min_length=1, description="Title shown in the outline and the page heading.")
    order: int = Field(ge=0, description="Position in the course outline (ascending).")
    summary: str = Field(min_length=1, description="One or two sentences shown in the outline.")
    draft: bool = Field(default=False, description="Drafts are visible to instructors only.")
    due: dt.datetime | None = Field(default=None, description="Optional due date for the quiz.")
    quiz: list[Question] = Field(
        default_factory=list, description="The lesson's quiz questions, in order."
    )
    labs: list[str] = Field(
        default_factory=list,
        description=(
            "Slugs of experiment exercises whose reference runs the lesson shows as a figure, "
            "with a link to try them."
        ),
    )

    @model_validator(mode="after")
    def _unique_question_ids(self) -> LessonMeta:
        ids = [q.id for q in self.quiz]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"quiz question ids must be unique, repeated: {dupes}")
        return self


IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
