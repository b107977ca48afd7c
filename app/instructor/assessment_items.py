"""Which items of an assessment work: the quiz statistics, over the items each student drew.

An assessment draws items per student from pools, so an item's numbers are computed over the
students who were given it: its difficulty is their mean share of its points, its
discrimination the correlation of that share with their share of the rest of the assessment.
Reliability is Cronbach's alpha (KR-20 when every item is right or wrong) over *slots*: the
i-th item drawn from a pool counts as one item whichever it was (randomly parallel items), so
every student who handed in has a full row. The formulas are those of `item_stats`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.assessments.loader import find_exercise, find_question
from app.assessments.models import AssessmentAttempt
from app.assessments.schema import AssessmentFile, Item
from app.content.loader import Course
from app.instructor.item_stats import (
    TOP_WRONG,
    ChoiceCount,
    ItemStats,
    answer_text,
    correlation,
    cronbach_alpha,
    item_flags,
    kr20,
    upper_lower_index,
)
from app.offerings.access import students_here, work_here
from app.offerings.place import Place
from app.users.models import User

KR20 = "KR-20"
ALPHA = "Cronbach's alpha"


@dataclass(frozen=True)
class Sitting:
    """One student's handed-in attempt: the items drawn, in order, and how each went."""

    user_id: int
    keys: list[str]  # 'q:<lesson>/<id>' or 'x:<exercise>', in the attempt's order
    points: dict[str, float]
    shares: dict[str, float | None]  # share of the item's points earned; None while grading
    answers: dict[str, Any]  # a question's stored answer (choice ids, number or shape text)


@dataclass
class AssessmentItem(ItemStats):
    """One question's or exercise's statistics; `answered` counts the students given it."""

    key: str = ""
    part: str = ""
    points: float = 1.0


@dataclass
class AssessmentStats:
    """An assessment's items plus its reliability and how that was computed."""

    slug: str
    title: str
    students: int
    items: list[AssessmentItem]
    reliability: float | None
    reliability_method: str  # KR20 or ALPHA
    reliability_students: int  # handed in with every item graded
    reliability_note: str
    flags: list[str] = field(default_factory=list)


def sitting_of(attempt: AssessmentAttempt) -> Sitting:
    """The scores and answers a handed-in attempt stored (exercises: None until graded)."""
    results: dict[str, Any] = (attempt.results or {}).get("items", {})
    keys = [entry["key"] for entry in attempt.items]
    points = {entry["key"]: float(entry["points"]) for entry in attempt.items}
    shares: dict[str, float | None] = {}
    answers: dict[str, Any] = {}
    for key in keys:
        result = results.get(key) or {}
        score = result.get("score")
        shares[key] = None if score is None else float(score) / points[key]
        answers[key] = result.get("answer")
    return Sitting(attempt.user_id, keys, points, shares, answers)


def sittings(*, session: Session, slug: str, place: Place) -> list[Sitting]:
    """Each student's latest handed-in attempt at the assessment made in this request's offering
    (staff's own tries and a student's attempts in another offering left out)."""
    rows = session.scalars(
        select(AssessmentAttempt)
        .join(User, User.id == AssessmentAttempt.user_id)
        .where(
            AssessmentAttempt.assessment_slug == slug,
            AssessmentAttempt.status == "submitted",
            AssessmentAttempt.results.is_not(None),
            students_here(place),
            work_here(session, AssessmentAttempt.offering_id, place),
        )
        .order_by(AssessmentAttempt.user_id, AssessmentAttempt.number)
    )
    latest = {attempt.user_id: attempt for attempt in rows}  # the last one wins
    return [sitting_of(attempt) for attempt in latest.values()]


def _rest_share(sitting: Sitting, key: str) -> float | None:
    """The student's share of the points of their other graded items."""
    others = [k for k in sitting.keys if k != key and sitting.shares[k] is not None]
    possible = sum(sitting.points[k] for k in others)
    if not possible:
        return None
    return sum((sitting.shares[k] or 0.0) * sitting.points[k] for k in others) / possible


def _total_share(sitting: Sitting) -> float:
    """The student's share of the points of all their graded items (the key given is graded)."""
    graded = [k for k in sitting.keys if sitting.shares[k] is not None]
    possible = sum(sitting.points[k] for k in graded)
    return sum((sitting.shares[k] or 0.0) * sitting.points[k] for k in graded) / possible


def _describe(course: Course, item: Item, part: str) -> AssessmentItem:
    """The item's row before any numbers: what it is and what it is worth."""
    question = find_question(course, item)
    if question is not None:
        found = AssessmentItem(id=str(item.question), type=question.type, prompt=question.prompt)
        options = getattr(question, "choices", None) or []
        found.choices = [ChoiceCount(c.id, c.text, c.correct, 0) for c in options]
    elif item.exercise is not None:
        exercise = find_exercise(course, item)
        title = exercise.meta.title if exercise else "(no longer in the course)"
        found = AssessmentItem(id=item.exercise, type="exercise", prompt=title)
    else:
        found = AssessmentItem(id=str(item.question), type="question", prompt="(removed)")
    found.key, found.part, found.points = item.key, part, item.points
    return found


def _fill(row: AssessmentItem, given: Sequence[Sitting]) -> None:
    """Attempts, difficulty, discrimination, choices picked and common wrong answers.

    The upper-lower index ranks the students given the item by their share of the points of the
    whole assessment (this item included, as `total` in the quiz statistics) and compares their
    mean share of this item's points in the top 27% and the bottom 27%.
    """
    key = row.key
    row.answered = len(given)
    graded = [s for s in given if s.shares[key] is not None]
    if graded:
        row.difficulty = float(np.mean([s.shares[key] for s in graded]))
    pairs = [(s.shares[key], _rest_share(s, key)) for s in graded]
    kept = [(x, y) for x, y in pairs if y is not None]
    row.discrimination = correlation(
        np.array([x for x, _ in kept], dtype=float), np.array([y for _, y in kept], dtype=float)
    )
    row.upper_lower = upper_lower_index(
        np.array([s.shares[key] for s in graded], dtype=float),
        np.array([_total_share(s) for s in graded], dtype=float),
    )
    if row.choices:
        picked: Counter[str] = Counter()
        for s in given:
            answer = s.answers.get(key)
            picked.update([answer] if isinstance(answer, str) else list(answer or []))
        for choice in row.choices:
            choice.picked = picked[choice.id]
    elif row.type != "exercise":
        wrong = Counter(answer_text(s.answers.get(key)) for s in graded if not s.shares[key])
        row.common_wrong = wrong.most_common(TOP_WRONG)
    row.flags = item_flags(row, whole="assessment")


def _reliability(taken: Sequence[Sitting]) -> tuple[float | None, str, int]:
    """Alpha over slots (KR-20 when every score is 0 or full), and the students it counted."""
    lengths = Counter(len(s.keys) for s in taken)
    if not lengths:
        return None, KR20, 0
    slots = lengths.most_common(1)[0][0]  # an edited file: only the usual length counts
    full = [s for s in taken if len(s.keys) == slots and None not in s.shares.values()]
    if not full:
        return None, KR20, 0
    shares = np.array([[s.shares[k] for k in s.keys] for s in full], dtype=float)
    points = np.array([[s.points[k] for k in s.keys] for s in full], dtype=float)
    right_or_wrong = bool(np.isin(shares, (0.0, 1.0)).all())
    if right_or_wrong and bool((points == points[0, 0]).all()):
        return kr20(shares), KR20, len(full)
    return cronbach_alpha(shares * points), ALPHA, len(full)


def _note(spec: AssessmentFile, method: str) -> str:
    """How the reliability was computed, in the instructor's words."""
    slots = spec.item_count
    pooled = any(p.draw is not None and p.draw < len(p.items) for p in spec.parts)
    how = (
        f"over the {slots} items each student drew, slot by slot (the i-th item drawn from a "
        "pool counts as one item, whichever it was)"
        if pooled
        else f"over the {slots} items"
    )
    weights = "" if method == KR20 else ", each item weighted by its points"
    return f"{method} {how}{weights}"


def assessment_stats(
    *, spec: AssessmentFile, course: Course, taken: Sequence[Sitting]
) -> AssessmentStats:
    """Statistics of every item the assessment can draw, over the students' handed-in attempts."""
    rows: list[AssessmentItem] = []
    for part in spec.parts:
        rows.extend(_describe(course, item, part.title) for item in part.items)
    listed = {row.key for row in rows}
    for key in dict.fromkeys(k for s in taken for k in s.keys if k not in listed):
        item = Item(question=key[2:]) if key.startswith("q:") else Item(exercise=key[2:])
        rows.append(_describe(course, item, "(no longer in the file)"))
    for row in rows:
        _fill(row, [s for s in taken if row.key in s.shares])
    reliability, method, counted = _reliability(taken)
    return AssessmentStats(
        slug=spec.slug,
        title=spec.title,
        students=len(taken),
        items=rows,
        reliability=reliability,
        reliability_method=method,
        reliability_students=counted,
        reliability_note=_note(spec, method),
        flags=[f"{row.id}: {flag}" for row in rows for flag in row.flags],
    )


def stats_for(
    *, session: Session, spec: AssessmentFile, course: Course, place: Place
) -> AssessmentStats:
    """The assessment's item statistics from its stored attempts (this request's offering)."""
    return assessment_stats(
        spec=spec, course=course, taken=sittings(session=session, slug=spec.slug, place=place)
    )


def json_items(stats: AssessmentStats) -> dict[str, Any]:
    """The `stats items --assessment` shape: the quiz items' keys (with `upper_lower`), plus
    points and flags."""
    return {
        "assessment": stats.slug,
        "students": stats.students,
        "reliability": stats.reliability,
        "reliability_method": stats.reliability_method,
        "reliability_note": stats.reliability_note,
        "reliability_students": stats.reliability_students,
        "items": [
            {
                "item": row.id,
                "kind": "exercise" if row.type == "exercise" else "question",
                "part": row.part,
                "points": row.points,
                "attempts": row.answered,
                "difficulty": row.difficulty,
                "discrimination": row.discrimination,
                "upper_lower": row.upper_lower,
                "choices": {
                    c.id: (c.picked / row.answered if row.answered else 0.0) for c in row.choices
                },
                "common_wrong": [{"answer": text, "count": n} for text, n in row.common_wrong],
                "flags": row.flags,
            }
            for row in stats.items
        ],
    }
