"""Kinds of items a higher layer lets an LMS link to (assessments), registered at start-up.

Why: the LMS code sits below the assessments (they send their scores through its outbox), so it
cannot import them; `app/wiring.py` registers each such kind here, as it registers their score
readers with `grades.read_scores_of`. Deep linking offers the kind's items, a launch checks and
opens them, and graded ones get an LMS gradebook column like quizzes and exercises.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.content.loader import Course
from app.hooks import LINK_KINDS


@dataclass(frozen=True)
class Linkable:
    """One item of a registered kind: its slug (in URLs and targets) and its title."""

    slug: str
    title: str


@dataclass(frozen=True)
class LinkKind:
    """A kind of linkable item: `kind:slug` targets, opened at `/<folder>/<slug>`."""

    kind: str
    folder: str
    items: Callable[[Course], list[Linkable]]  # the course's items of this kind, in order
    graded: bool = True  # its scores go to the LMS gradebook (a score reader is registered)

    def path(self, slug: str) -> str:
        """Our page for one of its items."""
        return f"/{self.folder}/{slug}"

    def has(self, course: Course, slug: str) -> bool:
        """Whether the course has this item now."""
        return any(item.slug == slug for item in self.items(course))


def link_kind(kind: LinkKind) -> None:
    """Let LMS links name items of this kind from now on in this process (idempotent; a plug of
    `hooks.LINK_KINDS`)."""
    LINK_KINDS.plug(kind.kind, kind)


def registered(kind: str) -> LinkKind | None:
    """The registered kind of this name, if any."""
    found: LinkKind | None = LINK_KINDS.get(kind)
    return found


def registered_kinds() -> list[LinkKind]:
    """Every registered kind, in the order registered."""
    return list(LINK_KINDS.each())


def kind_of_folder(folder: str) -> LinkKind | None:
    """The registered kind whose pages live under `/<folder>/`."""
    return next((k for k in registered_kinds() if k.folder == folder), None)
