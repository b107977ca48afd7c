"""`stats items` and `similarity`: how questions work and which submissions look alike."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from app.cli.common import fail

if TYPE_CHECKING:
    from app.content.loader import Course
    from app.offerings.place import Place


def _scope(args: argparse.Namespace) -> Place:
    """The course `--course` names (default: the first) and the offering `--offering` names,
    once that offering is known to run it (passed to the statistics as their place).

    Why: scripts name the course and the offering as on the instructors' pages
    (`/offerings/{id}/instructor/...`); the statistics then read that offering's students only.
    """
    from app.courses.service import process_registry
    from app.db import session_factory
    from app.offerings.models import Offering
    from app.offerings.place import Place

    slug = args.course or process_registry().first_slug
    course = process_registry().content(slug)  # the first course too: it knows its slug
    if course is None:
        known = ", ".join(process_registry().slugs())
        raise CommandError(f"unknown course '{args.course}' (courses: {known})", 2)
    if args.offering is None:
        return Place(course)
    with session_factory()() as session:
        offering = session.get(Offering, args.offering)
        if offering is None:
            raise CommandError(f"there is no offering {args.offering}", 2)
        if offering.course_slug != slug:
            raise CommandError(
                f"offering {args.offering} runs the course '{offering.course_slug}', not "
                f"'{slug}': name that course with --course",
                2,
            )
    return Place(course, args.offering)


class CommandError(Exception):
    """A bad `--course` or `--offering`: the message and the exit status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message, self.status = message, status


def cmd_stats_items(args: argparse.Namespace) -> int:
    """Print every quiz question's and exercise's statistics; the last line is JSON with --json."""
    from app.db import session_factory

    try:
        place = _scope(args)
    except CommandError as exc:
        return fail(exc.message, exc.status)
    if args.assessment is not None:
        return cmd_assessment_items(args, place.course, place)
    return _quiz_and_exercise_items(args, place.course, session_factory, place)


def _quiz_and_exercise_items(
    args: argparse.Namespace, course: Course, session_factory: Any, place: Place
) -> int:
    """Every quiz question's and exercise's statistics in the place's offering."""
    from app.instructor.item_stats import (
        exercise_items,
        latest_attempts,
        question_items,
        quiz_stats,
    )

    lessons = [les for les in course.lessons if les.meta.quiz and not les.meta.draft]
    exercises = [ex.meta.slug for ex in course.exercises if not ex.meta.draft]
    items: list[dict[str, Any]] = []
    with session_factory()() as session:
        for lesson in lessons:
            slug = lesson.meta.slug
            attempts = latest_attempts(session=session, lesson_slug=slug, place=place)
            items += question_items(quiz_stats(slug, lesson.meta.quiz, attempts))
        items += exercise_items(
            session=session,
            slugs=exercises,
            quiz_lessons=[les.meta.slug for les in lessons],
            place=place,
        )
    for item in items:
        _print_item(item)
    if args.json:
        print(json.dumps(items))
    return 0


def _print_item(item: dict[str, Any]) -> None:
    share = "–" if item["difficulty"] is None else f"{item['difficulty']:.0%}"
    r, ul = item["discrimination"], item["upper_lower"]
    print(
        f"{item['item']}: {item['attempts']} student(s), {share} right, "
        f"discrimination {'–' if r is None else f'{r:.2f}'}, "
        f"upper-lower {'–' if ul is None else f'{ul:.2f}'}"
    )


def cmd_assessment_items(args: argparse.Namespace, course: Course, place: Place) -> int:
    """Print one assessment's item statistics and reliability; the last line is JSON with --json."""
    from app.assessments.loader import assessments_for
    from app.db import session_factory
    from app.instructor.assessment_items import json_items, stats_for

    spec = assessments_for(course).get(args.assessment)
    if spec is None:
        return fail(f"there is no assessment called '{args.assessment}'")
    with session_factory()() as session:
        found = json_items(stats_for(session=session, spec=spec, course=course, place=place))
    reliability = found["reliability"]
    print(
        f"{spec.slug}: {found['students']} student(s); reliability "
        f"{'–' if reliability is None else f'{reliability:.2f}'} ({found['reliability_note']}; "
        f"{found['reliability_students']} student(s) with every item graded)"
    )
    for item in found["items"]:
        _print_item(item)
        for flag in item["flags"]:
            print(f"  flag: {flag}")
    if args.json:
        print(json.dumps(found))
    return 0


def cmd_similarity(args: argparse.Namespace) -> int:
    """Print the exercise's most similar pairs; the last line is JSON with --json."""
    from app.db import session_factory
    from app.instructor.similarity import compare_exercise
    from app.instructor.similarity_routes import shared_code

    try:
        place = _scope(args)
    except CommandError as exc:
        return fail(exc.message, exc.status)
    exercise = place.course.exercise(args.exercise)
    if exercise is None:
        return fail(f"there is no exercise called '{args.exercise}'")
    with session_factory()() as session:
        comparison = compare_exercise(
            session=session, slug=exercise.meta.slug, shared_code=shared_code(exercise), place=place
        )
    pairs = sorted(
        (p for group in comparison.pairs.values() for p in group), key=lambda p: -p.score
    )
    print(
        f"{comparison.finals} final submission(s) of {exercise.meta.slug}; {len(pairs)} pair(s) "
        "share code beyond the starter, the model solution and what most wrote "
        "(leads to read, not findings)"
    )
    for p in pairs[: args.top]:
        a, b = p.a, p.b
        print(f"  {p.score:.0%}  {a.name} ({a.submission_id}) ~ {b.name} ({b.submission_id})")
    if args.json:
        rows = [
            {"a": p.a.submission_id, "b": p.b.submission_id, "score": round(p.score, 4)}
            for p in pairs
        ]
        print(json.dumps(rows))
    return 0


def _add_scope_arguments(parser: Any) -> None:
    parser.add_argument("--course", default=None, help="the course's slug (default: the first)")
    parser.add_argument(
        "--offering",
        type=int,
        default=None,
        metavar="ID",
        help="that offering's students only (default: the course's first offering)",
    )


def add_parser(sub: Any) -> None:
    """Register `stats`, its sub-command, and `similarity`."""
    stats = sub.add_parser("stats", help="item statistics of quizzes and exercises")
    stats_sub = stats.add_subparsers(dest="stats_command", required=True)
    items = stats_sub.add_parser(
        "items", help="difficulty, discrimination and options picked, per question and exercise"
    )
    items.add_argument("--json", action="store_true", help="end with one line of JSON")
    items.add_argument(
        "--assessment",
        metavar="SLUG",
        default=None,
        help="one assessment's items (over the items each student drew) and its reliability",
    )
    _add_scope_arguments(items)
    items.set_defaults(func=cmd_stats_items, needs_database=True)
    similar = sub.add_parser(
        "similarity", help="pairs of students' final submissions that look alike"
    )
    similar.add_argument("exercise", help="the exercise's slug")
    similar.add_argument("--top", type=int, default=20, help="pairs printed before the JSON")
    similar.add_argument("--json", action="store_true", help="end with one line of JSON")
    _add_scope_arguments(similar)
    similar.set_defaults(func=cmd_similarity, needs_database=True)
