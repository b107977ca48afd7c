"""One Place (course plus offering) per request, passed down; no course or offering as globals."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import ROOT
from app.content.loader import Course
from app.main import create_app
from app.offerings.place import Place, PlaceDep
from tests.conftest import shipped_content

FIRST, SECOND = "positional-embeddings", "attention-step-by-step"


@pytest.fixture
def where(data_dir: Path) -> Iterator[TestClient]:
    """The real app with one more API route that answers with the Place it was given."""
    app = create_app()

    @app.get("/api/instructor/where-am-i")
    async def where_am_i(place: PlaceDep) -> dict[str, object]:
        return {
            "course": place.course.slug,
            "folder": str(place.course.root),
            "version": place.course.version,
            "offering": place.offering_id,
            "prefix": place.prefix,
        }

    with TestClient(app) as client:
        yield client


def test_a_plain_url_is_the_first_course_and_the_first_offering(where: TestClient) -> None:
    found = where.get("/api/instructor/where-am-i").json()
    assert (found["course"], found["offering"], found["prefix"]) == (FIRST, None, "")
    assert Path(found["folder"]) == shipped_content() and found["version"]


def test_an_offering_url_names_the_offering_in_the_place(where: TestClient) -> None:
    found = where.get("/offerings/7/api/instructor/where-am-i").json()
    assert (found["course"], found["offering"], found["prefix"]) == (FIRST, 7, "/offerings/7")


def test_a_course_url_names_the_course_with_its_folder_and_version(where: TestClient) -> None:
    found = where.get(f"/api/courses/{SECOND}/instructor/where-am-i").json()
    assert (found["course"], found["offering"]) == (SECOND, None)
    assert Path(found["folder"]) == shipped_content() / "courses" / SECOND and found["version"]
    assert where.get("/api/courses/no-such-course/instructor/where-am-i").status_code == 404


def test_a_place_is_frozen_and_says_its_prefix() -> None:
    place = Place(Course(slug=SECOND), 3)
    assert place.prefix == "/offerings/3" and Place(Course()).prefix == ""
    with pytest.raises(AttributeError):
        place.offering_id = 4  # type: ignore[misc]


# Names that made the course or the offering global state (issue 47, point 1).
GONE = {
    r"\bContextVar\b": "the offering travels as a Place, not in a context variable",
    r"\boffering_scope\b": "pass place= to the statistics instead",
    r"\boffering_in_request\b": "pass place= (or read offering_named(request))",
    r"\boffering_prefix\(": "use place.prefix",
    r"\bstate\.course\b": "the course comes from the registry through CourseDep or Place",
    r"\b_root_state\b": "the registry holds every course, the first one included",
}


def test_no_course_or_offering_comes_back_as_global_state() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {why}"
        for path in sorted((ROOT / "app").rglob("*.py"))
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        for pattern, why in GONE.items()
        if re.search(pattern, line)
    ]
    assert found == []
