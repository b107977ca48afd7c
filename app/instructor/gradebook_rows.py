"""The gradebook's cells, rows and columns (the shapes its readers share)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from app.assessments.gradebook import AssessmentCell, AssessmentColumn


@dataclass
class ExerciseCell:
    """One student's work on one exercise (graded 'submit' submissions only)."""

    best: float | None = None  # the score that counts: the late penalty already taken off
    attempts: int = 0
    solved_at: dt.datetime | None = None
    late: bool = False  # the best-scoring submission came after the due date
    raw: float | None = None  # that submission's score before the late penalty
    penalty: float = 0.0  # the share of it the late policy took off, 0 to 1
    awaiting: bool = False  # a lab handed in whose write-up no person has graded yet


@dataclass
class QuizCell:
    """One student's attempts at one lesson's quiz."""

    best: float | None = None  # after the late penalty
    attempts: int = 0
    late: bool = False
    raw: float | None = None
    penalty: float = 0.0


@dataclass
class Row:
    """One student and every cell of their row."""

    user_id: int
    name: str
    email: str
    exercises: dict[str, ExerciseCell] = field(default_factory=dict)
    quizzes: dict[str, QuizCell] = field(default_factory=dict)
    practice: frozenset[str] = frozenset()  # exercises shown but not counted (the labs)
    assessments: dict[str, AssessmentCell] = field(default_factory=dict)  # not in the total

    @property
    def solved(self) -> int:
        """Exercises solved with full marks."""
        return sum(c.solved_at is not None for c in self.exercises.values())

    @property
    def exercise_points(self) -> float:
        """Sum of best exercise scores (each 0 to 1), practice-only exercises left out."""
        return sum(c.best or 0.0 for s, c in self.exercises.items() if s not in self.practice)

    @property
    def quiz_points(self) -> float:
        """Sum of best quiz scores (each 0 to 1)."""
        return sum(c.best or 0.0 for c in self.quizzes.values())

    def total(self, items: int) -> float:
        """Share of all course points, 0 to 1."""
        return (self.exercise_points + self.quiz_points) / items if items else 0.0


@dataclass(frozen=True)
class Column:
    """An exercise or a quiz the gradebook has a column for."""

    slug: str
    title: str
    due: dt.datetime | None
    # A lab: its verdict comes from code that runs in the student's own process, which could
    # patch the lab (the golden test `tamper-patch-the-lab`), so its score is practice only...
    practice: bool = False
    # ...unless the lab has a rubric: then a person's grade of its write-up is what counts.
    lab: bool = False


@dataclass
class Gradebook:
    """Columns, rows and the view options that produced them."""

    exercises: list[Column]
    quizzes: list[Column]
    rows: list[Row]
    shown_exercises: list[Column]
    shown_quizzes: list[Column]
    assessments: list[AssessmentColumn] = field(default_factory=list)

    @property
    def items(self) -> int:
        """How many scored items the course has (the denominator of the total)."""
        return sum(not c.practice for c in self.exercises) + len(self.quizzes)
