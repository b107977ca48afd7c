"""A course refresh serves the exam files as they are now: an instructor who moves an exam's
window (or fixes its title) in git and refreshes sees it at once, not after a restart."""

from __future__ import annotations

from pathlib import Path

from app.assessments.loader import assessments_for
from app.courses.registry import Registry
from app.courses.service import build_registry
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
