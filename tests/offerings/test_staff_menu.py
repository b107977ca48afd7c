"""The staff menu keeps an instructor in the offering whose pages they are reading."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.offerings.models import OfferingRole
from app.offerings.service import create_offering, enroll
from app.users.models import Role, User
from tests.conftest import make_token


def _menu(html: str) -> list[str]:
    nav = re.search(r'<nav class="instructor-nav".*?</nav>', html, flags=re.S)
    assert nav is not None
    return re.findall(r'href="([^"]+)"', nav.group(0))


def test_the_menu_of_a_second_offering_links_its_own_pages(client: TestClient) -> None:
    token = make_token("teacher@example.org", Role.instructor)
    with session_factory()() as session:
        teacher = session.scalar(select(User).where(User.email == "teacher@example.org"))
        assert teacher is not None
        spring = create_offering(
            session=session, course_slug="positional-embeddings", title="Spring 2027"
        )
        enroll(session=session, offering=spring, user=teacher, role=OfferingRole.instructor)
        second = spring.id
    headers = {"Authorization": f"Bearer {token}"}
    page = client.get(f"/offerings/{second}/instructor/gradebook", headers=headers)
    assert page.status_code == 200
    links = _menu(page.text)
    assert f"/offerings/{second}/instructor/students" in links
    assert f"/offerings/{second}/instructor/settings" in links
    assert [link for link in links if not link.startswith(f"/offerings/{second}/")] == []
    for link in links:  # and every link it offers opens for this instructor
        assert client.get(link, headers=headers).status_code == 200, link
    first = _menu(client.get("/instructor/gradebook", headers=headers).text)
    assert "/instructor/students" in first  # the first offering's menu is as before
