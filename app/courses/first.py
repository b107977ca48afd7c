"""The first course's slug, for the course registry and the floors above it (the rules live in
app/content/first.py, below the offerings, which need them too)."""

from __future__ import annotations

from app.content.first import course_slug_of, first_course_slug, folder_slug, slug_in

__all__ = ["course_slug_of", "first_course_slug", "folder_slug", "slug_in"]
