"""The first course's slug (the course at CONTENT_DIR, the registry's first), for rows made
without one and requests that name no course."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import yaml

from app import yamlio


def folder_slug(folder: Path) -> str:
    """The first course's slug while its course.yaml is missing: FIRST_COURSE_SLUG when set,
    else the folder's name made a slug (never a slug written in the code)."""
    from app.config import get_settings

    named = get_settings().first_course_slug
    if named:
        return named
    made = re.sub(r"[^a-z0-9]+", "-", folder.name.lower()).strip("-")[:64].strip("-")
    return made or "course"


def slug_in(folder: Path) -> str:
    """The slug in FOLDER/course.yaml, or `folder_slug` when it is missing or unreadable."""
    return _slug_in(folder) or folder_slug(folder)


@lru_cache(maxsize=8)
def _slug_in(folder: Path) -> str | None:
    try:
        data = yamlio.safe_load((folder / "course.yaml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    slug = data.get("slug") if isinstance(data, dict) else None
    return slug if isinstance(slug, str) and slug else None


def first_course_slug() -> str:
    """The slug of the course at CONTENT_DIR (the default for old rows and unnamed requests)."""
    from app.config import get_settings

    return slug_in(_resolved(get_settings().content_dir))


@lru_cache(maxsize=8)
def _resolved(folder: Path) -> Path:
    """FOLDER without its links, once: most requests ask, and a resolve is a system call per
    part of the path (45 us a call, 4 us cached, on the 2-core machine)."""
    return folder.resolve()


def course_slug_of(scope_course: object) -> str:
    """The course a request is in: its /courses/{course}/ prefix, else the first course."""
    return scope_course if isinstance(scope_course, str) and scope_course else first_course_slug()
