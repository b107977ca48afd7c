"""What the exam and result pages show: questions without answers, saved values, the clock."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from app.assessments.loader import find_exercise, find_question
from app.assessments.models import AssessmentAnswer, AssessmentAttempt
from app.assessments.schema import AssessmentFile
from app.assessments.scoring import item_of, question_params, released
from app.assessments.service import Window
from app.content.loader import Course
from app.models_base import as_utc
from app.quiz.views import QuestionView, question_view


@dataclass(frozen=True)
class ItemView:
    """One item of the exam page: a question's form, or an exercise's statement and editor."""

    key: str
    index: int
    number: int
    part: str
    points: float
    question: QuestionView | None
    exercise_title: str
    statement_html: str
    frameworks: list[str]
    saved: Any
    code: str
    framework: str


def item_views(
    *,
    course: Course,
    spec: AssessmentFile,
    attempt: AssessmentAttempt,
    answers: dict[str, AssessmentAnswer],
) -> list[ItemView]:
    """Every drawn item with what the student saved so far (prompts only, never answers)."""
    views: list[ItemView] = []
    for index, entry in enumerate(attempt.items):
        key = entry["key"]
        part = spec.parts[entry["part"]].title if entry["part"] < len(spec.parts) else ""
        saved = answers[key].value if key in answers else None
        item = item_of(key)
        question = find_question(course, item)
        qview = None
        title, statement, frameworks, code, framework = "", "", [], "", ""
        if question is not None:
            qview = question_view(question, index + 1, question_params(attempt, question))
        else:
            exercise = find_exercise(course, item)
            if exercise is None:
                continue
            title, statement = exercise.meta.title, exercise.statement_html
            frameworks = [str(fw) for fw in exercise.meta.frameworks]
            framework = (saved or {}).get("framework") or exercise.meta.default_framework
            code = (saved or {}).get("code") or exercise.starters.get(framework, "")
        views.append(
            ItemView(
                key,
                index,
                index + 1,
                part,
                entry["points"],
                qview,
                title,
                statement,
                frameworks,
                saved,
                code,
                framework,
            )
        )
    return views


def picked(saved: Any) -> list[str]:
    """The option ids a saved answer holds (to tick the boxes again after a reload)."""
    if isinstance(saved, str):
        return [saved]
    return [s for s in saved if isinstance(s, str)] if isinstance(saved, list) else []


def attempt_state(
    attempt: AssessmentAttempt, answers: dict[str, AssessmentAnswer], now: dt.datetime
) -> dict[str, Any]:
    """The API view of an attempt: its clock, its items and every saved answer."""
    deadline = as_utc(attempt.deadline)
    shown = released(attempt, now)
    results = (attempt.results or {}).get("items", {}) if shown else {}
    return {
        "id": attempt.id,
        "assessment": attempt.assessment_slug,
        "number": attempt.number,
        "status": attempt.status,
        "started_at": as_utc(attempt.started_at).isoformat(),
        "deadline": deadline.isoformat(),
        "now": now.isoformat(),
        "seconds_left": max(0, int((deadline - now).total_seconds()))
        if attempt.status == "open"
        else 0,
        "submitted_at": as_utc(attempt.submitted_at).isoformat() if attempt.submitted_at else None,
        "submitted_by": attempt.submitted_by,
        "items": [item["key"] for item in attempt.items],
        "answers": {key: row.value for key, row in answers.items()},
        "released": shown,
        "release_at": as_utc(attempt.release_at).isoformat() if attempt.release_at else None,
        "score": attempt.score if shown else None,
        "results": {
            key: {"score": r.get("score"), "points": r.get("points"), "correct": r.get("correct")}
            for key, r in results.items()
        },
    }


def window_view(window: Window, spec: AssessmentFile) -> dict[str, Any]:
    """The student's own window and time limit, as the start page states them."""
    limit = spec.time_limit_minutes
    return {
        "opens": window.opens,
        "closes": window.closes,
        "limit": None if limit is None else limit + window.extra_minutes,
        "extra": window.extra_minutes,
    }
