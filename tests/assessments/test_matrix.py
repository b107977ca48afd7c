"""Where features meet (issue 47): every reader of the platform, asked about one student's midterm
in each phase, on both courses, and on PostgreSQL for the readers whose SQL differs there.

The cells: {exam running, handed in before release, after release} x {practice quiz, practice
exercise, model solution, lists/history/result page, gradebook, analytics, item statistics,
similarity, LMS exercise column, LMS exam column}.
Run: `pytest -n 0 tests/assessments/test_matrix.py`.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.assessments.loader import assessments_for
from app.config import ROOT, get_settings
from app.content.loader import Course
from app.courses.service import process_registry, reset_process_registry
from app.db import session_factory
from app.instructor.analytics import exercise_stats
from app.instructor.assessment_items import stats_for
from app.instructor.gradebook import build_gradebook
from app.instructor.similarity import finals
from app.jobs.deps import get_queue
from app.lti.grades import score_for
from app.main import create_app
from app.migrate import upgrade_head
from app.models_base import as_utc
from app.offerings.models import Enrollment, Offering, OfferingRole
from app.offerings.place import Place as Where
from app.offerings.service import first_offering
from app.progress.models import QuizAttempt
from app.submissions.models import Submission
from app.users.models import User
from tests.assessments.conftest import write
from tests.assessments.world import (
    ANN,
    EXERCISE,
    LESSON,
    PHASES,
    QUESTION,
    SECOND,
    SECOND_EXERCISE,
    SECOND_QUESTION,
    Sitting,
    headers,
    link_lms,
    midterm,
    pending_posts,
    second_midterm,
    submissions,
)
from tests.jobs.helpers import RecordingQueue
from tests.postgres import throwaway_database

READERS = (
    "practice_quiz",
    "practice_exercise",
    "solution",
    "lists",
    "gradebook",
    "analytics",
    "item_stats",
    "similarity",
    "lms_exercise",
    "lms_exam",
)
# The readers whose answer is SQL that SQLite and PostgreSQL run differently.
SQL_READERS = ("lists", "gradebook", "analytics", "item_stats", "similarity", "lms_exercise")
SQL_READERS += ("lms_exam",)
CASES = [
    *(
        (db, course, phase, reader)
        for db in ("sqlite",)
        for course in ("first", "second")
        for phase in PHASES
        for reader in READERS
    ),
    *(("postgresql", "first", phase, reader) for phase in PHASES for reader in SQL_READERS),
]


@dataclass
class Place:
    """One course's midterm as the student reaches it."""

    slug: str
    base: str  # its pages' address prefix
    api: str  # its API prefix for assessments
    lesson: str
    question: str
    answer: str
    exercise: str
    offering_id: int = 0

    @property
    def question_id(self) -> str:
        return self.question.split("/")[1]

    def course(self) -> Course:
        found = process_registry().content(self.slug)
        assert found is not None
        return found


FIRST = Place("positional-embeddings", "", "/api", LESSON, QUESTION, "(max_len, d_model)", EXERCISE)
SECOND_PLACE = Place(
    SECOND,
    f"/courses/{SECOND}",
    f"/api/courses/{SECOND}",
    "multi-head",
    SECOND_QUESTION,
    "64",
    SECOND_EXERCISE,
)


def _content(tmp_path: Path) -> Path:
    """The first course (linked) and a copy of the second, each with its own midterm."""
    root = tmp_path / "content"
    root.mkdir()
    for name in ("lessons", "exercises", "course.yaml"):
        (root / name).symlink_to(ROOT / name)
    write(root, midterm())
    second = root / "courses" / SECOND
    shutil.copytree(ROOT / "courses" / SECOND, second)
    write(second, second_midterm())
    return root


def _enrol(place: Place) -> None:
    """Ann studies in the course's offering (the second course gets an offering of its own)."""
    with session_factory()() as session:
        ann = session.scalar(select(User).where(User.email == ANN))
        assert ann is not None
        if place.slug == FIRST.slug:
            place.offering_id = first_offering(session=session).id
            return
        offering = Offering(course_slug=place.slug, title="Attention, this term")
        session.add(offering)
        session.flush()
        session.add(Enrollment(offering_id=offering.id, user_id=ann.id, role=OfferingRole.student))
        session.commit()
        place.offering_id = offering.id


@dataclass
class World:
    """The app, the place, the sitting brought to a phase."""

    client: TestClient
    place: Place
    sitting: Sitting
    phase: str


@pytest.fixture
def world(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    data_dir: Path,
) -> Iterator[World]:
    db, course, phase, _ = request.param
    monkeypatch.setenv("CONTENT_DIR", str(_content(tmp_path)))
    get_settings.cache_clear()
    reset_process_registry()
    with ExitStack() as stack:
        if db == "postgresql":
            stack.enter_context(throwaway_database(monkeypatch, data_dir))
            upgrade_head()
        app = create_app()
        app.dependency_overrides[get_queue] = lambda: RecordingQueue()
        client = stack.enter_context(TestClient(app))
        place = Place(**FIRST.__dict__) if course == "first" else Place(**SECOND_PLACE.__dict__)
        headers(ANN)  # Ann's account
        _enrol(place)
        link_lms(
            exercise=place.exercise, offering_id=None if course == "first" else place.offering_id
        )
        sitting = Sitting(
            client,
            api=place.api,
            question=place.question,
            answer=place.answer,
            exercise=place.exercise,
        )
        sitting.reach(phase)
        yield World(client, place, sitting, phase)
    reset_process_registry()


def _ids(case: tuple[str, str, str, str]) -> str:
    return "-".join(case)


@pytest.mark.parametrize("world", CASES, ids=[_ids(c) for c in CASES], indirect=True)
def test_cell(world: World, request: pytest.FixtureRequest) -> None:
    reader = request.node.callspec.id.rsplit("-", 1)[1]
    CELLS[reader](world)


def _session() -> Session:
    return session_factory()()


def practice_quiz(w: World) -> None:
    """Running: refused with the reason, nothing graded; handed in: refused until the release
    (a checked answer would tell the score early); released: practice as usual."""
    answer = {"answers": {w.place.question_id: w.place.answer}}
    posted = w.client.post(
        f"{w.place.base}/api/lessons/{w.place.lesson}/quiz", json=answer, headers=headers(ANN)
    )
    with _session() as session:
        stored = session.query(QuizAttempt).count()
    if w.phase == "running":
        assert posted.status_code == 409
        assert "running attempt at 'Midterm'" in posted.json()["detail"]
        assert "results" not in posted.json() and stored == 0
    elif w.phase == "handed_in":
        assert posted.status_code == 409 and stored == 0
        detail = posted.json()["detail"]
        assert "part of your attempt at 'Midterm'" in detail
        assert "opens when its scores are released (at " in detail and "results" not in detail
    else:
        assert posted.status_code == 200 and stored == 1


def practice_exercise(w: World) -> None:
    """Running and handed in before the release: refused, nothing stored; released: practice."""
    before = len(submissions())
    posted = w.client.post(
        "/api/submissions",
        json={"exercise": w.place.exercise, "course": w.place.slug, "code": "x = 1"},
        headers=headers(ANN),
    )
    if w.phase == "running":
        assert posted.status_code == 409 and len(submissions()) == before
        assert "running attempt at 'Midterm'" in posted.json()["detail"]
    elif w.phase == "handed_in":
        assert posted.status_code == 409 and len(submissions()) == before
        assert "opens when its scores are released" in posted.json()["detail"]
    else:
        assert posted.status_code == 202, posted.text
        assert submissions()[-1].purpose == "practice"


def solution(w: World) -> None:
    """The exam exercise's model solution stays closed until the student's scores are out."""
    address = f"{w.place.base}/exercises/{w.place.exercise}/solution"
    page = w.client.get(address, headers=headers(ANN))
    if w.phase == "running":
        assert page.status_code == 403 and "closed while your attempt" in page.text
    elif w.phase == "handed_in":
        assert page.status_code == 403
        assert "open when your scores for &#39;Midterm&#39; are released (at " in page.text
    else:
        assert "Model solutions of this exercise" not in page.text


def lists(w: World) -> None:
    """The student's list and history never show exam code; its own page waits for release."""
    ann = headers(ANN)
    listed = w.client.get(f"/api/submissions?exercise={w.place.exercise}", headers=ann)
    assert listed.status_code == 200 and listed.json() == []
    history = w.client.get(f"{w.place.base}/exercises/{w.place.exercise}/history", headers=ann)
    assert history.status_code == 200 and "/submissions/" not in history.text.split("<main")[-1]
    if w.phase == "running":
        assert submissions() == []  # the code is saved in the attempt, not submitted
        return
    one = w.client.get(f"/api/submissions/{w.sitting.submission}", headers=ann)
    page = w.client.get(f"{w.place.base}/submissions/{w.sitting.submission}", headers=ann)
    events = w.client.get(f"/api/submissions/{w.sitting.submission}/events", headers=ann)
    if w.phase == "handed_in":
        assert (one.status_code, page.status_code, events.status_code) == (403, 403, 403)
        assert "verdict" not in one.json() and "Accepted" not in page.text
    else:
        assert one.status_code == 200 and one.json()["score"] == 1.0
        assert page.status_code == 200 and "Accepted" in page.text


def gradebook(w: World) -> None:
    """The exercise's practice column never counts the exam's code."""
    course = w.place.course()
    with _session() as session:
        book = build_gradebook(
            session=session, course=course, place=Where(course, w.place.offering_id)
        )
        [row] = [r for r in book.rows if r.email == ANN]
        cell = row.exercises.get(w.place.exercise)
        assert cell is None or (cell.attempts, cell.best) == (0, None)


def analytics(w: World) -> None:
    where = Where(w.place.course(), w.place.offering_id)
    with _session() as session:
        stats = exercise_stats(session=session, slug=w.place.exercise, place=where)
        assert (stats.attempts, stats.students, stats.solvers) == (0, 0, 0)


def item_stats(w: World) -> None:
    """The exam's item statistics count a sitting once it is handed in (staff see it then)."""
    course = w.place.course()
    spec = assessments_for(course).get("midterm")
    assert spec is not None
    with _session() as session:
        where = Where(course, w.place.offering_id)
        stats = stats_for(session=session, spec=spec, course=course, place=where)
    assert stats.students == (0 if w.phase == "running" else 1)


def similarity(w: World) -> None:
    where = Where(w.place.course(), w.place.offering_id)
    with _session() as session:
        assert finals(session=session, slug=w.place.exercise, place=where) == []


def lms_exercise(w: World) -> None:
    """The LMS's exercise column gets nothing from the exam's code, in any phase."""
    assert pending_posts("exercise") == []
    with _session() as session:
        ann = session.scalar(select(User.id).where(User.email == ANN))
        found = score_for(
            session=session,
            user_id=int(ann or 0),
            kind="exercise",
            slug=w.place.exercise,
            policy="best",
            offering_id=w.place.offering_id,
        )
    assert found is None


def lms_exam(w: World) -> None:
    """The exam's column: nothing while it runs; held until release; then the score."""
    with _session() as session:
        ann = session.scalar(select(User.id).where(User.email == ANN))
        found = score_for(
            session=session,
            user_id=int(ann or 0),
            kind="assessment",
            slug="midterm",
            policy="best",
            offering_id=w.place.offering_id,
        )
        rows = session.scalars(select(Submission)).all()
    posts = pending_posts("assessment")
    if w.phase == "running":
        assert found is None and posts == [] and rows == []
    elif w.phase == "handed_in":
        assert found is None and len(posts) == 1
        assert as_utc(posts[0].next_attempt_at) > as_utc(rows[0].created_at)
    else:
        assert found == pytest.approx(1.0)


CELLS: dict[str, Callable[[World], None]] = {
    "practice_quiz": practice_quiz,
    "practice_exercise": practice_exercise,
    "solution": solution,
    "lists": lists,
    "gradebook": gradebook,
    "analytics": analytics,
    "item_stats": item_stats,
    "similarity": similarity,
    "lms_exercise": lms_exercise,
    "lms_exam": lms_exam,
}
