"""Where a request (or a command) works: its course and its offering, built once, passed down."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy import select

from app.content.first import first_course_slug
from app.content.loader import Course
from app.content.service import CourseDep
from app.db import session_factory
from app.errors import DomainError
from app.offerings.models import Offering

SCOPE_KEY = "offering_id"  # set by OfferingPrefixMiddleware from `/offerings/{id}/...`


@dataclass(frozen=True)
class Place:
    """The course and the offering one request works in, handed to services as `place=`."""

    course: Course
    offering_id: int | None = None  # the offering the URL names; None: the course's first

    @property
    def course_slug(self) -> str:
        """The course's slug; a course loaded outside the registry (a command, a benchmark's
        class) has none of its own and is the first course, as its rows are."""
        return self.course.slug or first_course_slug()

    @property
    def prefix(self) -> str:
        """'/offerings/{id}' when the request named that offering, else '' (for redirects)."""
        return "" if self.offering_id is None else f"/offerings/{self.offering_id}"


def offering_named(request: Request) -> int | None:
    """The offering this request's URL names (`/offerings/{id}/...`); None: the course's first."""
    named = request.scope.get(SCOPE_KEY)
    return named if isinstance(named, int) else None


class ForeignOffering(DomainError):
    """404: the URL names an offering of another course than the one it is in."""

    def __init__(self, offering_id: int, course_slug: str, owner: str) -> None:
        super().__init__(
            404,
            f"Offering {offering_id} is not an offering of the course '{course_slug}' (it is "
            f"one of '{owner}'); open it under that course's address.",
        )


def course_of_offering(offering_id: int) -> str | None:
    """The slug of the course the offering runs; None when there is no such offering."""
    with session_factory()() as session:
        return session.scalar(select(Offering.course_slug).where(Offering.id == offering_id))


def check_place(place: Place, owner: str | None) -> Place:
    """The place, unless its offering runs another course (then a 404 that says so)."""
    if place.offering_id is not None and owner is not None and owner != place.course_slug:
        raise ForeignOffering(place.offering_id, place.course_slug, owner)
    return place


async def get_place(request: Request, course: CourseDep) -> Place:
    """FastAPI dependency: this request's course and offering, the offering checked to be one
    of the course's (async: a trip to a thread only when the URL names an offering)."""
    place = Place(course, offering_named(request))
    if place.offering_id is None:
        return place
    return check_place(place, await asyncio.to_thread(course_of_offering, place.offering_id))


PlaceDep = Annotated[Place, Depends(get_place)]
