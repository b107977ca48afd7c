"""`stats items` and `similarity`: how questions work and which submissions look alike."""

from __future__ import annotations

import argparse
import json
from typing import Any

from app.cli.common import fail


def cmd_stats_items(args: argparse.Namespace) -> int:
    """Print every quiz question's and exercise's statistics; the last line is JSON with --json."""
    if args.assessment is not None:
        return cmd_assessment_items(args)
    from app.content.service import load_from_settings
    from app.db import session_factory
    from app.instructor.item_stats import (
        exercise_items,
        latest_attempts,
        question_items,
        quiz_stats,
    )

    course = load_from_settings()
    lessons = [les for les in course.lessons if les.meta.quiz and not les.meta.draft]
    exercises = [ex.meta.slug for ex in course.exercises if not ex.meta.draft]
    items: list[dict[str, Any]] = []
    with session_factory()() as session:
        for lesson in lessons:
            slug = lesson.meta.slug
            attempts = latest_attempts(session=session, lesson_slug=slug)
            items += question_items(quiz_stats(slug, lesson.meta.quiz, attempts))
        items += exercise_items(
            session=session, slugs=exercises, quiz_lessons=[les.meta.slug for les in lessons]
        )
    for item in items:
        _print_item(item)
    if args.json:
        print(json.dumps(items))
    return 0


def _print_item(item: dict[str, Any]) -> None:
    share = "–" if item["difficulty"] is None else f"{item['difficulty']:.0%}"
    r = item["discrimination"]
    print(
        f"{item['item']}: {item['attempts']} student(s), {share} right, "
        f"discrimination {'–' if r is None else f'{r:.2f}'}"
    )


def cmd_assessment_items(args: argparse.Namespace) -> int:
    """Print one assessment's item statistics and reliability; the last line is JSON with --json."""
    from app.assessments.loader import assessments_for
    from app.content.service import load_from_settings
    from app.db import session_factory
    from app.instructor.assessment_items import json_items, stats_for

    course = load_from_settings()
    spec = assessments_for(course).get(args.assessment)
    if spec is None:
        return fail(f"there is no assessment called '{args.assessment}'")
    with session_factory()() as session:
        found = json_items(stats_for(session=session, spec=spec, course=course))
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
    from app.content.service import load_from_settings
    from app.db import session_factory
    from app.instructor.similarity import compare_exercise
    from app.instructor.similarity_routes import shared_code

    exercise = load_from_settings().exercise(args.exercise)
    if exercise is None:
        return fail(f"there is no exercise called '{args.exercise}'")
    with session_factory()() as session:
        comparison = compare_exercise(
            session=session, slug=exercise.meta.slug, shared_code=shared_code(exercise)
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
    items.set_defaults(func=cmd_stats_items, needs_database=True)
    similar = sub.add_parser(
        "similarity", help="pairs of students' final submissions that look alike"
    )
    similar.add_argument("exercise", help="the exercise's slug")
    similar.add_argument("--top", type=int, default=20, help="pairs printed before the JSON")
    similar.add_argument("--json", action="store_true", help="end with one line of JSON")
    similar.set_defaults(func=cmd_similarity, needs_database=True)
