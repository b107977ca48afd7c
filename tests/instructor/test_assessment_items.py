"""Assessment item statistics against numbers worked out by hand, over items drawn from pools."""

from __future__ import annotations

import math
from typing import Any

import pytest

from app.assessments.schema import AssessmentFile
from app.config import ROOT
from app.content.loader import Course, load_course
from app.instructor.assessment_items import (
    ALPHA,
    KR20,
    AssessmentItem,
    Sitting,
    assessment_stats,
    json_items,
)
from app.instructor.item_stats import MIN_FOR_FLAGS

Q1 = "q:why-position/dog-bites-man"  # single choice, key 'identical'
Q2 = "q:learned-absolute/table-shape"  # shape
Q3 = "q:learned-absolute/bert-base-params"  # numeric
X = "x:position-embedding-gather"  # an exercise worth 2 points, partly passed


def _spec(*, with_code: bool = True) -> AssessmentFile:
    parts: list[dict[str, Any]] = [
        {
            "title": "Questions",
            "draw": 2,
            "items": [{"question": key[2:]} for key in (Q1, Q2, Q3)],
        }
    ]
    if with_code:
        parts.append({"title": "Code", "items": [{"exercise": X[2:], "points": 2}]})
    return AssessmentFile.model_validate(
        {
            "slug": "tiny",
            "title": "Tiny",
            "kind": "exam",
            "opens": "2026-01-01T09:00:00Z",
            "closes": "2026-01-01T12:00:00Z",
            "parts": parts,
        }
    )


@pytest.fixture(scope="module")
def course() -> Course:
    """The shipped lessons and exercises (the items' prompts, choices and titles)."""
    return load_course(ROOT / "lessons", ROOT / "exercises")


def _sitting(user: int, marks: dict[str, tuple[float | None, Any]]) -> Sitting:
    """A handed-in attempt: per drawn item, its share of the points and the answer stored."""
    points = {key: 2.0 if key == X else 1.0 for key in marks}
    return Sitting(
        user_id=user,
        keys=list(marks),
        points=points,
        shares={key: share for key, (share, _) in marks.items()},
        answers={key: answer for key, (_, answer) in marks.items()},
    )


# Four students; each draws two of Q1..Q3 and does the 2-point exercise X (1 = all its tests).
#   S1: Q1 right, Q2 right, X 1.0      S2: Q1 right, Q3 wrong, X 0.5
#   S3: Q1 wrong, Q2 wrong, X 0.5      S4: Q2 right, Q3 wrong, X 0.0
# Worked by hand (rest share = points earned on the student's other items / their points):
#   Q1 (S1, S2, S3): right (1, 1, 0), rest (3/3, 1/3, 1/3); r = (2/9) / sqrt(2/3 * 8/27) = 0.5
#   Q2 (S1, S3, S4): right (1, 0, 1), rest (3/3, 1/3, 0); r = (1/9) / sqrt(2/3 * 14/27)
#     = 1 / sqrt(28) = 0.188982
#   Q3 (S2, S4): both wrong, so difficulty 0 and r undefined (None)
#   X (all): shares (1, .5, .5, 0), rest (2/2, 1/2, 0/2, 1/2); r = .25 / sqrt(.5 * .5) = 0.5
#   Reliability, slot by slot in points: rows (1,1,2) (1,0,1) (0,0,1) (1,0,0); column variances
#   .1875 + .1875 + .5 = .875; totals (4,2,1,1) have variance 1.5;
#   alpha = 3/2 * (1 - .875 / 1.5) = 0.625. Questions only, rows (1,1) (1,0) (0,0) (1,0):
#   KR-20 = 2 * (1 - (.1875 + .1875) / .5) = 0.5.
# Upper-lower, ranking those given the item by their share of all their points (totals: S1 4/4,
# S2 2/4, S3 1/4, S4 1/4), 27% of the group rounded half up (3 or 4 -> 1, 2 -> 1):
#   Q1 (S1, S2, S3): top S1 (1) minus bottom S3 (0) = 1.0
#   Q2 (S1, S3, S4): top S1 (1); S3 and S4 tie at 1/4 for the bottom place, each counts 1/2:
#     (0 + 1) / 2 = 0.5, so 1 - 0.5 = 0.5
#   Q3 (S2, S4): top S2 (0) minus bottom S4 (0) = 0.0
#   X (all): top S1 (1.0); S3 (.5) and S4 (0) tie for the bottom place: .25, so 0.75
CLASS = [
    _sitting(1, {Q1: (1.0, "identical"), Q2: (1.0, "(max_len, d_model)"), X: (1.0, None)}),
    _sitting(2, {Q1: (1.0, "identical"), Q3: (0.0, "393216000"), X: (0.5, None)}),
    _sitting(3, {Q1: (0.0, "random"), Q2: (0.0, "(d_model, max_len)"), X: (0.5, None)}),
    _sitting(4, {Q2: (1.0, "(max_len, d_model)"), Q3: (0.0, "393216000"), X: (0.0, None)}),
]


def _by_key(items: list[AssessmentItem]) -> dict[str, AssessmentItem]:
    return {item.key: item for item in items}


def test_each_statistic_matches_the_hand_computation(course: Course) -> None:
    stats = assessment_stats(spec=_spec(), course=course, taken=CLASS)
    items = _by_key(stats.items)
    assert stats.students == 4
    assert [items[k].answered for k in (Q1, Q2, Q3, X)] == [3, 3, 2, 4]
    assert items[Q1].difficulty == pytest.approx(2 / 3)
    assert items[Q2].difficulty == pytest.approx(2 / 3)
    assert items[Q3].difficulty == 0.0
    assert items[X].difficulty == pytest.approx(0.5)
    assert items[Q1].discrimination == pytest.approx(0.5)
    assert items[Q2].discrimination == pytest.approx(1 / math.sqrt(28))
    assert items[Q3].discrimination is None
    assert items[X].discrimination == pytest.approx(0.5)
    assert [items[k].upper_lower for k in (Q1, Q2, Q3, X)] == pytest.approx([1.0, 0.5, 0.0, 0.75])
    picked = {c.id: c.picked for c in items[Q1].choices}
    assert picked == {"identical": 2, "different-role": 0, "same-row": 0, "random": 1}
    assert items[Q2].common_wrong == [("(d_model, max_len)", 1)]
    assert items[Q3].common_wrong == [("393216000", 2)]
    assert items[X].choices == [] and items[X].common_wrong == []
    assert stats.reliability_method == ALPHA
    assert stats.reliability == pytest.approx(0.625)
    assert stats.reliability_students == 4
    assert (
        "slot by slot" in stats.reliability_note
        and "weighted by its points" in stats.reliability_note
    )
    assert all(item.flags == [] for item in stats.items)  # fewer than MIN_FOR_FLAGS students


def test_upper_lower_ties_at_the_edge_share_the_place_whatever_the_order(course: Course) -> None:
    """S3 and S4 tie for the bottom 27% of Q2 and X: each counts half, in either order."""
    forwards = _by_key(assessment_stats(spec=_spec(), course=course, taken=CLASS).items)
    backwards = _by_key(assessment_stats(spec=_spec(), course=course, taken=CLASS[::-1]).items)
    assert forwards[Q2].upper_lower == backwards[Q2].upper_lower == pytest.approx(0.5)
    assert forwards[X].upper_lower == backwards[X].upper_lower == pytest.approx(0.75)


def test_right_or_wrong_items_of_equal_points_give_kr20(course: Course) -> None:
    questions_only = [
        _sitting(s.user_id, {k: (s.shares[k], s.answers[k]) for k in s.keys if k != X})
        for s in CLASS
    ]
    stats = assessment_stats(spec=_spec(with_code=False), course=course, taken=questions_only)
    assert stats.reliability_method == KR20
    assert stats.reliability == pytest.approx(0.5)


def test_an_exercise_still_grading_counts_as_drawn_but_not_in_the_numbers(course: Course) -> None:
    waiting = _sitting(5, {Q2: (1.0, "(max_len, d_model)"), Q3: (1.0, "393216"), X: (None, None)})
    stats = assessment_stats(spec=_spec(), course=course, taken=[*CLASS, waiting])
    items = _by_key(stats.items)
    assert items[X].answered == 5 and items[X].difficulty == pytest.approx(0.5)
    assert items[X].discrimination == pytest.approx(0.5)  # the same four students as above
    assert items[X].upper_lower == pytest.approx(0.75)
    assert stats.reliability_students == 4 and stats.reliability == pytest.approx(0.625)


def test_flags_negative_discrimination_and_a_distractor_nobody_picks(course: Course) -> None:
    taken = []
    for n in range(MIN_FOR_FLAGS):
        strong = n % 2 == 0  # strong students do the exercise and miss Q1 (they pick 'random')
        taken.append(
            _sitting(
                n,
                {
                    Q1: (0.0, "random") if strong else (1.0, "identical"),
                    Q2: (1.0, "(max_len, d_model)") if strong else (0.0, "(d_model, max_len)"),
                    X: (1.0 if strong else 0.0, None),
                },
            )
        )
    stats = assessment_stats(spec=_spec(), course=course, taken=taken)
    items = _by_key(stats.items)
    assert items[Q1].discrimination == pytest.approx(-1.0)
    assert any("negative discrimination" in f and "assessment" in f for f in items[Q1].flags)
    assert any("nobody picked" in f and "It differs" in f for f in items[Q1].flags)
    assert items[Q2].flags == [] and items[Q3].flags == [] and items[X].flags == []
    assert items[Q3].answered == 0 and items[Q3].difficulty is None
    fewer = assessment_stats(spec=_spec(), course=course, taken=taken[: MIN_FOR_FLAGS - 1])
    assert all(item.flags == [] for item in fewer.items)


def test_the_json_keeps_the_stats_items_keys(course: Course) -> None:
    found = json_items(assessment_stats(spec=_spec(), course=course, taken=CLASS))
    assert found["assessment"] == "tiny" and found["reliability"] == pytest.approx(0.625)
    first = found["items"][0]
    assert first["item"] == "why-position/dog-bites-man" and first["attempts"] == 3
    assert first["choices"]["identical"] == pytest.approx(2 / 3)
    assert {"difficulty", "discrimination", "points", "common_wrong", "flags"} <= set(first)
    assert first["upper_lower"] == pytest.approx(1.0)
    assert [i["upper_lower"] for i in found["items"]] == pytest.approx([1.0, 0.5, 0.0, 0.75])
    assert found["items"][-1]["item"] == "position-embedding-gather"
    assert found["items"][-1]["kind"] == "exercise"
