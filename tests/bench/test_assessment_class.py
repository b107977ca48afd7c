"""A generated class sits the shipped midterm: every student's draw is stored and counted."""

from __future__ import annotations

from pathlib import Path

from app.assessments.loader import assessments_for
from app.bench.assessment_class import simulate_assessment
from app.content.service import load_from_settings
from app.db import session_factory
from app.instructor.assessment_items import stats_for
from app.offerings.place import Place


def test_a_generated_class_sits_the_midterm_and_its_items_hang_together(data_dir: Path) -> None:
    made = simulate_assessment({"APP_DATA_DIR": str(data_dir)}, 60)
    assert made == {"students": 60}
    course = load_from_settings()
    spec = assessments_for(course).get("midterm")
    assert spec is not None
    with session_factory()() as session:
        stats = stats_for(session=session, spec=spec, course=course, place=Place(course))
    assert stats.students == 60 and stats.reliability_students == 60
    by_part: dict[str, int] = {}
    for item in stats.items:
        by_part[item.part] = by_part.get(item.part, 0) + item.answered
    # Each student drew 3 absolute-position questions, 2 relative ones and 1 exercise.
    assert list(by_part.values()) == [3 * 60, 2 * 60, 60]
    assert stats.reliability is not None and stats.reliability > 0.3
    assert stats.reliability_method == "Cronbach's alpha"  # the exercises give partial scores
