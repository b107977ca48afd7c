"""The real course: every exercise names its lesson, and exercises follow the lessons' order."""

from __future__ import annotations

from app.config import ROOT
from app.content.loader import load_course


def test_every_exercise_links_an_existing_lesson() -> None:
    course = load_course(ROOT / "lessons", ROOT / "exercises")
    slugs = {les.meta.slug for les in course.lessons}
    for ex in course.exercises:
        assert ex.meta.lesson in slugs, f"{ex.meta.slug} links {ex.meta.lesson!r}"


def test_exercise_order_follows_lesson_order() -> None:
    course = load_course(ROOT / "lessons", ROOT / "exercises")
    rank = {les.meta.slug: i for i, les in enumerate(course.lessons)}
    ranks = [rank[ex.meta.lesson] for ex in course.exercises if ex.meta.lesson]
    assert ranks == sorted(ranks), [ex.meta.slug for ex in course.exercises]


def test_no_two_exercises_share_an_order() -> None:
    course = load_course(ROOT / "lessons", ROOT / "exercises")
    orders = [ex.meta.order for ex in course.exercises]
    assert len(orders) == len(set(orders)), orders


def test_each_lab_belongs_to_the_lesson_that_shows_it() -> None:
    course = load_course(ROOT / "lessons", ROOT / "exercises")
    for lesson in course.lessons:
        for slug in lesson.meta.labs:
            exercise = course.exercise(slug)
            assert exercise is not None and exercise.meta.lesson == lesson.meta.slug, slug
