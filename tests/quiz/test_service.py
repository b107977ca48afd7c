"""Whole-quiz grading: placeholders, normalised answers, and what the form view may contain."""

from __future__ import annotations

from app.content.schemas import MultipleChoice, Numeric, SingleChoice
from app.quiz.grading import variant_params
from app.quiz.service import fill, grade_quiz, normalise_answer
from app.quiz.views import form_questions, inline_html, question_view
from app.users.models import User

SINGLE = SingleChoice.model_validate(
    {
        "id": "pick",
        "type": "single",
        "prompt": "Pick the width of $d_{\\text{model}}$.",
        "explanation": "EXPLAINED-SECRET",
        "choices": [
            {"id": "a", "text": "**A**", "correct": True, "why": "WHY-A"},
            {"id": "b", "text": "B", "why": "WHY-B"},
        ],
    }
)
MULTI = MultipleChoice.model_validate(
    {
        "id": "many",
        "type": "multiple",
        "prompt": "Which?",
        "explanation": "E",
        "choices": [
            {"id": "x", "text": "X", "correct": True},
            {"id": "y", "text": "Y", "correct": True},
            {"id": "z", "text": "Z"},
        ],
    }
)
PARAM = Numeric.model_validate(
    {
        "id": "count",
        "type": "numeric",
        "prompt": "A table of {n} rows and {d} columns, $x_{i}$.",
        "explanation": "It is {n} × {d}.",
        "params": {"n": [2, 3, 4], "d": [5, 7]},
        "answer": "n*d",
    }
)


def test_fill_replaces_only_known_placeholders() -> None:
    assert (
        fill("{n} by {d}, $x_{i}$ and {other}", {"n": 2, "d": 5}) == "2 by 5, $x_{i}$ and {other}"
    )
    assert fill("{n}", {}) == "{n}"


def test_grade_quiz_scores_and_explains_with_the_students_numbers() -> None:
    params = variant_params(PARAM, seed="7")
    graded = grade_quiz(
        [SINGLE, MULTI, PARAM],
        {"pick": "b", "many": ["y", "x", "x"], "count": str(params["n"] * params["d"]), "zz": "?"},
        user_id=7,
    )
    assert [q["correct"] for q in graded.questions] == [False, True, True]
    assert graded.correct == 2 and abs(graded.score - 2 / 3) < 1e-9
    assert graded.ignored == ["zz"]
    assert graded.answers["many"] == ["x", "y"], "stored deduplicated and sorted"
    pick = graded.questions[0]
    assert pick["feedback"] == "B: WHY-B" and pick["explanation"] == "EXPLAINED-SECRET"
    assert graded.questions[2]["explanation"] == f"It is {params['n']} × {params['d']}."
    assert graded.questions[2]["params"] == params


def test_visitors_get_the_first_variant() -> None:
    graded = grade_quiz([PARAM], {"count": "10"}, user_id=None)
    assert graded.questions[0]["correct"] is True and graded.questions[0]["params"] == {
        "n": 2,
        "d": 5,
    }


def test_normalise_answer_bounds_input() -> None:
    assert normalise_answer(MULTI, "x") == ["x"]
    assert normalise_answer(MULTI, [f"c{i}" for i in range(500)]) is not None
    assert len(normalise_answer(MULTI, [f"c{i}" for i in range(500)]) or []) == 50
    assert normalise_answer(SINGLE, ["a"]) is None
    assert normalise_answer(PARAM, 12) == "12"
    assert normalise_answer(PARAM, True) is None
    assert normalise_answer(PARAM, "9" * 5000) == "9" * 1000


def test_form_view_holds_no_answer_data() -> None:
    view = question_view(SINGLE, 1, {})
    text = repr(view)
    for secret in ("EXPLAINED-SECRET", "WHY-A", "WHY-B", "correct", "True"):
        assert secret not in text
    assert "<math" in view.prompt_html
    assert view.choices[0].html == "<strong>A</strong>"
    params = variant_params(PARAM, seed="3")
    assert f"A table of {params['n']} rows" in question_view(PARAM, 2, params).prompt_html


def test_inline_html_strips_one_paragraph_and_sanitises() -> None:
    assert inline_html("plain") == "plain"
    assert "<script" not in inline_html("<script>alert(1)</script>")


def test_the_form_reuses_one_view_per_question_and_variant() -> None:
    # The view's identity is what its rendered HTML is remembered by (app/web/templating.py).
    first, again = form_questions([SINGLE, PARAM], None), form_questions([SINGLE, PARAM], None)
    assert [a is b for a, b in zip(first, again, strict=True)] == [True, True]
    ids = range(1, 40)
    views = {uid: form_questions([PARAM], User(id=uid))[0] for uid in ids}
    by_variant: dict[tuple[int, ...], set[int]] = {}
    for uid, view in views.items():
        numbers = variant_params(PARAM, seed=str(uid))
        assert f"A table of {numbers['n']} rows and {numbers['d']} columns" in view.prompt_html
        by_variant.setdefault(tuple(sorted(numbers.values())), set()).add(id(view))
    assert len(by_variant) > 1  # several variants, each with its own view...
    assert all(len(objects) == 1 for objects in by_variant.values())  # ...shared by its students


def test_content_loaded_again_gets_new_views() -> None:
    old = form_questions([SINGLE], None)[0]
    edited = SingleChoice.model_validate({**SINGLE.model_dump(), "prompt": "Pick again."})
    new = form_questions([edited], None)[0]
    assert new is not old and "Pick again." in new.prompt_html
    assert form_questions([SINGLE], None)[0] is old
