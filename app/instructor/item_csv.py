"""The cells that quiz and assessment item statistics share in their CSV files.

Why one module: an instructor reads both files side by side, so a number, a choice count and a
common wrong answer must be written the same way in each, and cells are made safe the same way.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Protocol

from app.instructor.gradebook_csv import csv_cell


class _Choice(Protocol):
    id: str
    correct: bool
    picked: int


class ItemLike(Protocol):
    """What both kinds of item statistics carry about answers."""

    @property
    def choices(self) -> Sequence[_Choice]: ...

    @property
    def common_wrong(self) -> Sequence[tuple[str, int]]: ...


def number(value: float | None) -> str:
    """Three decimals, or an empty cell where too few answered to say."""
    return "" if value is None else f"{value:.3f}"


def answer_cells(item: ItemLike) -> list[str]:
    """Choices picked ('a (key): 3; b: 1') and common wrong answers ('text: count; ...')."""
    choices = "; ".join(f"{c.id}{' (key)' if c.correct else ''}: {c.picked}" for c in item.choices)
    wrong = "; ".join(f"{text}: {n}" for text, n in item.common_wrong)
    return [choices, wrong]


def table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """The CSV text, each cell made safe for a spreadsheet."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(header)
    for cells in rows:
        writer.writerow([csv_cell(c) for c in cells])
    return out.getvalue()
