"""Fixtures of the offerings tests, shared with the instructor and LTI tests (a throwaway
PostgreSQL database, `postgres_db`, is the root conftest's)."""

from __future__ import annotations

# The small scaffolded course and its app client, shared with the instructor tests.
from tests.instructor.conftest import app_client, course_dir
from tests.lti.conftest import lti_client, platform

__all__ = ["app_client", "course_dir", "lti_client", "platform"]
