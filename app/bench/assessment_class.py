"""A generated class sits an assessment, then `stats items --assessment` reads the attempts.

Each student draws items with a seed exactly as a real attempt does (`draw_items`), answers the
questions like the quiz class of `classroom` (a two-parameter logistic model, wrong answers of
the kinds students give, graded by the real quiz grader) and passes a share of each exercise's
tests that grows with ability. Attempts are stored handed in and graded, so the statistics run
on what the database would hold. Run: `python -m app.bench.assessment_class [--students 200]`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, insert, select
from sqlalchemy.orm import Session

from app.assessments.loader import find_question, load_assessments
from app.assessments.models import AssessmentAttempt
from app.assessments.schema import AssessmentFile
from app.assessments.scoring import item_of
from app.assessments.service import course_slug_of, draw_items, frozen_rules
from app.bench.classroom import SEED, _chance, _right, _wrong
from app.bench.pages import seed_students
from app.config import Settings
from app.content.loader import Course, load_course
from app.models_base import utcnow
from app.quiz.grading import grade_question, variant_params
from app.quiz.service import normalise_answer
from app.users.models import User

TESTS_PER_EXERCISE = 8  # an exercise's score is a share of this many tests


def _results(
    course: Course,
    drawn: list[dict[str, Any]],
    traits: dict[str, tuple[float, float, list[float]]],
    ability: float,
    seed: int,
    rng: random.Random,
) -> dict[str, Any]:
    """One student's graded items, as `scoring.grade_questions` and `settle` store them."""
    items: dict[str, Any] = {}
    for entry in drawn:
        key, points = entry["key"], entry["points"]
        difficulty, slope, pull = traits[key]
        question = find_question(course, item_of(key))
        if question is None:  # an exercise: each test passes with the student's chance
            p = 1 / (1 + math.exp(-1.7 * slope * (ability - difficulty)))
            passed = sum(rng.random() < p for _ in range(TESTS_PER_EXERCISE))
            items[key] = {"points": points, "score": passed / TESTS_PER_EXERCISE * points}
            continue
        params = variant_params(question, seed=f"assessment:{seed}") if question.params else {}
        c = _chance(question)
        p = c + (1 - c) / (1 + math.exp(-1.7 * slope * (ability - difficulty)))
        raw = _right(question, params) if rng.random() < p else _wrong(question, params, pull, rng)
        answer = normalise_answer(question, raw)
        verdict = grade_question(question, answer, params=params)
        items[key] = {
            "points": points,
            "score": points if verdict.correct else 0.0,
            "correct": verdict.correct,
            "answer": answer,
            "message": verdict.message,
        }
    return {"items": items}


def simulate_assessment(
    env: dict[str, str], count: int, slug: str = "midterm", seed: int = SEED
) -> dict[str, Any]:
    """Seed `count` students and store one handed-in, graded attempt at the assessment each."""
    rng = random.Random(seed)  # noqa: S311 - a repeatable class, not a secret
    settings = Settings(
        app_data_dir=Path(env["APP_DATA_DIR"]),
        database_url=env.get("DATABASE_URL") or None,
        content_dir=Path(env.get("CONTENT_DIR") or Settings().content_dir),
    )
    course = load_course(settings.lessons_dir, settings.exercises_dir)
    spec: AssessmentFile | None = load_assessments(settings.content_dir, course).get(slug)
    if spec is None:
        raise ValueError(f"there is no assessment called '{slug}'")
    traits = {
        item.key: (
            rng.gauss(-0.5, 0.9),
            rng.uniform(0.6, 1.8),
            [rng.expovariate(1.0) for _ in range(8)],
        )
        for part in spec.parts
        for item in part.items
    }
    tag = f"{slug}{seed}"
    seed_students(env, count, tag)
    engine = create_engine(settings.sqlalchemy_url)
    now = utcnow()
    with Session(engine) as session:
        emails = [f"pages-{tag}-{n}@example.org" for n in range(count)]
        ids = session.execute(select(User.id).where(User.email.in_(emails))).scalars().all()
        rows = []
        for uid in ids:
            attempt_seed = rng.randrange(2**31)
            drawn = draw_items(spec=spec, seed=attempt_seed)
            results = _results(course, drawn, traits, rng.gauss(0, 1), attempt_seed, rng)
            total = sum(entry["points"] for entry in drawn)
            got = sum(r["score"] for r in results["items"].values())
            rows.append(
                {
                    "user_id": uid,
                    "course_slug": course_slug_of(course),
                    "assessment_slug": slug,
                    "number": 1,
                    "seed": attempt_seed,
                    "items": drawn,
                    "rules": frozen_rules(spec),
                    "started_at": now,
                    "deadline": now,
                    "status": "submitted",
                    "submitted_at": now,
                    "submitted_by": "student",
                    "release_at": now,
                    "score": got / total,
                    "results": results,
                }
            )
        session.execute(insert(AssessmentAttempt), rows)
        session.commit()
    engine.dispose()
    return {"students": len(rows)}


def main() -> int:
    """Generate a class in a fresh data folder and time `stats items --assessment`."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--assessment", default="midterm")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "APP_DATA_DIR": folder}
        subprocess.run([sys.executable, "-m", "app", "migrate"], env=env, check=True)
        made = simulate_assessment(env, args.students, args.assessment)
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "app", "stats", "items", "--assessment", args.assessment],
            env={**env, "PYTHONWARNINGS": "ignore"},
            capture_output=True,
            text=True,
            check=True,
        )
        seconds = time.perf_counter() - started
    print(done.stdout, end="")
    print(json.dumps({**made, "seconds": round(seconds, 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
