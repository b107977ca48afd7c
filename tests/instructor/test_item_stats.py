"""Quiz item statistics against numbers worked out by hand, and the pages that show them."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.config import ROOT
from app.content.loader import load_course
from app.db import session_factory
from app.instructor.item_stats import (
    MIN_FOR_FLAGS,
    item_table,
    kr20,
    quiz_stats,
    upper_lower_index,
)
from app.quiz.service import submit_attempt
from app.users.models import Role
from tests.conftest import run_cli
from tests.instructor.conftest import add_submission, person

# Five students, three questions (1 = right). Worked by hand:
#   difficulty p = (0.6, 0.6, 0.2); totals (3, 2, 1, 1, 0), mean 1.4, variance 5.2 / 5 = 1.04;
#   sum p(1 - p) = 0.24 + 0.24 + 0.16 = 0.64, so KR-20 = 3/2 * (1 - 0.64 / 1.04) = 0.576923;
#   question 1 against the rest (2, 1, 0, 1, 0): cov 0.12, sd 0.489898 and 0.748331, r = 0.327327;
#   27% of 5 students rounds to 1: top student (3 right) minus bottom student (0 right) = 1.
HAND = np.array([[1, 1, 1], [1, 1, 0], [1, 0, 0], [0, 1, 0], [0, 0, 0]], dtype=float)


def test_difficulty_discrimination_and_reliability_match_the_hand_computation() -> None:
    difficulty, discrimination, upper_lower = item_table(HAND)
    assert difficulty == pytest.approx([0.6, 0.6, 0.2])
    assert discrimination[0] == pytest.approx(0.327327, abs=1e-6)
    assert upper_lower == pytest.approx([1.0, 1.0, 1.0])
    assert kr20(HAND) == pytest.approx(0.576923, abs=1e-6)


# Eight students, three questions, with ties at both 27% edges. 27% of 8 = 2.16 rounds to 2:
#   totals (3, 2, 2, 2, 1, 1, 1, 0). Top two: A (3) and one place for B, C, D tied at 2, so each
#   counts 1/3; bottom two: H (0) and one place for E, F, G tied at 1, each 1/3.
#   question 1: top (1 + (1 + 1 + 0) / 3) / 2 = 5/6, bottom (0 + (1 + 0 + 0) / 3) / 2 = 1/6;
#   upper - lower = 2/3 (questions 2 and 3 alike, by symmetry). Breaking the ties by the order
#   listed instead (A and D on top, E and H at the bottom) would give question 1 0.5 - 0.5 = 0.
TIED = np.array(
    [
        [1, 1, 1],  # A
        [1, 1, 0],  # B
        [1, 0, 1],  # C
        [0, 1, 1],  # D
        [1, 0, 0],  # E
        [0, 0, 1],  # F
        [0, 1, 0],  # G
        [0, 0, 0],  # H
    ],
    dtype=float,
)


def test_upper_lower_shares_the_places_at_a_tied_edge_equally() -> None:
    """Ties at the 27% edge: the tied students share the places left, each with equal weight."""
    _, _, upper_lower = item_table(TIED)
    assert upper_lower == pytest.approx([2 / 3, 2 / 3, 2 / 3])
    shuffled = TIED[np.random.default_rng(7).permutation(len(TIED))]
    assert item_table(shuffled)[2] == pytest.approx(upper_lower)  # the order listed never counts
    # A hand check of the weights on one item: S1..S4 with totals (2, 1, 1, 0), scores (1, 1, 0, 0).
    # 27% of 4 rounds to 1: top S1 (1), bottom S4 (0): 1.0. With the two middle students alone
    # (totals 1, 1; one place each side), both groups are the same half-and-half: 0.
    assert upper_lower_index(np.array([1, 1, 0, 0.0]), np.array([2, 1, 1, 0.0])) == 1.0
    assert upper_lower_index(np.array([1, 0.0]), np.array([1, 1.0])) == 0.0
    assert upper_lower_index(np.array([1.0]), np.array([1.0])) is None  # 27% of one is nobody


def test_kr20_equals_cronbach_alpha_for_right_wrong_items() -> None:
    items = HAND.shape[1]
    alpha = items / (items - 1) * (1 - HAND.var(axis=0).sum() / HAND.sum(axis=1).var())
    assert kr20(HAND) == pytest.approx(alpha)


def test_undefined_numbers_are_none_not_nan() -> None:
    everyone_right = np.ones((4, 3))
    _, discrimination, _ = item_table(everyone_right)
    assert discrimination == [None, None, None]
    assert kr20(everyone_right) is None
    assert kr20(np.array([[1.0, 0.0]])) is None  # one student


@dataclass
class Choice:
    id: str
    text: str
    correct: bool


@dataclass
class Q:
    id: str
    type: str
    prompt: str
    choices: list[Choice] = field(default_factory=list)


def _attempt(marks: dict[str, tuple[bool, object]]) -> dict[str, object]:
    questions = []
    for qid, (correct, answer) in marks.items():
        choices = [{"id": c, "chosen": c == answer} for c in ("a", "b", "c")] if qid == "mc" else []
        questions.append({"id": qid, "correct": correct, "answer": answer, "choices": choices})
    return {"questions": questions}


def test_flags_a_question_good_students_miss_and_a_distractor_nobody_picks() -> None:
    mc = Q(
        "mc",
        "single",
        "Pick",
        [Choice("a", "A", True), Choice("b", "B", False), Choice("c", "C", False)],
    )
    questions = [mc, Q("n1", "numeric", "How many?"), Q("n2", "numeric", "And now?")]
    questions.append(Q("n3", "shape", "Which shape?"))
    attempts = []
    for k in range(MIN_FOR_FLAGS):
        strong = k < MIN_FOR_FLAGS // 2
        # strong students get the other three right and the choice question wrong (they pick b)
        attempts.append(
            _attempt(
                {
                    "mc": (not strong, "b" if strong else "a"),
                    "n1": (strong, "64" if strong else "512"),
                    "n2": (strong, "8" if strong else "4"),
                    "n3": (strong, "(4, 8)" if strong else "(8, 4)"),
                }
            )
        )
    stats = quiz_stats("lesson", questions, attempts)
    by_id = {item.id: item for item in stats.items}
    assert by_id["mc"].discrimination is not None and by_id["mc"].discrimination < 0
    assert any("negative discrimination" in f for f in by_id["mc"].flags)
    assert any("nobody picked: C" in f for f in by_id["mc"].flags)
    assert [(c.id, c.picked) for c in by_id["mc"].choices] == [("a", 5), ("b", 5), ("c", 0)]
    assert by_id["n1"].common_wrong == [("512", 5)]
    assert by_id["n1"].flags == []
    fewer = quiz_stats("lesson", questions, attempts[: MIN_FOR_FLAGS - 1])
    assert all(item.flags == [] for item in fewer.items)  # too few answers to judge


@pytest.fixture
def quiz_class(client: TestClient) -> dict[str, str]:
    """Three students take lesson 1's quiz (one twice); returns an instructor's header."""
    course = load_course(ROOT / "lessons", ROOT / "exercises")
    lesson = course.lesson("why-position")
    assert lesson is not None and lesson.meta.quiz
    first = lesson.meta.quiz[0]
    key = next(c.id for c in first.choices if c.correct)  # type: ignore[union-attr]
    wrong = next(c.id for c in first.choices if not c.correct)  # type: ignore[union-attr]
    picks = [key, wrong, wrong]
    for n, pick in enumerate(picks):
        uid, _ = person(f"s{n}@example.org")
        with session_factory()() as session:
            submit_attempt(
                session=session,
                lesson_slug="why-position",
                questions=lesson.meta.quiz,
                answers={first.id: pick},
                user_id=uid,
            )
            if n == 2:  # a retake replaces the first try: each student counts once
                submit_attempt(
                    session=session,
                    lesson_slug="why-position",
                    questions=lesson.meta.quiz,
                    answers={first.id: key},
                    user_id=uid,
                )
    _, header = person("teacher@example.org", role=Role.instructor)
    return header


def test_an_instructor_sees_each_quiz_its_page_its_csv_and_its_json(
    client: TestClient, quiz_class: dict[str, str]
) -> None:
    overview = client.get("/instructor/quizzes", headers=quiz_class)
    assert overview.status_code == 200 and "/instructor/quizzes/why-position" in overview.text
    page = client.get("/instructor/quizzes/why-position", headers=quiz_class)
    assert page.status_code == 200 and "latest attempt of each" in page.text
    data = client.get("/api/instructor/quizzes/why-position/items", headers=quiz_class).json()
    assert data["students"] == 3
    first = data["items"][0]
    assert first["answered"] == 3 and first["difficulty"] == pytest.approx(2 / 3)
    assert sum(c["picked"] for c in first["choices"]) == 3
    answer = client.get("/instructor/quizzes/why-position/items.csv", headers=quiz_class)
    assert answer.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    assert rows[0]["question"] == first["id"] and rows[0]["difficulty"] == "0.667"
    assert first["upper_lower"] == 1.0 and rows[0]["upper_lower"] == "1.000"
    assert "Upper − lower" in page.text


def test_students_and_unknown_quizzes_are_refused(
    client: TestClient, quiz_class: dict[str, str], data_dir: Path
) -> None:
    _, student = person("curious@example.org")
    for path in (
        "/instructor/quizzes",
        "/instructor/quizzes/why-position",
        "/instructor/quizzes/why-position/items.csv",
        "/api/instructor/quizzes/why-position/items",
    ):
        assert client.get(path, headers=student).status_code == 403, path
    missing = client.get("/api/instructor/quizzes/no-such-lesson/items", headers=quiz_class)
    assert missing.status_code == 404 and "no-such-lesson" in missing.json()["detail"]


def test_stats_items_json_lists_questions_and_exercises(
    quiz_class: dict[str, str], data_dir: Path
) -> None:
    """The outside contract: the last line is JSON, one entry per question and exercise."""
    solver, _ = person("solver@example.org")
    add_submission(solver, "position-embedding-gather", [True, True], dt.datetime.now(dt.UTC))
    result = run_cli("stats", "items", "--json", env={"APP_DATA_DIR": str(data_dir)})
    assert result.returncode == 0, result.stderr
    items = {i["item"]: i for i in json.loads(result.stdout.strip().splitlines()[-1])}
    question = items["why-position/dog-bites-man"]
    assert question["attempts"] == 3 and question["difficulty"] == pytest.approx(2 / 3)
    assert sum(question["choices"].values()) == pytest.approx(1.0)
    gather = items["position-embedding-gather"]
    assert gather["attempts"] == 1 and gather["difficulty"] == 1.0
    assert gather["discrimination"] is None  # one student, no quiz: undefined, not 0
    assert gather["upper_lower"] is None  # nobody to rank it against
    # interfaces.md's keys keep their meaning; `upper_lower` is the one added beside them
    listed = {"item", "attempts", "difficulty", "discrimination", "choices"}
    assert set(gather) == set(question) == listed | {"upper_lower"}
    # three students (totals 1, 0, 1 on the one question answered): 27% rounds to 1; the top
    # place is shared by the two right (both 1), the bottom is the one wrong: 1 - 0 = 1
    assert question["upper_lower"] == 1.0


def test_stats_items_reads_the_course_and_offering_a_script_names(
    quiz_class: dict[str, str], data_dir: Path
) -> None:
    """`--course` and `--offering` (interfaces.md): the named offering's students only."""
    from app.offerings.service import create_offering, first_offering

    with session_factory()() as session:
        first = first_offering(session=session).id
        session.commit()
        later = create_offering(
            session=session, course_slug="positional-embeddings", title="Spring 2027"
        ).id
        other = create_offering(
            session=session, course_slug="attention-step-by-step", title="Attention, spring"
        ).id
    env = {"APP_DATA_DIR": str(data_dir)}

    def items(*scope: str) -> dict[str, dict[str, object]]:
        result = run_cli("stats", "items", *scope, "--json", env=env)
        assert result.returncode == 0, result.stderr
        return {i["item"]: i for i in json.loads(result.stdout.strip().splitlines()[-1])}

    everyone = items()
    assert items("--course", "positional-embeddings", "--offering", str(first)) == everyone
    assert everyone["why-position/dog-bites-man"]["attempts"] == 3
    assert items("--offering", str(later))["why-position/dog-bites-man"]["attempts"] == 0
    wrong = run_cli("stats", "items", "--offering", str(other), env=env)
    assert wrong.returncode == 2 and "runs the course 'attention-step-by-step'" in wrong.stderr
    missing = run_cli("stats", "items", "--offering", "9999", env=env)
    assert missing.returncode == 2 and "no offering 9999" in missing.stderr
    unknown = run_cli("stats", "items", "--course", "no-such-course", env=env)
    assert unknown.returncode == 2 and "unknown course 'no-such-course'" in unknown.stderr


def test_wrong_answers_are_grouped_per_parameter_variant_and_the_prompt_is_rendered() -> None:
    question = Q("n", "numeric", "With $T = {T}$ positions, how many **rows**?")
    attempts = []
    for t, answer, n in ((4, "16", 3), (8, "16", 2), (8, "64", 1)):
        for _ in range(n):
            result = {"id": "n", "correct": False, "answer": answer, "params": {"T": t}}
            attempts.append({"questions": [result]})
    stats = quiz_stats("lesson", [question], attempts)
    item = stats.items[0]
    assert item.common_wrong == [("16 for T = 4", 3), ("16 for T = 8", 2), ("64 for T = 8", 1)]
    assert "<strong>rows</strong>" in item.prompt_html
    assert "$" not in item.prompt_html.replace("\\$", "")  # the math went through the renderer
