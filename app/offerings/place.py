"""Where a request (or a command) works: its course and its offering, built once, passed down."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from app.content.loader import Course
from app.content.service import CourseDep

SCOPE_KEY = "offering_id"  # set by OfferingPrefixMiddleware from `/offerings/{id}/...`


@dataclass(frozen=True)
class Place:
    """The course and the offering one request works in, handed to services as `place=`."""

    course: Course
    offering_id: int | None = None  # the offering the URL names; None: the first offering

    @property
    def prefix(self) -> str:
        """'/offerings/{id}' when the request named that offering, else '' (for redirects)."""
        return "" if self.offering_id is None else f"/offerings/{self.offering_id}"


def offering_named(request: Request) -> int | None:
    """The offering this request's URL names (`/offerings/{id}/...`); None: the first one."""
    named = request.scope.get(SCOPE_KEY)
    return named if isinstance(named, int) else None


async def get_place(request: Request, course: CourseDep) -> Place:
    """FastAPI dependency: this request's course and offering (async: no trip to a thread)."""
    return Place(course, offering_named(request))


PlaceDep = Annotated[Place, Depends(get_place)]
