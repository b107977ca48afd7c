"""One place per request for every course served (issue 47, point 1).

No constant in the code names the first course; a course's URL without an offering means that
course's first offering (never the first course's); an offering of another course is a 404 with a
sentence; and the staff menu keeps the course's prefix.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.config import ROOT
from app.db import session_factory
from app.main import create_app
from app.offerings.models import Offering, OfferingRole
from app.offerings.place import PlaceDep
from app.offerings.service import create_offering, enroll, first_offering, role_in, work_in
from app.submissions.models import Submission
from app.users.models import Role
from app.users.service import create_user, issue_api_token

FIRST, SECOND = "positional-embeddings", "attention-step-by-step"
MENU = re.compile(r'<nav class="instructor-nav".*?</nav>', re.S)
# The staff menu's own pages (those that need no slug or id).
MENU_PAGES = (
    "gradebook",
    "exercises",
    "quizzes",
    "assessments",
    "students",
    "attention",
    "content",
    "regrade-requests",
    "problems",
    "settings",
    "lti",
    "lms",
)


def _person(email: str, offering_id: int, role: OfferingRole) -> dict[str, str]:
    """Bearer headers of an account that holds ROLE in that offering only."""
    with session_factory()() as session:
        user, _ = create_user(session=session, email=email, password="correct horse")
        offering = session.get(Offering, offering_id)
        assert offering is not None
        enroll(session=session, offering=offering, user=user, role=role)
        return {"Authorization": f"Bearer {issue_api_token(session=session, user=user)}"}


def _offerings() -> tuple[int, int]:
    """(the first course's first offering, the second course's only offering)."""
    with session_factory()() as session:
        first = first_offering(session=session, course_slug=FIRST).id
        second = create_offering(
            session=session, course_slug=SECOND, title="Attention, this term", is_open=True
        ).id
    return first, second


def test_no_constant_in_the_code_names_the_first_course() -> None:
    names = re.compile(r"\bFIRST_COURSE\b|\bFALLBACK_SLUG\b|[\"']" + FIRST + r"[\"']")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "app").rglob("*.py"))
        if "migrations" not in path.parts  # history keeps the slug its rows were written with
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if names.search(line)
    ]
    assert found == []


def test_the_app_names_the_course_whose_first_offering_it_wants() -> None:
    calls = re.compile(r"\bfirst_offering\((?![^)]*course_slug=)")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "app").rglob("*.py"))
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if calls.search(line) and not line.lstrip().startswith("def ")
    ]
    assert found == []


def test_a_course_url_without_an_offering_means_that_courses_first_offering(
    client: TestClient,
) -> None:
    first, second = _offerings()
    theirs = _person("b-teacher@example.org", second, OfferingRole.instructor)
    mine = _person("a-teacher@example.org", first, OfferingRole.instructor)
    _person("b-student@example.org", second, OfferingRole.student)
    _person("a-student@example.org", first, OfferingRole.student)
    book = client.get(f"/api/courses/{SECOND}/instructor/gradebook", headers=theirs)
    assert book.status_code == 200, book.text
    assert "split-heads" in book.json()["exercises"]
    emails = {row["email"] for row in book.json()["students"]}
    assert emails == {"b-student@example.org"}  # the second course's people, not the first's
    assert client.get(f"/courses/{SECOND}/instructor/settings", headers=theirs).status_code == 200
    # An instructor of the first course's offering is nobody in the second course.
    for path in (
        f"/api/courses/{SECOND}/instructor/gradebook",
        f"/courses/{SECOND}/instructor/settings",
    ):
        assert client.get(path, headers=mine).status_code == 403, path
    assert client.get("/api/instructor/gradebook", headers=theirs).status_code == 403


def test_a_course_without_an_offering_gets_its_own_first_one(client: TestClient) -> None:
    with session_factory()() as session:
        made = first_offering(session=session, course_slug=SECOND)
        again = first_offering(session=session, course_slug=SECOND)
        first = first_offering(session=session, course_slug=FIRST)
        assert made.course_slug == SECOND and again.id == made.id and first.id != made.id


@pytest.fixture
def where(data_dir: Path) -> Iterator[TestClient]:
    """The real app with one more API route that answers with the Place it was given."""
    app = create_app()

    @app.get("/api/instructor/where-am-i")
    async def where_am_i(place: PlaceDep) -> dict[str, object]:
        return {"course": place.course.slug, "offering": place.offering_id}

    with TestClient(app) as client:
        yield client


def test_a_place_naming_another_courses_offering_is_a_404(where: TestClient) -> None:
    first, second = _offerings()
    mine = where.get(f"/courses/{SECOND}/offerings/{second}/api/instructor/where-am-i")
    assert mine.json() == {"course": SECOND, "offering": second}
    for path in (
        f"/courses/{SECOND}/offerings/{first}/api/instructor/where-am-i",
        f"/offerings/{second}/api/instructor/where-am-i",  # a plain URL is the first course
    ):
        found = where.get(path)
        assert found.status_code == 404, path
        assert "is not an offering of" in found.json()["detail"], found.text


def test_staff_of_one_course_cannot_read_it_through_the_other(client: TestClient) -> None:
    first, second = _offerings()
    mine = _person("a-teacher@example.org", first, OfferingRole.instructor)
    theirs = _person("b-teacher@example.org", second, OfferingRole.instructor)
    api = client.get(f"/courses/{SECOND}/offerings/{first}/api/instructor/gradebook", headers=mine)
    assert api.status_code == 404 and "is not an offering of" in api.json()["detail"]
    page = client.get(f"/courses/{SECOND}/offerings/{first}/instructor/settings", headers=mine)
    assert page.status_code == 404 and "is not an offering of" in page.text
    back = client.get(f"/offerings/{second}/api/instructor/gradebook", headers=theirs)
    assert back.status_code == 404 and "is not an offering of" in back.json()["detail"]
    assert "split-heads" not in back.text


@pytest.mark.parametrize("in_offering", [False, True], ids=["course-url", "offering-url"])
def test_the_staff_menu_of_the_second_course_stays_in_it(
    client: TestClient, in_offering: bool
) -> None:
    _, second = _offerings()
    theirs = _person("b-teacher@example.org", second, OfferingRole.instructor)
    base = f"/courses/{SECOND}" + (f"/offerings/{second}" if in_offering else "")
    for name in MENU_PAGES:
        page = client.get(f"{base}/instructor/{name}", headers=theirs)
        assert page.status_code == 200, (name, page.text[:300])
        menu = MENU.search(page.text)
        assert menu is not None, name
        links = re.findall(r'href="([^"]+)"', menu.group(0))
        assert len(links) >= len(MENU_PAGES), name
        assert [link for link in links if not link.startswith(f"{base}/instructor/")] == [], name
    for link in links:  # each of them opens in the second course (authoring is a course role's)
        assert client.get(link, headers=theirs).status_code in (200, 403), link


# A link, form target or script's URL that is a staff page or API, with whatever prefix.
STAFF_TARGET = re.compile(r"^(/courses/[\w-]+)?(/offerings/\d+)?(/instructor(?:[/?#]|$)|/api/)")
TARGETS = re.compile(r'\s(href|action|data-[\w-]+)="([^"]*)"')


@pytest.mark.parametrize("in_offering", [False, True], ids=["course-url", "offering-url"])
def test_every_staff_link_of_the_second_course_stays_in_it(
    client: TestClient, in_offering: bool
) -> None:
    _, second = _offerings()
    theirs = _person("b-teacher@example.org", second, OfferingRole.instructor)
    _person("b-student@example.org", second, OfferingRole.student)  # rows that link to them
    base = f"/courses/{SECOND}" + (f"/offerings/{second}" if in_offering else "")
    outside = []
    for name in MENU_PAGES:
        html = client.get(f"{base}/instructor/{name}", headers=theirs).text
        found = [url for _, url in TARGETS.findall(html) if STAFF_TARGET.match(url)]
        outside += [(name, url) for url in found if not url.startswith(base + "/")]
    assert outside == []


def test_an_instructor_made_by_the_command_line_teaches_the_first_course(data_dir: Path) -> None:
    with session_factory()() as session:
        user, _ = create_user(
            session=session, email="t@example.org", password="correct horse", role=Role.instructor
        )
        first = first_offering(session=session, course_slug=FIRST)
        assert role_in(session=session, user_id=user.id, offering_id=first.id) == (
            OfferingRole.instructor
        )


def test_self_study_in_the_second_course_counts_in_no_offering_of_the_first(
    client: TestClient,
) -> None:
    """Work done in a course whose offerings are closed to the student is stored with no
    offering (self-study); the first course's staff must not see it as their old rows."""
    first, second = _offerings()
    with session_factory()() as session:
        closed = session.get(Offering, second)
        assert closed is not None
        closed.is_open = False
        session.commit()
    mine = _person("a-teacher@example.org", first, OfferingRole.ta)
    theirs = _person("b-teacher@example.org", second, OfferingRole.instructor)
    with session_factory()() as session:
        student, _ = create_user(session=session, email="s@example.org", password="correct horse")
        me = {"Authorization": f"Bearer {issue_api_token(session=session, user=student)}"}
    exercise = ROOT / "courses" / SECOND / "exercises" / "causal-attention-weights"
    code = (exercise / "starter" / "numpy.py").read_text("utf-8")
    sent = client.post(
        f"/api/courses/{SECOND}/submissions",
        json={"exercise": "causal-attention-weights", "code": code},
        headers=me,
    )
    assert sent.status_code == 202, sent.text
    sid = sent.json()["id"]
    assert client.get(f"/api/submissions/{sid}", headers=me).status_code == 200
    assert client.get(f"/api/submissions/{sid}", headers=mine).status_code == 404
    assert client.get(f"/submissions/{sid}", headers=mine).status_code == 404
    assert client.get(f"/api/courses/{SECOND}/submissions/{sid}", headers=mine).status_code == 404
    assert client.get(f"/api/courses/{SECOND}/submissions/{sid}", headers=theirs).status_code == 404
    with session_factory()() as session:  # nor in the first course's lists, by any slug
        counted = session.scalars(
            select(Submission.id).where(work_in(Submission.offering_id, first, legacy=True))
        ).all()
        assert sid not in counted
        row = session.get(Submission, sid)
        assert row is not None and row.offering_id is None and row.course_slug == SECOND
