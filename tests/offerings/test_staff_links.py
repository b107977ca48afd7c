"""Every staff page keeps an instructor in the offering whose pages they are reading.

Under `/offerings/{id}/instructor/...` each form, link and redirect to a staff page carries the
same prefix (as the staff menu does, tests/offerings/test_staff_menu.py); without the prefix they
stay without it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, text

from app.db import session_factory
from app.deadlines.models import DeadlineExtension
from app.main import create_app
from app.offerings.models import OfferingRole
from app.offerings.service import create_offering, enroll, first_offering, role_in
from app.problems.models import ProblemReport
from app.users.models import Role, User
from tests.assessments.conftest import exam, write
from tests.instructor.conftest import EXERCISE, LESSON, PAST_DUE, add_submission, at, person
from tests.instructor.test_access import all_routes

# A link or form target that is a staff page or a staff API, with or without an offering.
STAFF = re.compile(r"^(/offerings/\d+)?(/instructor(?:[/?#]|$)|/api/)")
TARGETS = re.compile(r'\s(href|action|data-[\w-]+)="([^"]*)"')
CODE = "def f(x):\n    total = x + 1\n    return total * 3\n"
# Every staff page, as (name, path); {slug} etc. are filled from the world below.
PAGES = [
    ("gradebook", "/instructor/gradebook"),
    ("exercises", "/instructor/exercises"),
    ("exercise", "/instructor/exercises/{exercise}"),
    ("similar", "/instructor/exercises/{exercise}/similar"),
    ("clusters", "/instructor/exercises/{exercise}/clusters"),
    ("similar pair", "/instructor/exercises/{exercise}/similar/{a}/{b}"),
    ("quizzes", "/instructor/quizzes"),
    ("quiz", "/instructor/quizzes/{lesson}"),
    ("assessments", "/instructor/assessments"),
    ("assessment", "/instructor/assessments/{assessment}"),
    ("people", "/instructor/students"),
    ("student", "/instructor/students/{student}"),
    ("content", "/instructor/content"),
    ("regrade requests", "/instructor/regrade-requests"),
    ("attention", "/instructor/attention"),
    ("reports", "/instructor/problems"),
    ("resolved reports", "/instructor/problems?show=resolved"),
    ("settings", "/instructor/settings"),
    ("lms link", "/instructor/lms"),
    ("roster", "/instructor/roster"),
    ("lms", "/instructor/lti"),
]
NOT_PAGES = (  # GET routes under /instructor that are files or redirects, not pages with links
    "/instructor",
    "/instructor/gradebook.csv",
    "/instructor/assessments/{slug}/items.csv",
    "/instructor/quizzes/{slug}/items.csv",
    # grading by hand opens only for an exercise with a rubric (the world's has none: 404)
    "/instructor/exercises/{slug}/grading",
    "/instructor/exercises/{slug}/grading/{submission_id}",
    # the way into the course's authoring area, a course-level role's place, not an offering's
    "/instructor/authoring",
)


@dataclass
class World:
    """Offering A (the first), offering B with its instructor and two students' work."""

    first: int
    second: int
    teacher: dict[str, str]  # an instructor of B only
    first_teacher: dict[str, str]  # an instructor of A only
    student: int
    other_student: int
    submission: int
    params: dict[str, str]


@pytest.fixture
def staff_client(course_dir: Path) -> Iterator[TestClient]:
    """The small course with an exam over its lesson's quiz."""
    spec = exam(parts=[{"title": "Tables", "items": [{"question": f"{LESSON}/table-params"}]}])
    write(course_dir, spec)
    with TestClient(create_app()) as client:
        yield client


def _world() -> World:
    teacher_id, teacher = person("teacher-b@example.org", "Tea", role=Role.instructor)
    _, first_teacher = person("teacher-a@example.org", "Tef", role=Role.instructor)
    student_id, _ = person("stu-b@example.org", "Stu")
    other_id, _ = person("oth-b@example.org", "Oth")
    with session_factory()() as session:
        first = first_offering(session=session)
        second = create_offering(
            session=session, course_slug="positional-embeddings", title="Spring 2027, section B"
        )
        session.execute(  # `person` joined everyone to the first offering; B's are not in A
            text("DELETE FROM enrollments WHERE user_id IN (:t, :s, :o)"),
            {"t": teacher_id, "s": student_id, "o": other_id},
        )
        session.commit()
        for uid, role, offering in (
            (teacher_id, OfferingRole.instructor, second),
            (student_id, OfferingRole.student, second),
            (other_id, OfferingRole.student, second),
        ):
            found = session.get(User, uid)
            assert found is not None
            enroll(session=session, offering=offering, user=found, role=role)
        first_id, second_id = first.id, second.id
    a = add_submission(student_id, EXERCISE, [True, False], at(3), code=CODE, offering_id=second_id)
    b = add_submission(other_id, EXERCISE, [True, False], at(4), code=CODE, offering_id=second_id)
    with session_factory()() as session:
        for resolved in (False, True):
            report = ProblemReport(  # a report belongs to the offering it was filed in
                user_id=student_id,
                kind="exercise",
                slug=EXERCISE,
                message="It is broken",
                offering_id=second_id,
            )
            if resolved:
                report.resolved_at = at(5)
            session.add(report)
        session.commit()
    return World(
        first=first_id,
        second=second_id,
        teacher=teacher,
        first_teacher=first_teacher,
        student=student_id,
        other_student=other_id,
        submission=a,
        params={
            "exercise": EXERCISE,
            "lesson": LESSON,
            "assessment": "quick",
            "student": str(student_id),
            "a": str(a),
            "b": str(b),
        },
    )


def _targets(html: str) -> list[tuple[str, str]]:
    """(attribute, URL) of the staff pages a page links to, sends a form to or gives its scripts."""
    return [(attr, url) for attr, url in TARGETS.findall(html) if STAFF.match(url)]


def _fill(path: str, params: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: params[m[1]], path)


def test_the_table_covers_every_staff_page() -> None:
    pages = {path.split("?")[0].replace("{exercise}", "{slug}") for _, path in PAGES}
    pages = {re.sub(r"\{(lesson|assessment)\}", "{slug}", p) for p in pages}
    pages = {p.replace("{student}", "{user_id}") for p in pages}
    routed = {
        path
        for path, route in all_routes(create_app().routes)
        if path.startswith("/instructor") and "GET" in route.methods
    }
    assert routed - set(NOT_PAGES) - pages == set()


@pytest.mark.parametrize(("name", "path"), PAGES, ids=[name for name, _ in PAGES])
def test_a_staff_page_of_a_second_offering_stays_in_it(
    staff_client: TestClient, name: str, path: str
) -> None:
    world = _world()
    base = f"/offerings/{world.second}"
    page = staff_client.get(base + _fill(path, world.params), headers=world.teacher)
    assert page.status_code == 200, page.text
    targets = _targets(page.text)
    assert targets, "the page links to no staff page"
    outside = [(attr, url) for attr, url in targets if not url.startswith(base + "/")]
    assert outside == [], f"{name}: these leave offering {world.second}"
    links = {url.replace("&amp;", "&") for attr, url in targets if attr == "href"}
    for url in links:  # and each link opens for B's instructor
        assert staff_client.get(url, headers=world.teacher).status_code == 200, url


@pytest.mark.parametrize(("name", "path"), PAGES, ids=[name for name, _ in PAGES])
def test_a_staff_page_without_an_offering_links_without_one(
    staff_client: TestClient, name: str, path: str
) -> None:
    world = _world()
    stu, _ = person("stu-a@example.org", "Sta")  # the first offering's own people and work
    other, _ = person("oth-a@example.org", "Ota")
    one = add_submission(stu, EXERCISE, [True], at(3), code=CODE)
    two = add_submission(other, EXERCISE, [True], at(4), code=CODE)
    params = {**world.params, "student": str(stu), "a": str(one), "b": str(two)}
    page = staff_client.get(_fill(path, params), headers=world.first_teacher)
    assert page.status_code == 200, page.text
    targets = _targets(page.text)
    assert targets, "the page links to no staff page"
    assert [url for _, url in targets if url.startswith("/offerings/")] == [], name


def _form_posts(world: World) -> list[tuple[str, dict[str, str], str]]:
    """(path, form, where the answer should send the instructor), all under no prefix."""
    stu = world.student
    return [
        (
            f"/instructor/students/{stu}/extensions",
            {"item": f"exercise:{PAST_DUE}", "due": "2027-01-10T12:00", "reason": "ill"},
            f"/instructor/students/{stu}?saved=extension",
        ),
        (
            f"/instructor/submissions/{world.submission}/override",
            {"percent": "80", "reason": "partial"},
            f"/instructor/students/{stu}?saved=override#submission-{world.submission}",
        ),
        (
            f"/instructor/students/{world.other_student}/role",
            {"role": "instructor"},
            f"/instructor/students/{world.other_student}?saved=role",
        ),
        (
            "/instructor/settings/late-policy",
            {"mode": "accept"},
            "/instructor/settings?saved=policy",
        ),
        (
            "/instructor/settings/due-dates",
            {},
            "/instructor/settings?saved=dates",
        ),
        (f"/instructor/exercises/{EXERCISE}/regrade", {}, None),
        (
            f"/instructor/quizzes/{LESSON}/regrade",
            {},
            f"/instructor/quizzes/{LESSON}?regraded=0&changed=0&exam=0",
        ),
        ("/instructor/problems/{report}/resolve", {}, "/instructor/problems"),
    ]


def _open_report(student_id: int) -> int:
    with session_factory()() as session:
        found = session.scalar(
            select(ProblemReport.id).where(
                ProblemReport.user_id == student_id, ProblemReport.resolved_at.is_(None)
            )
        )
        assert found is not None
        return found


@pytest.mark.parametrize("prefixed", [True, False], ids=["offering-url", "old-url"])
def test_staff_forms_send_the_instructor_back_where_they_were(
    staff_client: TestClient, monkeypatch: pytest.MonkeyPatch, prefixed: bool
) -> None:
    monkeypatch.setattr(  # no grading thread: only where the form sends the instructor is tested
        "app.instructor.regrade_routes.start_regrade", lambda **_: (None, True)
    )
    world = _world()
    base = f"/offerings/{world.second}" if prefixed else ""
    headers = world.teacher if prefixed else world.first_teacher
    if not prefixed:  # the first offering's own student and work
        stu, _ = person("stu-a@example.org", "Sta")
        other, _ = person("oth-a@example.org", "Ota")
        one = add_submission(stu, EXERCISE, [True, False], at(3))
        with session_factory()() as session:
            session.add(ProblemReport(user_id=stu, kind="exercise", slug=EXERCISE, message="x"))
            session.commit()
        world = World(**{**world.__dict__, "student": stu, "other_student": other})
        world.submission = one
    report = _open_report(world.student)
    for path, form, back in _form_posts(world):
        path = path.replace("{report}", str(report))
        sent = staff_client.post(base + path, data=form, headers=headers, follow_redirects=False)
        assert sent.status_code == 303, (path, sent.text)
        where = sent.headers["location"]
        expected = f"/instructor/exercises/{EXERCISE}?regrade=started" if back is None else back
        assert where == base + expected, path
        assert staff_client.get(where, headers=headers).status_code == 200, where


def test_an_extension_granted_in_a_second_offering_is_that_offerings(
    staff_client: TestClient,
) -> None:
    world = _world()
    base = f"/offerings/{world.second}"
    page = staff_client.get(f"{base}/instructor/students/{world.student}", headers=world.teacher)
    action = f"{base}/instructor/students/{world.student}/extensions"
    assert f'action="{action}"' in page.text
    sent = staff_client.post(
        action,
        data={"item": f"exercise:{PAST_DUE}", "due": "2027-01-10T12:00", "reason": "ill"},
        headers=world.teacher,
        follow_redirects=False,
    )
    assert sent.status_code == 303
    assert sent.headers["location"] == f"{base}/instructor/students/{world.student}?saved=extension"
    with session_factory()() as session:
        rows = session.scalars(
            select(DeadlineExtension).where(DeadlineExtension.user_id == world.student)
        ).all()
        assert [(row.slug, row.offering_id) for row in rows] == [(PAST_DUE, world.second)]
    after = staff_client.get(sent.headers["location"], headers=world.teacher).text
    assert "The extension is saved" in after and "2027-01-10 12:00 UTC" in after
    removal = re.search(rf'action="({base}/instructor/students/\d+/extensions/\d+/delete)"', after)
    assert removal is not None
    removed = staff_client.post(removal[1], headers=world.teacher, follow_redirects=False)
    assert removed.headers["location"].startswith(f"{base}/instructor/students/{world.student}?")


def test_a_role_changed_in_a_second_offering_is_that_offerings(staff_client: TestClient) -> None:
    world = _world()
    base = f"/offerings/{world.second}"
    sent = staff_client.post(
        f"{base}/instructor/students/{world.other_student}/role",
        data={"role": "instructor"},
        headers=world.teacher,
        follow_redirects=False,
    )
    assert (
        sent.headers["location"] == f"{base}/instructor/students/{world.other_student}?saved=role"
    )
    with session_factory()() as session:
        assert role_in(session=session, user_id=world.other_student, offering_id=world.second) == (
            OfferingRole.instructor
        )
        assert (
            role_in(session=session, user_id=world.other_student, offering_id=world.first) is None
        )
