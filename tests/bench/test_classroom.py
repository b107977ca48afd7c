"""The generated class behind `bench --scenario items`: real grading, answers like a class's."""

from __future__ import annotations

from pathlib import Path

from app.bench.classroom import simulate_class
from app.content.service import load_from_settings
from app.db import session_factory
from app.instructor.item_stats import latest_attempts, quiz_stats
from app.offerings.place import Place


def test_a_generated_class_is_graded_as_meant_and_its_quizzes_are_reliable(
    data_dir: Path,
) -> None:
    made = simulate_class({"APP_DATA_DIR": str(data_dir)}, 40)
    course = load_from_settings()
    quizzes = [les for les in course.lessons if les.meta.quiz]
    assert made["students"] == 40
    assert made["attempts"] == 40 * len(quizzes)
    # Every answer meant to be right was graded right and every wrong one wrong: the generator
    # gives the grader's own kind of answers (choice ids, numbers, shapes with the params filled).
    assert made["disagreements"] == []
    # Ability drives the answers, so each quiz's items hang together and discriminate.
    with session_factory()() as session:
        for lesson in quizzes:
            slug = lesson.meta.slug
            stats = quiz_stats(
                slug,
                lesson.meta.quiz,
                latest_attempts(session=session, lesson_slug=slug, place=Place(course)),
            )
            assert stats.students == 40
            assert stats.kr20 is not None and stats.kr20 > 0.3, (slug, stats.kr20)
            rs = sorted(i.discrimination for i in stats.items if i.discrimination is not None)
            assert rs and rs[len(rs) // 2] > 0, (slug, rs)
            # Wrong answers are spread over the kinds students give, not one fixed string.
            assert any(len(i.common_wrong) > 1 for i in stats.items if not i.choices) or all(
                i.choices for i in stats.items
            )
