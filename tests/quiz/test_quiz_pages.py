"""The quiz on the lesson page: a real form, graded on the server, results after answering."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.content.schemas import Question
from app.content.service import load_from_settings
from app.db import session_factory
from app.progress.models import QuizAttempt
from app.quiz.grading import variant_params
from app.users.models import User
from tests.users.helpers import form_token, logged_in_client

LESSON = "/lessons/learned-absolute"
# Texts from lessons/03-learned-absolute.md that only a graded attempt may show.
EXPLANATION = "One row per position, one column per feature"
PARAM_EXPLANATION = "is a separate parameter"
WHY_BERT = "512 learned positions."
WHY_EXTRAPOLATES = "there is no formula that could produce row 512"


def quiz_section(html: str) -> str:
    start = html.index('<section id="quiz"')
    return html[start : html.index("</section>", start)]


def table_params_question() -> Question:
    lesson = load_from_settings().lesson("learned-absolute")
    assert lesson is not None
    return next(q for q in lesson.meta.quiz if q.id == "table-params")


def variant_of(user: User) -> dict[str, int]:
    return variant_params(table_params_question(), seed=str(user.id))


def right_answers(user: User) -> dict[str, str | list[str]]:
    numbers = variant_of(user)
    return {
        "q-table-shape": "(max_len, d_model)",
        "q-batch-lookup-shape": "[B, T, D]",
        "q-bert-base-params": "512 × 768",
        "q-table-params": str(numbers["max_len"] * numbers["d_model"]),
        "q-which-models-learned": ["bert", "gpt-2", "gpt-3", "roberta"],
        "q-past-max-len": "no-row",
    }


def submit(client: TestClient, answers: dict[str, str | list[str]]) -> str:
    token = form_token(quiz_section(client.get(f"{LESSON}?retake=1").text))
    response = client.post(
        f"{LESSON}/quiz", data={**answers, "csrf_token": token}, follow_redirects=False
    )
    assert response.status_code == 303, response.text
    assert response.headers["location"] == f"{LESSON}#quiz"
    return client.get(response.headers["location"]).text


def assert_nothing_revealed(html: str) -> None:
    section = quiz_section(html)
    assert re.search("correct", section, re.I) is None
    for secret in (EXPLANATION, PARAM_EXPLANATION, WHY_BERT, WHY_EXTRAPOLATES):
        assert secret not in html, secret


def test_form_reveals_nothing_before_answering(client: TestClient) -> None:
    visitor = client.get(LESSON).text
    assert_nothing_revealed(visitor)
    section = quiz_section(visitor)
    assert 'type="radio" name="q-past-max-len"' in section
    assert 'type="checkbox" name="q-which-models-learned"' in section
    assert 'placeholder="e.g. (512, 768)"' in section
    assert "<math" in section, "prompts go through the markdown renderer"
    assert "log in to save your answers" in section
    assert 'href="/login?next=/lessons/learned-absolute%23quiz"' in section

    logged_in_client(client, "grace@example.org")
    student = client.get(LESSON).text
    assert_nothing_revealed(student)
    assert "log in to save" not in quiz_section(student)


def test_submitting_stores_an_attempt_and_shows_results(client: TestClient) -> None:
    user = logged_in_client(client, "grace@example.org")
    answers = right_answers(user)
    answers["q-past-max-len"] = "extrapolates"  # one wrong
    answers["q-table-shape"] = "(d_model, max_len)"  # and another
    html = submit(client, answers)
    section = quiz_section(html)
    assert "Your score: 4 of 6 right (67%)." in section
    assert section.count("✗ Wrong") == 2 and section.count("✓ Right") == 4
    assert EXPLANATION in section and WHY_EXTRAPOLATES in section and WHY_BERT in section
    assert "<code>(d_model, max_len)</code>" in section, "the student's own answer is shown"
    assert 'href="/lessons/learned-absolute?retake=1#quiz"' in section
    with session_factory()() as session:
        attempt = session.scalar(select(QuizAttempt).where(QuizAttempt.user_id == user.id))
        assert attempt is not None and abs(attempt.score - 4 / 6) < 1e-9
        assert attempt.answers["past-max-len"] == "extrapolates"
        results = {q["id"]: q["correct"] for q in attempt.results["questions"]}
        assert results["past-max-len"] is False and results["table-params"] is True


def test_unreadable_and_missing_answers_are_wrong_with_a_reason(client: TestClient) -> None:
    logged_in_client(client, "grace@example.org")
    section = quiz_section(submit(client, {"q-bert-base-params": "lots"}))
    assert "Your score: 0 of 6 right (0%)." in section
    assert "We could not read that answer" in section
    assert "No option was chosen." in section and "No answer was given." in section


def test_retake_shows_a_fresh_form_and_adds_an_attempt(client: TestClient) -> None:
    user = logged_in_client(client, "grace@example.org")
    submit(client, {"q-past-max-len": "wraps"})
    retake = client.get(f"{LESSON}?retake=1").text
    assert_nothing_revealed(retake)
    assert "1 earlier attempt" in quiz_section(retake)
    section = quiz_section(submit(client, right_answers(user)))
    assert "Your score: 6 of 6 right (100%)." in section and "Attempt 2" in section
    with session_factory()() as session:
        scores = session.scalars(
            select(QuizAttempt.score).where(QuizAttempt.user_id == user.id).order_by(QuizAttempt.id)
        ).all()
    assert list(scores) == [0.0, 1.0]


def test_variant_numbers_are_stable_per_user_and_differ_across_users(client: TestClient) -> None:
    seen: dict[int, tuple[int, int]] = {}
    for n in range(4):
        client.cookies.clear()
        user = logged_in_client(client, f"student{n}@example.org")
        numbers = variant_of(user)
        prompt = f"covers {numbers['max_len']} positions with width d_model = {numbers['d_model']}"
        assert prompt in client.get(LESSON).text
        assert prompt in client.get(LESSON).text, "the same numbers on every visit"
        seen[user.id] = (numbers["max_len"], numbers["d_model"])
    assert len(set(seen.values())) > 1


def test_grading_uses_the_students_own_numbers(client: TestClient) -> None:
    first = logged_in_client(client, "a@example.org")
    client.cookies.clear()
    second = logged_in_client(client, "b@example.org")
    mine, theirs = variant_of(second), variant_of(first)
    assert mine != theirs
    answer = str(theirs["max_len"] * theirs["d_model"])
    section = quiz_section(submit(client, {"q-table-params": answer}))
    expected = mine["max_len"] * mine["d_model"]
    assert str(expected) != answer and "Your score: 0 of 6" in section


def test_visitor_post_goes_to_login_and_stores_nothing(client: TestClient) -> None:
    token = form_token(quiz_section(client.get(LESSON).text))
    response = client.post(
        f"{LESSON}/quiz",
        data={"q-past-max-len": "no-row", "csrf_token": token},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=/lessons/learned-absolute%23quiz"
    with session_factory()() as session:
        assert session.scalar(select(QuizAttempt)) is None


def test_quiz_form_needs_the_csrf_token(client: TestClient) -> None:
    logged_in_client(client, "grace@example.org")
    response = client.post(f"{LESSON}/quiz", data={"q-past-max-len": "no-row"})
    assert response.status_code == 403
    with session_factory()() as session:
        assert session.scalar(select(QuizAttempt)) is None


def test_unknown_lesson_quiz_is_404(client: TestClient) -> None:
    logged_in_client(client, "grace@example.org")
    token = form_token(client.get("/").text)
    response = client.post("/lessons/nope/quiz", data={"csrf_token": token})
    assert response.status_code == 404
