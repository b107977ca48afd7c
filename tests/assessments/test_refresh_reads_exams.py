"""A course refresh serves the exam files as they are now: an instructor who moves an exam's
window (or fixes its title) in git and refreshes sees it at once, not after a restart."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.assessments.loader import assessments_for
from app.config import ROOT
from app.courses.registry import Registry
from app.courses.service import build_registry
from app.wiring import wire
from tests.assessments.conftest import write
from tests.assessments.world import midterm


def _title(registry: Registry) -> str:
    course = registry.content(registry.first_slug)
    assert course is not None
    spec = assessments_for(course).get("midterm")
    assert spec is not None
    return spec.title


def test_a_refresh_after_an_exam_file_changed_serves_the_new_file(course_root: Path) -> None:
    write(course_root, midterm())
    registry = build_registry()
    before = registry.version(registry.first_slug)
    assert _title(registry) == "Midterm"
    write(course_root, midterm(title="Midterm (moved)"))
    result = registry.refresh(registry.first_slug)
    assert result.applied and result.version != before  # the exam is part of the content
    assert _title(registry) == "Midterm (moved)"


def test_a_refresh_that_would_take_an_exams_question_away_is_refused(course_root: Path) -> None:
    """A lesson edited in git renames a question the midterm asks: the old version keeps
    serving, and the refusal names the exam file and the question."""
    wire()
    (course_root / "lessons").unlink()
    shutil.copytree(ROOT / "lessons", course_root / "lessons")
    write(course_root, midterm())
    registry = build_registry()
    assert _title(registry) == "Midterm"  # served
    lesson = course_root / "lessons" / "03-learned-absolute.md"
    lesson.write_text(
        lesson.read_text("utf-8").replace("id: table-shape", "id: table-size"), "utf-8"
    )
    result = registry.refresh(registry.first_slug)
    assert not result.applied
    said = [p for p in result.problems if p.path == "assessments/midterm.yaml"]
    assert said and "table-shape" in said[0].message, result.problems
    assert _title(registry) == "Midterm"  # still served
