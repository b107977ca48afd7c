"""The account roles, apart from the tables so the command line can list them without loading
the database layer."""

from __future__ import annotations

import enum


class Role(enum.StrEnum):
    """What an account may do: students solve, instructors also see everyone's work."""

    student = "student"
    instructor = "instructor"
