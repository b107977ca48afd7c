"""Assessments as LMS links: deep linking offers them, and a launch opens their page.

Registered with the LMS code by `app/wiring.py` (it sits below the assessments and cannot
import them). A link carries a gradebook column: the released score reaches it by the reader
`scoring.subscribe` registers for the same kind.
"""

from __future__ import annotations

from app.assessments.loader import assessments_for
from app.assessments.scoring import KIND
from app.content.loader import Course
from app.lti.linkables import Linkable, LinkKind


def linkable(course: Course) -> list[Linkable]:
    """The course's assessments that loaded, earliest opening first, by their titles."""
    return [Linkable(spec.slug, spec.title) for spec in assessments_for(course).ordered()]


ASSESSMENT_LINKS = LinkKind(kind=KIND, folder="assessments", items=linkable, graded=True)
