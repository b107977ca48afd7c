"""The `items` scenario: a generated class takes every quiz of the course, then the statistics.

Each student has an ability and each question a difficulty and a discrimination drawn once (a
two-parameter logistic model with guessing for single-choice questions), so the class answers
like a real one: strong students get more right, and wrong answers go to the distractors and
wrong numbers and shapes students actually give (a question's own `reject` list, swapped axes,
a factor of two). Every answer is graded by the real quiz grader and stored as a quiz attempt;
then `python -m app stats items --json` reads them as an instructor's script would.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, insert, select
from sqlalchemy.orm import Session

from app.bench.pages import seed_students
from app.config import Settings
from app.content.loader import load_course
from app.content.schemas import MultipleChoice, Numeric, Question, Shape, SingleChoice
from app.instructor.item_stats import latest_attempts, quiz_stats
from app.offerings.place import Place
from app.progress.models import QuizAttempt
from app.quiz.answers import evaluate
from app.quiz.service import grade_quiz, params_for
from app.users.models import User

SEED = 28


def _right(question: Question, params: dict[str, int]) -> object:
    if isinstance(question, SingleChoice):
        return next(c.id for c in question.choices if c.correct)
    if isinstance(question, MultipleChoice):
        return [c.id for c in question.choices if c.correct]
    if isinstance(question, Numeric):
        value = evaluate(question.answer, {k: float(v) for k, v in params.items()})
        return repr(int(value)) if value == int(value) else repr(value)
    return "(" + ", ".join(str(params.get(axis, axis)) for axis in question.answer) + ")"


def _wrong(
    question: Question, params: dict[str, int], pull: Sequence[float], rng: random.Random
) -> object:
    """A wrong answer of the kind students give to this question."""
    if isinstance(question, SingleChoice):
        distractors = [c.id for c in question.choices if not c.correct]
        return rng.choices(distractors, weights=pull[: len(distractors)])[0]
    if isinstance(question, MultipleChoice):
        right = [c.id for c in question.choices if c.correct]
        others = [c.id for c in question.choices if not c.correct]
        if others and (len(right) == 1 or rng.random() < 0.5):
            return [*right, rng.choices(others, weights=pull[: len(others)])[0]]
        return rng.sample(right, len(right) - 1)
    # The author's known wrong answers hold for the first variant only, so only when there is one.
    if question.reject and not question.params and rng.random() < 0.7:
        return rng.choice(question.reject)
    if isinstance(question, Numeric):
        value = float(str(_right(question, params)))
        return repr(value * rng.choice([2, 0.5, 10]) if value else 1.0)
    assert isinstance(question, Shape)
    axes = [str(params.get(axis, axis)) for axis in question.answer]
    swapped = axes[::-1]
    return "(" + ", ".join(swapped if swapped != axes else [*axes, "1"]) + ")"


def _chance(question: Question) -> float:
    return 1 / len(question.choices) if isinstance(question, SingleChoice) else 0.0


def simulate_class(env: dict[str, str], count: int, seed: int = SEED) -> dict[str, Any]:
    """Seed `count` students and store one graded attempt of every quiz for each."""
    rng = random.Random(seed)  # noqa: S311 - a repeatable class, not a secret
    settings = Settings(
        app_data_dir=Path(env["APP_DATA_DIR"]),
        database_url=env.get("DATABASE_URL") or None,
        content_dir=Path(env.get("CONTENT_DIR") or Settings().content_dir),
    )
    course = load_course(settings.lessons_dir, settings.exercises_dir)
    quizzes = [(les.meta.slug, les.meta.quiz) for les in course.lessons if les.meta.quiz]
    place = Place(course)  # the first offering, as `stats items` without --offering reads
    tag = f"items{seed}"
    seed_students(env, count, tag)
    engine = create_engine(settings.sqlalchemy_url)
    # Per question: difficulty, discrimination and how strongly each distractor pulls.
    items = {
        (slug, q.id): (
            rng.gauss(-0.7, 0.9),
            rng.uniform(0.6, 1.8),
            [rng.expovariate(1.0) for _ in range(8)],
        )
        for slug, questions in quizzes
        for q in questions
    }
    disagreements: list[str] = []  # an answer meant right graded wrong, or the other way
    with Session(engine) as session:
        emails = [f"pages-{tag}-{n}@example.org" for n in range(count)]
        ids = session.execute(select(User.id).where(User.email.in_(emails))).scalars().all()
        rows = []
        for uid in ids:
            ability = rng.gauss(0, 1)
            for slug, questions in quizzes:
                answers: dict[str, object] = {}
                meant: dict[str, bool] = {}
                for question in questions:
                    difficulty, slope, pull = items[(slug, question.id)]
                    params = params_for(question, uid)
                    c = _chance(question)
                    p = c + (1 - c) / (1 + math.exp(-1.7 * slope * (ability - difficulty)))
                    meant[question.id] = rng.random() < p
                    answers[question.id] = (
                        _right(question, params)
                        if meant[question.id]
                        else _wrong(question, params, pull, rng)
                    )
                graded = grade_quiz(questions, answers, user_id=uid)
                disagreements += [
                    f"{slug}/{q['id']}: {q['answer']!r} meant right: {meant[q['id']]}"
                    for q in graded.questions
                    if bool(q["correct"]) != meant[q["id"]]
                ]
                rows.append(
                    {
                        "user_id": uid,
                        "lesson_slug": slug,
                        "answers": dict(graded.answers),
                        "results": {"questions": graded.questions, "ignored": graded.ignored},
                        "score": graded.score,
                    }
                )
        session.execute(insert(QuizAttempt), rows)
        session.commit()
        reliability = {
            slug: quiz_stats(
                slug, qs, latest_attempts(session=session, lesson_slug=slug, place=place)
            ).kr20
            for slug, qs in quizzes
        }
    engine.dispose()
    return {
        "students": len(ids),
        "attempts": len(rows),
        "kr20": reliability,
        "disagreements": disagreements,
    }


def items(env: dict[str, str], count: int) -> dict[str, Any]:
    """Generate the class, then time `stats items --json` and summarise what it found."""
    made = simulate_class(env, count)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "app", "stats", "items", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        return {**made, "error": done.stderr.strip()[-300:]}
    found = [i for i in json.loads(done.stdout.strip().splitlines()[-1]) if "/" in i["item"]]
    difficulty = sorted(i["difficulty"] for i in found if i["difficulty"] is not None)
    discrimination = [i["discrimination"] for i in found if i["discrimination"] is not None]
    return {
        **made,
        "seconds": round(seconds, 2),
        "questions": len(found),
        "difficulty_range": [round(difficulty[0], 2), round(difficulty[-1], 2)]
        if difficulty
        else None,
        "median_discrimination": round(sorted(discrimination)[len(discrimination) // 2], 2)
        if discrimination
        else None,
        "negative_discrimination": sorted(
            i["item"] for i in found if (i["discrimination"] or 0) < 0
        ),
        "choice_nobody_picked": sorted(
            i["item"] for i in found if any(share == 0 for share in i["choices"].values())
        ),
    }
