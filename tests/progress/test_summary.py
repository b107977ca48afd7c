"""The pure parts of progress: course order, the next step, and how times are labelled."""

from __future__ import annotations

import datetime as dt

from app.config import ROOT
from app.content.loader import load_course
from app.progress.summary import Kind, course_sequence, next_step
from app.submissions.attempts import iso_utc, relative_label
from app.submissions.presenter import verdict_label

SEQ: list[tuple[Kind, str, str]] = [
    ("lesson", "a", "Lesson A"),
    ("exercise", "x", "Exercise X"),
    ("lesson", "b", "Lesson B"),
    ("exercise", "y", "Exercise Y"),
]


def test_course_order_puts_each_lessons_exercises_after_it() -> None:
    course = load_course(ROOT / "lessons", ROOT / "exercises")
    order = [(kind, slug) for kind, slug, _ in course_sequence(course.lessons, course.exercises)]
    assert order.index(("exercise", "position-embedding-gather")) == (
        order.index(("lesson", "learned-absolute")) + 1
    )
    start = order.index(("lesson", "beyond-absolute"))
    assert order[start + 1 : start + 3] == [("exercise", "rope-rotate"), ("exercise", "alibi-bias")]
    assert len(order) == len(course.lessons) + len(course.exercises)


def test_unsolved_latest_exercise_comes_first() -> None:
    step = next_step(SEQ, {("lesson", "a"), ("lesson", "b")}, ("exercise", "x"))
    assert step is not None and step.url == "/exercises/x"
    assert step.reason == "You were working on"


def test_next_step_wraps_around_to_earlier_unfinished_work() -> None:
    done: set[tuple[Kind, str]] = {("lesson", "b"), ("exercise", "y"), ("lesson", "a")}
    step = next_step(SEQ, done, ("exercise", "y"))
    assert step is not None
    assert (step.kind, step.slug, step.title) == ("exercise", "x", "Exercise X")


def test_nothing_left_means_no_next_step() -> None:
    done = {(kind, slug) for kind, slug, _ in SEQ}
    assert next_step(SEQ, done, ("lesson", "a")) is None
    first = next_step(SEQ, set(), None)
    assert first is not None and first.url == "/lessons/a" and first.reason == "Start here"


def test_times_are_exact_utc_with_a_rough_age() -> None:
    now = dt.datetime(2025, 5, 10, 12, 0, tzinfo=dt.UTC)
    naive = dt.datetime(2025, 5, 10, 11, 59, 30)  # what SQLite hands back
    assert iso_utc(naive) == "2025-05-10T11:59:30Z"
    cases = {
        dt.timedelta(seconds=30): "just now",
        dt.timedelta(minutes=1): "1 minute ago",
        dt.timedelta(minutes=59): "59 minutes ago",
        dt.timedelta(hours=2): "2 hours ago",
        dt.timedelta(days=1, hours=3): "1 day ago",
        dt.timedelta(days=65): "2 months ago",
        dt.timedelta(days=800): "2 years ago",
    }
    for age, label in cases.items():
        assert relative_label(now - age, now) == label


def test_verdicts_read_as_words() -> None:
    assert verdict_label("time_limit_exceeded", status="done") == "Time limit exceeded"
    assert verdict_label(None, status="queued") == "Waiting to be graded"
    assert verdict_label(None, status="running") == "Being graded"
