"""`stats items`: which quiz questions and exercises work, for scripts and spreadsheets."""

from __future__ import annotations

import argparse
import json
from typing import Any


def cmd_stats_items(args: argparse.Namespace) -> int:
    """Print every quiz question's and exercise's statistics; the last line is JSON with --json."""
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
        share = "–" if item["difficulty"] is None else f"{item['difficulty']:.0%}"
        r = item["discrimination"]
        print(
            f"{item['item']}: {item['attempts']} student(s), {share} right, "
            f"discrimination {'–' if r is None else f'{r:.2f}'}"
        )
    if args.json:
        print(json.dumps(items))
    return 0


def add_parser(sub: Any) -> None:
    """Register `stats` and its sub-command."""
    stats = sub.add_parser("stats", help="item statistics of quizzes and exercises")
    stats_sub = stats.add_subparsers(dest="stats_command", required=True)
    items = stats_sub.add_parser(
        "items", help="difficulty, discrimination and options picked, per question and exercise"
    )
    items.add_argument("--json", action="store_true", help="end with one line of JSON")
    items.set_defaults(func=cmd_stats_items, needs_database=True)
