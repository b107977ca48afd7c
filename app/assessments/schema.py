"""The assessment file format (assessments/<slug>.yaml): strict, so a typo fails `validate`."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from graders import SLUG_RE

MAX_TIME_LIMIT_MINUTES = 7 * 24 * 60


class Strict(BaseModel):
    """Unknown keys are errors, so a misspelt setting cannot be silently ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Item(Strict):
    """One quiz question or one exercise the assessment can ask."""

    question: str | None = Field(
        default=None,
        pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*/[a-z0-9]+(?:-[a-z0-9]+)*$",
        description="A quiz question as '<lesson slug>/<question id>'.",
    )
    exercise: str | None = Field(
        default=None, pattern=SLUG_RE, description="An exercise slug (its folder name)."
    )
    points: float = Field(default=1.0, gt=0, le=100, description="What this item is worth.")

    @model_validator(mode="after")
    def _one_kind(self) -> Item:
        if (self.question is None) == (self.exercise is None):
            raise ValueError("an item names exactly one of 'question' or 'exercise'")
        return self

    @property
    def key(self) -> str:
        """Stable id of the item inside an attempt: 'q:<lesson>/<id>' or 'x:<exercise>'."""
        return f"q:{self.question}" if self.question else f"x:{self.exercise}"


class Part(Strict):
    """A group of items: all of them, or `draw` of them chosen per student (a pool)."""

    title: str = Field(min_length=1, description="Heading shown above the part.")
    draw: int | None = Field(
        default=None,
        ge=1,
        description="How many items each student gets from this pool; omitted: all of them.",
    )
    items: list[Item] = Field(min_length=1, description="The pool, in display order.")

    @model_validator(mode="after")
    def _draw_fits(self) -> Part:
        if self.draw is not None and self.draw > len(self.items):
            raise ValueError(
                f"part '{self.title}' draws {self.draw} items but its pool holds only "
                f"{len(self.items)}"
            )
        return self


class OpenDuring(Strict):
    """What a student may open while an attempt is running."""

    hints: bool = Field(default=False, description="The exercises' hints.")
    solutions: bool = Field(default=False, description="The exercises' model solutions.")
    hidden_tests: bool = Field(
        default=False, description="What the exercises' hidden tests check, in graded reports."
    )
    practice: bool = Field(
        default=False,
        description="Practising the attempt's own quiz questions and exercises outside it.",
    )


class AssessmentFile(Strict):
    """A homework or an exam: what it asks, when it is open, and when scores are released."""

    slug: str = Field(pattern=SLUG_RE, description="Permanent id; must equal the file name.")
    title: str = Field(min_length=1, description="Title shown to students and in the gradebook.")
    kind: Literal["homework", "exam"] = Field(description="homework or exam.")
    opens: dt.datetime = Field(description="When students may start (with a time zone).")
    closes: dt.datetime = Field(description="When every attempt ends, whatever its time limit.")
    time_limit_minutes: float | None = Field(
        default=None,
        gt=0,
        le=MAX_TIME_LIMIT_MINUTES,
        description="Minutes from a student's start (0.5 is 30 s); omitted: until `closes`.",
    )
    attempts: int = Field(default=1, ge=1, le=100, description="Attempts allowed per student.")
    open_during: OpenDuring = Field(
        default_factory=OpenDuring, description="Hints, solutions and hidden tests while running."
    )
    release: Literal["on_submit", "after_close"] | dt.datetime = Field(
        default="after_close",
        description=(
            "When students see scores (and the LMS receives them): on_submit, after_close, "
            "or a date and time."
        ),
    )
    instructions: str = Field(default="", description="Markdown shown before the start button.")
    parts: list[Part] = Field(min_length=1, description="The parts, in order.")

    @model_validator(mode="after")
    def _window(self) -> AssessmentFile:
        for name in ("opens", "closes"):
            if getattr(self, name).tzinfo is None:
                raise ValueError(f"'{name}' needs a time zone, e.g. 2026-12-01T09:00:00Z")
        if self.closes <= self.opens:
            raise ValueError("'closes' must be after 'opens'")
        window = (self.closes - self.opens).total_seconds() / 60
        if self.time_limit_minutes is not None and self.time_limit_minutes > window:
            raise ValueError(
                f"the time limit ({self.time_limit_minutes:g} minutes) is longer than the window "
                f"from 'opens' to 'closes' ({window:g} minutes)"
            )
        if isinstance(self.release, dt.datetime) and self.release.tzinfo is None:
            raise ValueError("'release' needs a time zone, e.g. 2026-12-08T09:00:00Z")
        seen: set[str] = set()
        for part in self.parts:
            for item in part.items:
                if item.key in seen:
                    raise ValueError(f"'{item.key[2:]}' is listed twice")
                seen.add(item.key)
        return self

    @property
    def item_count(self) -> int:
        """How many items each student is asked."""
        return sum(p.draw or len(p.items) for p in self.parts)
