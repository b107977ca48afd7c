"""Course URLs: /courses/{course}/... is that course's copy of the pages (courses/prefix.py).

Why here: templates and redirects keep links inside the page's course, and they sit below the
course registry, so the URL rules live with the other HTTP utilities.
"""

from __future__ import annotations

import re

PREFIX = "/courses/"
# The routes a course's pages use; anything else under /courses/{course}/ is a 404.
ROUTED = (
    "/lessons/",
    "/exercises/",
    "/submissions/",
    "/api/submissions",
    "/api/drafts/",
    "/api/lessons",
    "/api/exercises",
    "/assessments",
    "/api/assessments",
    "/instructor/",
    "/api/instructor/",
    "/api/content/",
    "/api/jobs/",
    "/problems",
)
# A course's staff pages in one of its offerings: /courses/{course}/offerings/{id}/instructor/...
# (the offering middleware, inside the course one, then strips /offerings/{id}).
OFFERING = re.compile(r"^/offerings/\d{1,9}(?=/)")
API_PREFIX = "/api/courses/"
# /api/courses/{course}/lessons and .../exercises are routes of their own (app/courses/routes.py).
API_OWN = ("/lessons", "/exercises")
LOGIN_NEXT = "/login?next="
SCOPE_COURSE = "course"
SCOPE_BASE = "course_base"


def split(path: str) -> tuple[str, str] | None:
    """('slug', '/rest') for a course path we serve, else None."""
    if not path.startswith(PREFIX):
        return None
    slug, _, rest = path[len(PREFIX) :].partition("/")
    rest = "/" + rest
    inner = OFFERING.sub("", rest, count=1)
    if not slug or not (rest == "/" or inner.startswith(ROUTED) or inner + "/" in ROUTED):
        return None
    return slug, rest


def split_api(path: str) -> tuple[str, str] | None:
    """('slug', '/api/rest') for /api/courses/{slug}/rest when /api/rest is a course's API."""
    if not path.startswith(API_PREFIX):
        return None
    slug, _, rest = path[len(API_PREFIX) :].partition("/")
    inner = "/api/" + rest
    if not slug or rest == "" or "/" + rest in API_OWN or not inner.startswith(ROUTED):
        return None
    return slug, inner


def prefixed(location: str, base: str) -> str:
    """A redirect inside a course stays in it (the login page's `next` too)."""
    if location.startswith(LOGIN_NEXT):
        return LOGIN_NEXT + prefixed(location[len(LOGIN_NEXT) :], base)
    inner = OFFERING.sub("", location, count=1)
    if location == "/" or location.startswith(("/?", "/#")) or inner.startswith(ROUTED):
        return base + location
    return location
