"""The bench's content: every exam window moved to 2099, the courses otherwise the same."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from app.assessments.loader import load_assessments
from app.bench.content import QUIET_OPENS, quiet_content
from app.content.loader import load_course
from tests.bench.open_exam import ROOT, open_exam_content

HOURS = dt.timedelta(hours=1)


def _loaded(folder: Path) -> tuple[object, object]:
    course = load_course(folder / "lessons", folder / "exercises")
    found = load_assessments(folder, course)
    return found, course


def test_an_open_exam_is_moved_whole_and_the_lessons_are_the_shipped_ones(tmp_path: Path) -> None:
    source = open_exam_content(tmp_path / "exam-day")
    mirror = quiet_content(source, tmp_path / "quiet")
    found, _ = _loaded(mirror)
    assert found.problems == []
    midterm = found.get("midterm")
    assert midterm is not None
    assert (midterm.opens, midterm.closes) == (QUIET_OPENS, QUIET_OPENS + 3 * HOURS)
    assert midterm.time_limit_minutes == 90
    shipped, _ = _loaded(source)
    assert midterm.parts == shipped.get("midterm").parts  # the same questions, only later
    assert (mirror / "lessons").resolve() == ROOT / "lessons"
    assert (mirror / "courses" / "attention-step-by-step" / "course.yaml").resolve() == (
        ROOT / "courses" / "attention-step-by-step" / "course.yaml"
    )


def test_a_further_courses_exam_keeps_its_length_and_its_dated_release(tmp_path: Path) -> None:
    source = tmp_path / "source"
    (source / "courses" / "second" / "assessments").mkdir(parents=True)
    text = (
        "slug: final\n"
        "opens: '2026-11-27 08:00:00+01:00'  # local time\n"
        'closes: "2026-11-27T12:00:00Z"\n'
        "time_limit_minutes: 200\n"
        "release: 2026-11-28T09:30:00Z\n"
        "parts:\n  - title: A\n    items:\n      - exercise: x\n"
        "        opens: 2001-01-01T00:00:00Z\n"
    )
    (source / "courses" / "second" / "assessments" / "final.yaml").write_text(text)
    (source / "courses" / "second" / "assessments" / "notes.txt").write_text("kept\n")
    mirror = quiet_content(source, tmp_path / "quiet")
    moved = (mirror / "courses" / "second" / "assessments" / "final.yaml").read_text()
    assert "opens: 2099-12-14T09:00:00Z" in moved
    assert "closes: 2099-12-14T14:00:00Z" in moved  # five hours after, as before
    assert "release: 2099-12-15T11:30:00Z" in moved  # 25.5 hours after it opens, as before
    assert "time_limit_minutes: 200" in moved
    assert "        opens: 2001-01-01T00:00:00Z" in moved  # an item's own key is not the exam's
    assert (mirror / "courses" / "second" / "assessments" / "notes.txt").read_text() == "kept\n"


def test_a_file_without_a_time_is_copied_as_it_is_for_the_loader_to_report(tmp_path: Path) -> None:
    source = tmp_path / "source"
    (source / "assessments").mkdir(parents=True)
    text = "slug: broken\nopens: next tuesday\ncloses: 2026-12-01T10:00:00Z\n"
    (source / "assessments" / "broken.yaml").write_text(text)
    mirror = quiet_content(source, tmp_path / "quiet")
    assert (mirror / "assessments" / "broken.yaml").read_text() == text
