"""Typed quiz answers: the spellings students use are understood, nothing is eval'd."""

from __future__ import annotations

import logging

import pytest

from app.content.schemas import MultipleChoice, Numeric, Shape, SingleChoice
from app.quiz.answers import AnswerError, evaluate, parse_shape, shape_correct
from app.quiz.grading import check_examples, grade_question, variant_params


@pytest.mark.parametrize(
    "text",
    [
        "393216",
        "393,216",
        "512*768",
        "512 × 768",
        "512 x 768",
        "512x768",
        "2^10 * 384",
        " 393_216 ",
    ],
)
def test_numeric_spellings(text: str) -> None:
    assert evaluate(text) == 393216


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("abc", "'abc' is not a number here"),
        ("__import__('os').system('id')", "is not a number or a product"),
        ("(1).__class__", "is not a number or a product"),
        ("9**9**9", "too large"),
        ("1/0", "divides by zero"),
        ("1" * 500, "too long"),
    ],
)
def test_bad_numbers_get_clear_messages(text: str, message: str) -> None:
    with pytest.raises(AnswerError, match=message):
        evaluate(text)


@pytest.mark.parametrize(
    ("text", "axes"),
    [
        ("(512, 768)", ["512", "768"]),
        ("[512, 768]", ["512", "768"]),
        ("512x768", ["512", "768"]),
        ("512 x 768", ["512", "768"]),
        ("[max_len, d_model]", ["max_len", "d_model"]),
        ("(N,T,d_model)", ["N", "T", "d_model"]),
        ("(8,)", ["8"]),
    ],
)
def test_shape_spellings(text: str, axes: list[str]) -> None:
    assert parse_shape(text) == axes


def test_shape_order_matters_and_aliases_count() -> None:
    aliases = {"max_len": ["max_T", "L"], "d_model": ["D"]}
    expected = ["max_len", "d_model"]
    assert shape_correct("(L, D)", expected=expected, aliases=aliases, params={})
    assert shape_correct("[MAX_T, d_model]", expected=expected, aliases=aliases, params={})
    assert not shape_correct("(D, L)", expected=expected, aliases=aliases, params={})
    assert not shape_correct("(L, D, 1)", expected=expected, aliases=aliases, params={})
    assert shape_correct(
        "(512, 768)", expected=expected, aliases=aliases, params={"max_len": 512, "d_model": 768}
    )


VARIANT = {"max_len": 128, "d_model": 64}


def _numeric(**kw: object) -> Numeric:
    base: dict[str, object] = {
        "id": "n",
        "type": "numeric",
        "prompt": "How many?",
        "explanation": "Because.",
        "answer": "max_len*d_model",
        "params": {"max_len": [128, 512], "d_model": [64, 768]},
    }
    return Numeric.model_validate({**base, **kw})


def test_variants_are_stable_per_student_and_differ_between_students() -> None:
    question = _numeric()
    assert variant_params(question, seed="user-1") == variant_params(question, seed="user-1")
    seen = {tuple(variant_params(question, seed=f"user-{i}").values()) for i in range(40)}
    assert len(seen) == 4


def test_parameterised_numeric_uses_the_students_numbers() -> None:
    question = _numeric()
    params = {"max_len": 512, "d_model": 768}
    assert grade_question(question, "393,216", params=params).correct
    assert not grade_question(question, "8192", params=params).correct
    unreadable = grade_question(question, "lots", params=params)
    assert not unreadable.correct and "could not read" in unreadable.message


def test_an_answer_that_cannot_be_computed_neither_blames_the_student_nor_tells_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    question = _numeric(id="how-many", answer="12 heads", params={})
    with caplog.at_level(logging.ERROR, logger="app.quiz.grading"):
        verdict = grade_question(question, "12", params={})
    assert not verdict.correct and "12 heads" not in verdict.message
    assert "could not read" not in verdict.message and "instructor" in verdict.message
    assert "how-many" in caplog.text and "12 heads" in caplog.text  # staff can find it
    assert "cannot be computed" in check_examples(question)[0]
    wrong = grade_question(_numeric(answer="max_len / (d_model - 64)"), "1", params=VARIANT)
    assert "instructor" in wrong.message  # one student's numbers divide by zero
    assert "d_model" in check_examples(_numeric(answer="max_len / (d_model - 64)"))[0]


def test_choice_questions() -> None:
    choices = [
        {"id": "a", "text": "A", "correct": True},
        {"id": "b", "text": "B"},
        {"id": "c", "text": "C", "correct": True},
    ]
    single = SingleChoice.model_validate(
        {
            "id": "s",
            "type": "single",
            "prompt": "P",
            "explanation": "E",
            "choices": [choices[0], choices[1]],
        }
    )
    assert grade_question(single, "a", params={}).correct
    assert not grade_question(single, "b", params={}).correct
    assert not grade_question(single, None, params={}).correct
    multi = MultipleChoice.model_validate(
        {"id": "m", "type": "multiple", "prompt": "P", "explanation": "E", "choices": choices}
    )
    assert grade_question(multi, ["c", "a"], params={}).correct
    assert not grade_question(multi, ["a"], params={}).correct
    assert not grade_question(multi, ["a", "b", "c"], params={}).correct


def test_check_examples_reports_examples_that_misbehave() -> None:
    shape = Shape.model_validate(
        {
            "id": "t",
            "type": "shape",
            "prompt": "P",
            "explanation": "E",
            "answer": ["max_len", "d_model"],
            "accept": ["(d_model, max_len)"],
            "reject": ["[max_len, d_model]"],
        }
    )
    problems = check_examples(shape)
    assert len(problems) == 2
    assert "accepted example '(d_model, max_len)' is graded wrong" in problems[0]
    assert check_examples(_numeric(answer="max_len*", params={})) != []
