"""The lab's reference runs inside the lessons that make the claims they test.

A lesson names experiment exercises in its front matter (`labs:`); its page shows their cached
reference runs as the same figure the exercise page draws, a table of the numbers (the text
equivalent of the figure) and a link to try it. Read from the disk cache only: a page never
waits for training.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.content.lab_figure import accuracy_svg, cached_runs, cell, lab_chance, label, seeds_of
from app.content.lab_positions import lab_offset, position_svg, position_table
from app.content.loader import Course, Lesson


@dataclass(frozen=True)
class LabRow:
    """One scheme's accuracy by length as the table shows it: past the training length, on new
    positions with the trained ones in brackets ("refused" where it could not run)."""

    scheme: str
    cells: list[str]


@dataclass(frozen=True)
class LabFigure:
    """What a lesson shows of one experiment exercise."""

    slug: str
    title: str
    train_length: int
    lengths: list[str]
    svg: str | None
    rows: list[LabRow]
    chance: float | None = None
    seeds: int = 1
    positions_svg: str | None = None
    positions_table: str | None = None  # HTML we build (numbers and scheme names escaped)


def _rows(runs: dict[str, dict[str, Any]], lengths: list[str]) -> list[LabRow]:
    return [LabRow(label(scheme), [cell(run, n) for n in lengths]) for scheme, run in runs.items()]


def lesson_labs(*, course: Course, lesson: Lesson, cache_dir: Path) -> list[LabFigure]:
    """The lesson's experiments that exist and are published, with their cached runs if any."""
    figures: list[LabFigure] = []
    for slug in lesson.meta.labs:
        exercise = course.exercise(slug)
        if exercise is None or exercise.meta.draft or exercise.meta.experiment is None:
            continue
        try:
            runs = cached_runs(exercise.path, cache_dir)
        except (OSError, KeyError, ValueError, TypeError):
            runs = None
        if not runs:
            figures.append(LabFigure(slug, exercise.meta.title, 0, [], None, [], None))
            continue
        first = next(iter(runs.values()))
        lengths = [str(n) for n in first["accuracy_by_length"]]
        chance = lab_chance(exercise.path)
        offset = lab_offset(exercise.path)
        figures.append(
            LabFigure(
                slug=slug,
                title=exercise.meta.title,
                train_length=int(first["train_length"]),
                lengths=lengths,
                svg=accuracy_svg(runs, chance),
                rows=_rows(runs, lengths),
                chance=chance,
                seeds=seeds_of(runs),
                positions_svg=position_svg(runs, offset, chance),
                positions_table=position_table(runs, offset),
            )
        )
    return figures
