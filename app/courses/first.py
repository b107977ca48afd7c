"""The first course's slug (the repository root's course.yaml), for rows made without one."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml

from app import yamlio

FALLBACK_SLUG = "positional-embeddings"  # the first course's slug since before course.yaml


@lru_cache(maxsize=8)
def slug_in(folder: Path) -> str:
    """The slug in FOLDER/course.yaml, or FALLBACK_SLUG when it is missing or unreadable."""
    try:
        data = yamlio.safe_load((folder / "course.yaml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return FALLBACK_SLUG
    slug = data.get("slug") if isinstance(data, dict) else None
    return slug if isinstance(slug, str) and slug else FALLBACK_SLUG


def first_course_slug() -> str:
    """The slug of the course at CONTENT_DIR (the default for old rows and unnamed requests)."""
    from app.config import get_settings

    return slug_in(get_settings().content_dir.resolve())


def course_slug_of(scope_course: object) -> str:
    """The course a request is in: its /courses/{course}/ prefix, else the first course."""
    return scope_course if isinstance(scope_course, str) and scope_course else first_course_slug()
