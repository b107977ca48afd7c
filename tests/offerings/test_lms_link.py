"""An offering's LMS link: its instructors link an LMS course (seen in launches, or typed before
the first launch) and remove the link; launches from it then enrol into that offering."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.lti.models import LtiContext, LtiLink, LtiPlatform, LtiUser
from app.lti.outbox import queue_grade
from app.offerings.models import Enrollment, Offering, OfferingRole
from app.offerings.service import create_offering, enroll, first_offering, role_in
from app.users.models import User
from app.users.service import create_user, issue_api_token
from tests.lti.conftest import INSTRUCTOR, LEARNER, launch
from tests.lti.platform import LTI, Platform
from tests.users.helpers import form_token

NINE = {LTI + "context": {"id": "course-9", "title": "Transformers, autumn"}}


def _signed_in(
    client: TestClient, platform: Platform, sub: str, roles: list[str], **token_args: object
) -> None:
    answer = launch(client, platform, sub=sub, roles=roles, **token_args)
    assert answer.status_code == 303, answer.text
    follow = client.get(answer.headers["location"], follow_redirects=False)
    assert follow.status_code == 303, follow.text


def _user(sub: str) -> int:
    with session_factory()() as session:
        return session.scalars(select(LtiUser.user_id).where(LtiUser.sub == sub)).one()


def _offering(title: str) -> int:
    with session_factory()() as session:
        return create_offering(session=session, course_slug="positional-embeddings", title=title).id


def _spring() -> int:
    return _offering("Spring 2027")


def _person(email: str, roles: dict[int, OfferingRole], *, admin: bool = False) -> dict[str, str]:
    """An account holding these roles (by offering id) and nothing else; a bearer header."""
    with session_factory()() as session:
        user, _ = create_user(session=session, email=email, password="correct horse", name=email)
        user.is_admin = admin
        session.commit()
        for offering_id, role in roles.items():
            found = session.get(User, user.id)
            assert found is not None
            enroll(
                session=session,
                offering=session.get_one(Offering, offering_id),
                user=found,
                role=role,
            )
        for row in session.scalars(select(Enrollment).where(Enrollment.user_id == user.id)):
            if row.offering_id not in roles:
                session.delete(row)
        session.commit()
        return {"Authorization": f"Bearer {issue_api_token(session=session, user=user)}"}


def _roles(sub: str, *offerings: int) -> list[OfferingRole | None]:
    with session_factory()() as session:
        user_id = _user(sub)
        return [role_in(session=session, user_id=user_id, offering_id=o) for o in offerings]


def _first() -> int:
    with session_factory()() as session:
        return first_offering(session=session).id


def test_an_instructor_links_a_course_seen_in_launches_and_removes_the_link(
    lti_client: TestClient, platform: Platform
) -> None:
    _signed_in(lti_client, platform, "s-1", [LEARNER])  # course-1 feeds the first
    first, spring = _first(), _spring()
    teacher = _person(
        "t@example.org", {first: OfferingRole.instructor, spring: OfferingRole.instructor}
    )
    api = f"/offerings/{spring}/api/instructor/lms"
    before = lti_client.get(api, headers=teacher)
    assert before.status_code == 200, before.text
    assert before.json()["links"] == []
    [seen] = before.json()["seen"]
    assert (seen["context_id"], seen["deployment_id"], seen["offering"]) == (
        "course-1",
        "dep-1",
        first,
    )

    linked = lti_client.post(f"{api}/links", json={"context": seen["id"]}, headers=teacher)
    assert linked.status_code == 200, linked.text
    assert [c["context_id"] for c in linked.json()["links"]] == ["course-1"]
    assert linked.json()["seen"] == []
    _signed_in(lti_client, platform, "s-2", [LEARNER])
    assert _roles("s-2", first, spring) == [None, OfferingRole.student]

    removed = lti_client.delete(f"{api}/links/{seen['id']}", headers=teacher)
    assert removed.status_code == 200 and removed.json()["links"] == []
    again = lti_client.delete(f"{api}/links/{seen['id']}", headers=teacher)
    assert again.status_code == 404
    # A removed link does not fall back to the first offering: launches are refused, and
    # grades no longer go to that LMS course, until it is linked again.
    refused = launch(lti_client, platform, sub="s-3", roles=[LEARNER])
    assert refused.status_code == 403 and "no longer linked" in refused.text
    graded = {"user_id": _user("s-2"), "kind": "exercise", "slug": "alibi-bias"}
    with session_factory()() as session:
        assert session.scalar(select(LtiUser).where(LtiUser.sub == "s-3")) is None
        session.add(LtiLink(context_id=seen["id"], kind="exercise", slug="alibi-bias"))
        session.commit()
        assert queue_grade(session=session, **graded) == 0  # type: ignore[arg-type]
    relink = {"context": seen["id"]}
    # An instructor of another offering, with nothing proving they teach course-1 in the LMS,
    # cannot take it; the offering it was removed from can link it again (an undo).
    autumn = _offering("Autumn")
    other = _person("o@example.org", {autumn: OfferingRole.instructor})
    taken = lti_client.post(
        f"/offerings/{autumn}/api/instructor/lms/links", json=relink, headers=other
    )
    assert taken.status_code == 403 and "can link it again" in taken.json()["detail"]
    listed = lti_client.get(f"/offerings/{autumn}/api/instructor/lms", headers=other)
    assert listed.json()["seen"] == []
    assert [c["id"] for c in lti_client.get(api, headers=teacher).json()["seen"]] == [seen["id"]]
    relinked = lti_client.post(f"{api}/links", json=relink, headers=teacher)
    assert relinked.status_code == 200, relinked.text
    with session_factory()() as session:
        assert queue_grade(session=session, **graded) == 1  # type: ignore[arg-type]
    _signed_in(lti_client, platform, "s-3", [LEARNER])
    assert _roles("s-3", first, spring) == [None, OfferingRole.student]


def test_a_course_typed_before_its_first_launch_enrols_into_the_offering(
    lti_client: TestClient, platform: Platform
) -> None:
    first, spring = _first(), _spring()
    # A site admin: nothing proves who teaches an LMS course before it opens the tool (an
    # instructor is refused: tests/offerings/test_lms_link_proof.py).
    teacher = _person("t@example.org", {spring: OfferingRole.instructor}, admin=True)
    with session_factory()() as session:
        lms = session.scalars(select(LtiPlatform.id)).one()
    api = f"/offerings/{spring}/api/instructor/lms/links"
    wrong = {"platform": lms, "deployment_id": "dep-404", "context_id": "course-9"}
    refused = lti_client.post(api, json=wrong, headers=teacher)
    assert refused.status_code == 422 and "dep-404" in refused.json()["detail"]
    both = lti_client.post(api, json={**wrong, "context": 1}, headers=teacher)
    assert both.status_code == 422
    typed = {"platform": lms, "deployment_id": "dep-1", "context_id": "course-9"}
    answer = lti_client.post(api, json=typed, headers=teacher)
    assert answer.status_code == 200, answer.text
    assert [(c["context_id"], c["offering"]) for c in answer.json()["links"]] == [
        ("course-9", spring)
    ]
    _signed_in(lti_client, platform, "s-9", [LEARNER], claims=NINE)
    assert _roles("s-9", first, spring) == [None, OfferingRole.student]
    with session_factory()() as session:
        context = session.scalars(
            select(LtiContext).where(LtiContext.context_id == "course-9")
        ).one()
        assert (context.title, context.offering_id) == ("Transformers, autumn", spring)


def test_an_lms_course_of_another_offering_is_neither_shown_nor_taken(
    lti_client: TestClient, platform: Platform
) -> None:
    _signed_in(lti_client, platform, "s-1", [LEARNER])  # course-1 feeds the first
    first, spring = _first(), _spring()
    with session_factory()() as session:
        course_1 = session.scalars(select(LtiContext.id)).one()
    stranger = _person("o@example.org", {spring: OfferingRole.instructor})
    api = f"/offerings/{spring}/api/instructor/lms"
    assert lti_client.get(api, headers=stranger).json()["seen"] == []
    taken = lti_client.post(f"{api}/links", json={"context": course_1}, headers=stranger)
    assert taken.status_code == 403 and "feeds another offering" in taken.json()["detail"]
    by_id = lti_client.delete(f"{api}/links/{course_1}", headers=stranger)
    assert by_id.status_code == 404  # it feeds the first offering, not this one
    elsewhere = lti_client.get(f"/offerings/{first}/api/instructor/lms", headers=stranger)
    assert elsewhere.status_code == 403
    ta = _person("ta@example.org", {spring: OfferingRole.ta})
    assert lti_client.get(api, headers=ta).status_code == 403
    admin = _person("a@example.org", {}, admin=True)
    moved = lti_client.post(f"{api}/links", json={"context": course_1}, headers=admin)
    assert moved.status_code == 200 and len(moved.json()["links"]) == 1


def test_the_page_links_and_unlinks_through_csrf_checked_forms(
    lti_client: TestClient, platform: Platform
) -> None:
    _signed_in(lti_client, platform, "t-1", [INSTRUCTOR])  # instructor of the first
    spring = _spring()
    with session_factory()() as session:
        teacher = session.get_one(User, _user("t-1"))
        enroll(
            session=session,
            offering=session.get_one(Offering, spring),
            user=teacher,
            role=OfferingRole.instructor,
        )
        course_1 = session.scalars(select(LtiContext.id)).one()
    url = f"/offerings/{spring}/instructor/lms"
    page = lti_client.get(url)
    assert page.status_code == 200, page.text
    assert "Transformers 101" in page.text and "No LMS course is linked" in page.text
    assert f'action="{url}/link"' in page.text
    forged = lti_client.post(f"{url}/link", data={"context": str(course_1)})
    assert forged.status_code == 403  # no CSRF token: refused before it acts
    token = form_token(page.text)
    done = lti_client.post(
        f"{url}/link",
        data={"context": str(course_1), "csrf_token": token},
        follow_redirects=False,
    )
    assert done.status_code == 303 and done.headers["location"] == f"{url}?done=linked"
    shown = lti_client.get(done.headers["location"]).text
    assert "The LMS course is linked to this offering." in shown
    assert f'action="{url}/contexts/{course_1}/unlink"' in shown
    gone = lti_client.post(
        f"{url}/contexts/{course_1}/unlink",
        data={"csrf_token": form_token(shown)},
        follow_redirects=False,
    )
    assert gone.status_code == 303
    assert "No LMS course is linked" in lti_client.get(url).text
    typo = lti_client.post(
        f"{url}/link",
        data={"platform": "1", "deployment_id": "dep-1", "context_id": "", "csrf_token": token},
    )
    assert typo.status_code == 422 and "context id must be 1 to 255" in typo.text
