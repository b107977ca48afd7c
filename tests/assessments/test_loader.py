"""The assessment file format: the shipped exam loads; each mistake is refused by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.assessments.loader import load_assessments
from app.authoring.validate import validate_course
from app.config import ROOT
from app.content.loader import Course
from app.content.service import load_from_settings
from tests.assessments.conftest import exam, write


def problems(root: Path, *specs: dict[str, Any]) -> list[str]:
    for spec in specs:
        write(root, spec)
    found = load_assessments(root, load_from_settings())
    return [f"{p.path}: {p.message}" for p in found.problems]


def test_the_shipped_midterm_loads_with_real_items(course_root: Path) -> None:
    found = load_assessments(ROOT, load_from_settings())
    assert found.problems == []
    midterm = found.by_slug["midterm"]
    assert midterm.kind == "exam" and midterm.item_count == 6
    assert [p.draw for p in midterm.parts] == [3, 2, 1]


def test_drawing_more_than_the_pool_holds_is_refused(course_root: Path) -> None:
    spec = exam()
    spec["parts"][0]["draw"] = 4
    assert problems(course_root, spec) == [
        "assessments/quick.yaml: parts.0: Value error, part 'Tables' draws 4 items but its pool "
        "holds only 3"
    ]


def test_a_time_limit_longer_than_the_window_is_refused(course_root: Path) -> None:
    [message] = problems(course_root, exam(time_limit_minutes=121))
    assert "the time limit (121 minutes) is longer than the window from 'opens' to 'closes' " in (
        message
    )
    assert "(120 minutes)" in message


def test_unknown_questions_lessons_exercises_and_labs_are_named(course_root: Path) -> None:
    spec = exam()
    spec["parts"][0]["items"] = [
        {"question": "learned-absolute/no-such-question"},
        {"question": "no-such-lesson/table-shape"},
        {"exercise": "no-such-exercise"},
        {"exercise": "lab-learned-vs-sinusoidal"},
    ]
    assert problems(course_root, spec) == [
        "assessments/quick.yaml: question 'learned-absolute/no-such-question': the lesson's quiz "
        "has no such question",
        "assessments/quick.yaml: question 'no-such-lesson/table-shape': there is no such lesson",
        "assessments/quick.yaml: exercise 'no-such-exercise': there is no such exercise",
        "assessments/quick.yaml: exercise 'lab-learned-vs-sinusoidal': a lab is practice only "
        "and cannot be graded",
    ]


def test_overlapping_exam_windows_are_refused_but_homework_may_overlap(course_root: Path) -> None:
    first, second = exam("first"), exam("second")
    homework = exam("weekly", kind="homework")
    found = problems(course_root, first, second, homework)
    assert len(found) == 1
    assert found[0].startswith("assessments/second.yaml: its window (")
    assert "overlaps the exam 'first'" in found[0]


def test_typos_wrong_names_and_missing_time_zones_are_refused(course_root: Path) -> None:
    typo = exam("typo", time_limit=30)
    named = exam("named")
    both = exam("both")
    both["parts"][0]["items"].append({"question": "why-position/dog-bites-man", "exercise": "x"})
    naive = exam("naive", opens="2026-12-01T09:00:00", closes="2026-12-01T12:00:00")
    twice = exam("twice")
    twice["parts"][0]["items"].append({"question": "learned-absolute/table-shape"})
    write(course_root, named, name="other-name")
    found = problems(course_root, typo, both, naive, twice)
    text = "\n".join(found)
    assert "assessments/typo.yaml: time_limit: Extra inputs are not permitted" in text
    assert "slug 'named' must equal the file name 'other-name'" in text
    assert "an item names exactly one of 'question' or 'exercise'" in text
    assert "'opens' needs a time zone" in text
    assert "'learned-absolute/table-shape' is listed twice" in text
    assert len(found) == 5


def test_validate_reports_broken_assessment_files(course_root: Path) -> None:
    spec = exam()
    spec["parts"][0]["draw"] = 9
    write(course_root, spec)
    summary = validate_course(grade=False)
    assert summary["assessments"] == 0
    assert [p["path"] for p in summary["problems"]] == ["assessments/quick.yaml"]


def test_an_empty_course_has_no_assessments(tmp_path: Path) -> None:
    assert load_assessments(tmp_path, Course()).by_slug == {}
