"""Which quiz questions work: difficulty, discrimination, choices picked, reliability.

Computed from each student's latest attempt at a quiz (as `stats items` promises outside
scripts: ../shared/interfaces.md), so a student counts once however often they retook it. The
numbers are the classical test theory ones an instructor meets in Moodle's or Canvas's quiz
statistics.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.render import render_markdown
from app.instructor.gradebook import SOLVED
from app.offerings.access import students_here, work_here
from app.offerings.place import Place
from app.progress.models import QuizAttempt
from app.quiz.service import fill
from app.submissions.models import PRACTICE, Submission
from app.users.models import User

MIN_FOR_FLAGS = 10  # fewer answers than this say too little to flag a question
TOP_WRONG = 3


@dataclass
class ChoiceCount:
    """One option of a choice question and how many students picked it."""

    id: str
    text: str
    correct: bool
    picked: int


@dataclass
class ItemStats:
    """One question's statistics over the students' latest attempts."""

    id: str
    type: str
    prompt: str
    answered: int = 0
    difficulty: float | None = None  # share right (higher is easier)
    discrimination: float | None = None  # corrected point-biserial (item vs rest of the quiz)
    upper_lower: float | None = None  # share right in the top 27% minus the bottom 27%
    choices: list[ChoiceCount] = field(default_factory=list)
    common_wrong: list[tuple[str, int]] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    prompt_html: str = ""  # the prompt through the lessons' renderer (markdown and math)
    shown_with: str = ""  # "T = 4": the variant the rendered prompt shows, when it has numbers


@dataclass
class QuizStats:
    """A quiz's items plus its reliability."""

    lesson: str
    students: int
    items: list[ItemStats]
    kr20: float | None  # KR-20, which is Cronbach's alpha for right/wrong items


def correlation(x: np.ndarray, y: np.ndarray) -> float | None:
    """Pearson's r, or None when either side does not vary (r is undefined)."""
    if x.size < 2 or x.std() == 0 or y.std() == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])


def kr20(matrix: np.ndarray) -> float | None:
    """KR-20 of a students × items matrix of 0/1 (population variances, as Kuder and Richardson)."""
    students, items = matrix.shape
    if items < 2 or students < 2:
        return None
    totals = matrix.sum(axis=1)
    variance = totals.var()
    if variance == 0:
        return None
    p = matrix.mean(axis=0)
    return float(items / (items - 1) * (1 - (p * (1 - p)).sum() / variance))


def cronbach_alpha(matrix: np.ndarray) -> float | None:
    """Cronbach's alpha of a students × items matrix of scores (KR-20 when they are all 0/1)."""
    students, items = matrix.shape
    if items < 2 or students < 2:
        return None
    variance = matrix.sum(axis=1).var()
    if variance == 0:
        return None
    return float(items / (items - 1) * (1 - matrix.var(axis=0).sum() / variance))


UPPER_LOWER_SHARE = 0.27  # Kelley's 27%: the top and bottom groups the index compares


def _top_weights(totals: np.ndarray, size: int) -> np.ndarray:
    """Each student's place in the `size` highest totals: 1 above the edge, the places left
    shared equally among those tied at it, else 0."""
    edge = np.sort(totals)[::-1][size - 1]
    above = totals > edge
    tied = totals == edge
    weights: np.ndarray = above.astype(float)
    weights[tied] = (size - int(above.sum())) / int(tied.sum())
    return weights


def upper_lower_index(
    scores: np.ndarray, totals: np.ndarray, share: float = UPPER_LOWER_SHARE
) -> float | None:
    """Mean score of the top `share` by total minus the bottom's; ties at an edge share its places.

    Each group holds round(share × students) students (half up), at least one, and the groups do
    not outnumber the class; otherwise None. Students tied at a group's edge each count with the
    same fractional weight (the mean over every way of breaking the tie), so the index never
    depends on the order students are listed in. Scores are 0/1 (share right) or shares 0..1.
    """
    students = int(totals.size)
    size = math.floor(students * share + 0.5)
    if size < 1 or 2 * size > students:
        return None
    rounded = np.round(totals.astype(float), 9)  # equal totals reached by different sums tie
    high, low = _top_weights(rounded, size), _top_weights(-rounded, size)
    return float((high @ scores - low @ scores) / size)


def upper_lower(matrix: np.ndarray, share: float = UPPER_LOWER_SHARE) -> list[float | None]:
    """Per item (column): the upper-lower index, students ranked by their total over all items."""
    totals = matrix.sum(axis=1)
    return [upper_lower_index(matrix[:, j], totals, share) for j in range(matrix.shape[1])]


def item_table(matrix: np.ndarray) -> tuple[list[float], list[float | None], list[float | None]]:
    """Difficulty, corrected point-biserial and upper-lower index of every item (column)."""
    totals = matrix.sum(axis=1)
    difficulty = [float(v) for v in matrix.mean(axis=0)]
    discrimination = [
        correlation(matrix[:, j], totals - matrix[:, j]) for j in range(matrix.shape[1])
    ]
    return difficulty, discrimination, upper_lower(matrix)


def answer_text(answer: object) -> str:
    """An answer as one short line, so equal answers count together."""
    return " ".join(str(answer).split())[:80] if answer not in (None, "") else "(no answer)"


def variant_text(params: object) -> str:
    """'T = 4, d = 8': a parameterised question's numbers for one student ('' without any)."""
    if not isinstance(params, Mapping) or not params:
        return ""
    return ", ".join(f"{name} = {value}" for name, value in sorted(params.items()))


def wrong_answer_key(result: Mapping[str, Any]) -> str:
    """A wrong answer with its variant, so 16 for T = 4 is not counted with 16 for T = 8."""
    variant = variant_text(result.get("params"))
    text = answer_text(result.get("answer"))
    return f"{text} for {variant}" if variant else text


def _prompt(question: Any) -> tuple[str, str]:
    """The prompt rendered (with its first variant's numbers), and which numbers those are."""
    params = getattr(question, "params", None) or {}
    first = {name: values[0] for name, values in params.items() if values}
    return render_markdown(fill(str(question.prompt), first)), variant_text(first)


def item_flags(item: ItemStats, whole: str = "quiz") -> list[str]:
    """Warnings an instructor should act on, once enough students answered to trust them."""
    if item.answered < MIN_FOR_FLAGS:
        return []
    flags = []
    if item.discrimination is not None and item.discrimination < 0:
        flags.append(
            f"negative discrimination: students who did well on the rest of the {whole} got "
            "this one wrong more often; check the key and the wording"
        )
    unpicked = [c.text for c in item.choices if not c.correct and c.picked == 0]
    if unpicked:
        flags.append("a distractor nobody picked: " + "; ".join(unpicked))
    return flags


def quiz_stats(
    lesson: str, questions: Sequence[Any], attempts: Sequence[Mapping[str, Any]]
) -> QuizStats:
    """Statistics of a quiz's questions (as the content defines them) over stored results."""
    by_student = [{q.get("id"): q for q in a.get("questions", [])} for a in attempts]
    ids = [str(q.id) for q in questions]
    # Only questions every counted attempt answered enter the matrix (content may have changed).
    complete = [r for r in by_student if all(i in r for i in ids)]
    matrix = np.array([[bool(r[i].get("correct")) for i in ids] for r in complete], dtype=float)
    if matrix.size:
        difficulty, discrimination, ul = item_table(matrix)
    else:
        difficulty, discrimination, ul = [], [], []
    items = []
    for j, question in enumerate(questions):
        answers = [r[ids[j]] for r in by_student if ids[j] in r]
        item = ItemStats(
            id=ids[j], type=str(question.type), prompt=str(question.prompt), answered=len(answers)
        )
        if matrix.size:
            item.difficulty, item.discrimination, item.upper_lower = (
                difficulty[j],
                discrimination[j],
                ul[j],
            )
        options = getattr(question, "choices", None)
        if options:
            picked: Counter[str] = Counter(
                c.get("id") for a in answers for c in a.get("choices", []) if c.get("chosen")
            )
            item.choices = [
                ChoiceCount(str(c.id), str(c.text), bool(c.correct), picked[c.id]) for c in options
            ]
        else:
            wrong = Counter(wrong_answer_key(a) for a in answers if not a.get("correct"))
            item.common_wrong = wrong.most_common(TOP_WRONG)
        item.flags = item_flags(item)
        item.prompt_html, item.shown_with = _prompt(question)
        items.append(item)
    reliability = kr20(matrix) if matrix.size else None
    return QuizStats(lesson=lesson, students=len(by_student), items=items, kr20=reliability)


def latest_attempts(*, session: Session, lesson_slug: str, place: Place) -> list[dict[str, Any]]:
    """Each student's latest attempt at the quiz (instructors' own tries left out)."""
    rows = session.execute(
        select(QuizAttempt.user_id, QuizAttempt.results)
        .join(User, User.id == QuizAttempt.user_id)
        .where(
            QuizAttempt.lesson_slug == lesson_slug,
            students_here(place),
            work_here(session, QuizAttempt.offering_id, place),
        )
        .order_by(QuizAttempt.user_id, QuizAttempt.created_at, QuizAttempt.id)
    )
    return list({user_id: results for user_id, results in rows}.values())  # the last one wins


def _quiz_shares(session: Session, lessons: Sequence[str], place: Place) -> dict[int, float]:
    """Each student's share right over their latest attempt at every quiz they took."""
    right: Counter[int] = Counter()
    asked: Counter[int] = Counter()
    rows = session.execute(
        select(QuizAttempt.user_id, QuizAttempt.lesson_slug, QuizAttempt.results)
        .join(User, User.id == QuizAttempt.user_id)
        .where(
            QuizAttempt.lesson_slug.in_(lessons),
            students_here(place),
            work_here(session, QuizAttempt.offering_id, place),
        )
        .order_by(QuizAttempt.created_at, QuizAttempt.id)
    )
    latest = {(uid, slug): results for uid, slug, results in rows}
    for (uid, _slug), results in latest.items():
        questions = results.get("questions", [])
        right[uid] += sum(bool(q.get("correct")) for q in questions)
        asked[uid] += len(questions)
    return {uid: right[uid] / asked[uid] for uid in asked if asked[uid]}


def exercise_items(
    *, session: Session, slugs: Sequence[str], quiz_lessons: Sequence[str], place: Place
) -> list[dict[str, Any]]:
    """Per exercise: students who submitted, share solved (latest submission), discrimination.

    Discrimination here is solved-or-not against the student's share right over the quizzes
    (the rest of the course), among students who did both; None while that is undefined. The
    upper-lower index ranks those students by that share too.
    """
    rows = session.execute(
        select(Submission.user_id, Submission.exercise_slug, Submission.score)
        .join(User, User.id == Submission.user_id)
        .where(
            students_here(place),
            work_here(session, Submission.offering_id, place),
            Submission.exercise_slug.in_(slugs),
            Submission.mode == "submit",
            Submission.status == "done",
            Submission.purpose == PRACTICE,
        )
        .order_by(Submission.created_at, Submission.id)
    )
    latest = {(uid, slug): score or 0.0 for uid, slug, score in rows}
    shares = _quiz_shares(session, quiz_lessons, place)
    items = []
    for slug in slugs:
        solved = {uid: float(score >= SOLVED) for (uid, s), score in latest.items() if s == slug}
        both = [uid for uid in solved if uid in shares]
        right = np.array([solved[u] for u in both])
        rest = np.array([shares[u] for u in both])
        discrimination = correlation(right, rest)
        items.append(
            {
                "item": slug,
                "attempts": len(solved),
                "difficulty": sum(solved.values()) / len(solved) if solved else None,
                "discrimination": discrimination,
                "upper_lower": upper_lower_index(right, rest),
                "choices": {},
            }
        )
    return items


def question_items(stats: QuizStats) -> list[dict[str, Any]]:
    """A quiz's questions in the `stats items` shape (choices as shares of the answers).

    `upper_lower` was added beside the keys interfaces.md lists; theirs keep their meaning.
    """
    return [
        {
            "item": f"{stats.lesson}/{item.id}",
            "attempts": item.answered,
            "difficulty": item.difficulty,
            "discrimination": item.discrimination,
            "upper_lower": item.upper_lower,
            "choices": {c.id: c.picked / item.answered for c in item.choices}
            if item.answered
            else {c.id: 0.0 for c in item.choices},
        }
        for item in stats.items
    ]
