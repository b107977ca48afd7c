"""Course URLs: /courses/{course}/... is that course's copy of the pages (courses/prefix.py).

Why here: templates and redirects keep links inside the page's course, and they sit below the
course registry, so the URL rules live with the other HTTP utilities.
"""

from __future__ import annotations

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
    "/instructor/assessments",
    "/api/instructor/assessments",
    "/problems",
)
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
    if not slug or not (rest == "/" or rest.startswith(ROUTED) or rest + "/" in ROUTED):
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
    if location == "/" or location.startswith(("/?", "/#")) or location.startswith(ROUTED):
        return base + location
    return location
