"""People pages: the list of accounts, one student's work, and changing a role."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from app.content.loader import Course
from app.content.service import CourseDep
from app.instructor.students import list_people, student_view
from app.instructor.web import page
from app.offerings.access import (
    InstructorUser,
    StaffUser,
    is_member_here,
    offering_id_here,
    set_role_here,
)
from app.offerings.models import OfferingRole
from app.offerings.place import Place, PlaceDep
from app.offerings.service import role_in
from app.submissions.comments import comments_by_submission
from app.users.models import User
from app.web.api import RowId
from app.web.request_session import SessionDep

router = APIRouter(tags=["instructor"])
SAVED = {
    "override": "The score override is saved; the student sees it with your reason.",
    "override-removed": "The override is removed; the grader's score applies again.",
    "extension": "The extension is saved; late flags were updated.",
    "extension-removed": "The extension is removed; the course due date applies again.",
    "role": "The role is changed.",
    "comment": "The comment is saved; the student sees it with this submission.",
}


def get_person(session: SessionDep, user_id: int, place: Place) -> User:
    """The account with this id in this offering, or a 404 (other offerings' are hidden)."""
    person = session.get(User, user_id)
    if person is None or not is_member_here(session, user_id, place):
        raise HTTPException(404, "There is no account with that id.")
    return person


def student_page(
    request: Request,
    *,
    session: SessionDep,
    course: Course,
    user: User,
    person: User,
    place: Place,
    exercise: str = "",
    error: str | None = None,
    status_code: int = 200,
) -> Response:
    """Render one person's page, with a form error when an action failed."""
    view = student_view(session=session, course=course, user=person, exercise=exercise, place=place)
    here, _ = offering_id_here(session=session, place=place)
    held = None if here is None else role_in(session=session, user_id=person.id, offering_id=here)
    ids = [e.row.id for entries in view.submissions.values() for e in entries]
    return page(
        request,
        "instructor/student.html",
        user,
        status_code=status_code,
        view=view,
        course=course,
        exercise=exercise,
        role_here=held.value if held is not None else "",
        error=error,
        saved=SAVED.get(request.query_params.get("saved", "")),
        comments=comments_by_submission(session=session, submission_ids=ids),
    )


@router.get("/instructor/students", include_in_schema=False)
def people_page(
    request: Request, session: SessionDep, user: StaffUser, place: PlaceDep
) -> Response:
    """Every account with its role; each name opens that person's work."""
    return page(
        request, "instructor/students.html", user, people=list_people(session=session, place=place)
    )


@router.get("/instructor/students/{user_id}", include_in_schema=False)
def student_detail(
    user_id: RowId,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: StaffUser,
    place: PlaceDep,
    exercise: str = "",
) -> Response:
    """Every submission with code and full report, quiz attempts with answers, deadlines."""
    person = get_person(session, user_id, place)
    return student_page(
        request,
        session=session,
        course=course,
        user=user,
        person=person,
        exercise=exercise,
        place=place,
    )


@router.post("/instructor/students/{user_id}/role", include_in_schema=False)
def change_role(
    user_id: RowId,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: InstructorUser,
    place: PlaceDep,
    role: Annotated[str, Form()] = "",
) -> Response:
    """Promote a student to instructor of this offering, or back; nobody changes their own
    role. The role holds in this offering only (there is no global teaching role)."""
    person = get_person(session, user_id, place)
    problem = None
    if role not in (OfferingRole.student.value, OfferingRole.instructor.value):
        problem = "Choose the role 'student' or 'instructor'."
    elif person.id == user.id:
        problem = "You cannot change your own role; ask another instructor."
    if problem:
        return student_page(
            request,
            session=session,
            course=course,
            user=user,
            person=person,
            error=problem,
            status_code=400,
            place=place,
        )
    set_role_here(session, person, OfferingRole(role), place)
    back = f"{place.prefix}/instructor/students/{person.id}?saved=role"
    return RedirectResponse(back, status_code=303)
